package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;

/**
 * The probes' experiments ({@code sqlqueue probe --backend sqlserver-broker}), under a probe prefix.
 * Run by {@link dev.sqlqueue.sqlserver.broker.probe.BrokerProbe} and its experiments.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class ProbeStatements {
    private final BrokerNames n;

    ProbeStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Begins a dialog to the queue's service. One row: conversation_handle.
     *
     * @param q the queue whose objects the statement names
     * @param lifetimeSeconds the dialog's lifetime, in seconds
     * @return the T-SQL text
     */
    public String probeBeginDialog(QueueName q, int lifetimeSeconds) {
        return "DECLARE @h uniqueidentifier; " + BrokerStatements.beginDialog(n, q, lifetimeSeconds) + "; SELECT @h AS conversation_handle;";
    }

    /**
     * Sends one data message. Parameters: conversation handle, body.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeSend(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?, @b varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE "
                + quote(n.messageType(q)) + " (@b);";
    }

    /**
     * Receives with a wait. Parameters: TOP, time-out in ms. Columns: conversation_handle, queuing_order, message_type_name.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeReceive(QueueName q) {
        return "WAITFOR (RECEIVE TOP (?) conversation_handle, queuing_order, message_type_name FROM " + n.qualified(n.queue(q))
                + "), TIMEOUT ?";
    }

    /**
     * One row: messages on the queue and the lowest queuing_order (a NOLOCK read).
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeQueueCount(QueueName q) {
        return "SELECT COUNT_BIG(*) AS messages, MIN(queuing_order) AS first_order FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK)";
    }

    /**
     * Turns the queue's poison message handling on, so rollbacks that count toward it show.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probePoisonHandlingOn(QueueName q) {
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH POISON_MESSAGE_HANDLING (STATUS = ON)";
    }

    /**
     * One row: trancount.
     *
     * @return the T-SQL text
     */
    public static String probeTranCount() {
        return "SELECT @@TRANCOUNT AS trancount";
    }

    /**
     * Asks for a transaction-owned application lock without waiting; one row: result.
     *
     * @return the T-SQL text
     */
    public String probeApplock() {
        return "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = " + literal(n.prefix() + "probe")
                + ", @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = 0; SELECT @r AS result;";
    }

    /**
     * Ends a conversation. Parameter: conversation handle.
     *
     * @return the T-SQL text
     */
    public String probeEnd() {
        return new DialogStatements(n).endConversation();
    }

    /**
     * One row: data messages of the queue's service in sys.transmission_queue.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeInTransit(QueueName q) {
        return "SELECT COUNT_BIG(*) AS in_transit FROM sys.transmission_queue WHERE " + BrokerStatements.inTransit(n, q);
    }

    /**
     * Makes a lock wait fail after 5 s on this session (a plain batch: it stays for the session).
     *
     * @return the T-SQL text
     */
    public static String probeLockTimeout() {
        return "SET LOCK_TIMEOUT 5000";
    }

    /**
     * One row: target_endpoints, the target-side conversation endpoints of the probe queue's dialogs.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeTargetEndpoints(QueueName q) {
        return "SELECT COUNT_BIG(*) AS target_endpoints FROM sys.conversation_endpoints WHERE far_service = "
                + literal(n.initiatorService(q));
    }

    /**
     * One row: base_type of message_enqueue_time, its age in ms by SYSDATETIMEOFFSET(), server offset in minutes.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeEnqueueTimeType(QueueName q) {
        return "SELECT TOP (1) CAST(SQL_VARIANT_PROPERTY(CAST(message_enqueue_time AS sql_variant), 'BaseType') AS nvarchar(128))"
                + " AS base_type, DATEDIFF_BIG(millisecond, message_enqueue_time, SYSDATETIMEOFFSET()) AS age_ms,"
                + " DATEPART(TZOFFSET, SYSDATETIMEOFFSET()) AS offset_minutes FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK)";
    }

    /**
     * Receives every remaining message without waiting. Columns: conversation_handle, message_type_name.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeReceiveAll(QueueName q) {
        return "RECEIVE conversation_handle, message_type_name FROM " + n.qualified(n.queue(q));
    }

    /**
     * One row: db_owner membership of the login running the probe, and its SEND, RECEIVE, REFERENCES
     * and VIEW DEFINITION permissions on the queue's objects (1 granted, 0 not).
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probePermissions(QueueName q) {
        return "SELECT IS_ROLEMEMBER(N'db_owner') AS db_owner,"
                + " HAS_PERMS_BY_NAME(" + literal(n.service(q)) + ", N'SERVICE', N'SEND') AS send_target,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.queue(q))) + ", N'OBJECT', N'RECEIVE') AS receive_target,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.initiatorQueue(q))) + ", N'OBJECT', N'RECEIVE') AS receive_initiator,"
                + " HAS_PERMS_BY_NAME(" + literal(n.contract(q)) + ", N'CONTRACT', N'REFERENCES') AS references_contract,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.queue(q))) + ", N'OBJECT', N'VIEW DEFINITION') AS view_definition";
    }

    /**
     * Ends every conversation of the probe queue's services WITH CLEANUP (probe clean-up only; never in operation).
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String probeCleanup(QueueName q) {
        return "DECLARE @h uniqueidentifier; WHILE 1 = 1 BEGIN SET @h = NULL; SELECT TOP (1) @h = conversation_handle"
                + " FROM sys.conversation_endpoints WHERE far_service IN (" + literal(n.service(q)) + ", "
                + literal(n.initiatorService(q)) + "); IF @h IS NULL BREAK; END CONVERSATION @h WITH CLEANUP; END;";
    }

    /**
     * The key read of the deduplication design before re-review N1, kept for probe V10 to compare: the key
     * under UPDLOCK, HOLDLOCK (a key-range lock when it is missing). Parameters: queue, stored key. One row:
     * message_id.
     *
     * @return the T-SQL text
     */
    public String probeRangeKeyRead() {
        return "DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @id bigint; SELECT @id = message_id FROM " + n.keysTable()
                + " WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k; SELECT @id AS message_id;";
    }

    /**
     * One row: snapshot_isolation_state (1 = ON), is_read_committed_snapshot_on, of the current database.
     *
     * @return the T-SQL text
     */
    public static String probeIsolationSettings() {
        return "SELECT snapshot_isolation_state, is_read_committed_snapshot_on FROM sys.databases WHERE database_id = DB_ID()";
    }

    /**
     * One row: nocount, 512 when SET NOCOUNT is ON for the session ("@@OPTIONS (Transact-SQL)": bit 512).
     *
     * @return the T-SQL text
     */
    public static String probeNocount() {
        return "SELECT @@OPTIONS & 512 AS nocount";
    }

    /**
     * Runs what follows on the session as a database user ("EXECUTE AS (Transact-SQL)"); a plain batch.
     *
     * @param user the database user to impersonate; written into the batch as a string literal
     * @return the T-SQL text
     */
    public static String probeExecuteAs(String user) {
        return "EXECUTE AS USER = " + literal(user);
    }

    /**
     * Ends {@link #probeExecuteAs}.
     *
     * @return the T-SQL text
     */
    public static String probeRevert() {
        return "REVERT";
    }

    /**
     * Turns the target queue off (messages sent to it then wait in sys.transmission_queue) or on again.
     *
     * @param q the queue whose objects the statement names
     * @param on true to turn the queue on, false to turn it off
     * @return the T-SQL text
     */
    public String probeQueueStatus(QueueName q, boolean on) {
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH STATUS = " + (on ? "ON" : "OFF");
    }

    /**
     * The locks the session holds on the prefix's dialogs table, by mode and resource type (KEY, PAGE, OBJECT,
     * ...), from sys.dm_tran_locks (needs VIEW SERVER STATE, or VIEW SERVER PERFORMANCE STATE from SQL Server
     * 2022). Rows: request_mode, resource_type, locks.
     *
     * @return the T-SQL text
     */
    public String probeDialogLocks() {
        return "SELECT l.request_mode, l.resource_type, COUNT_BIG(*) AS locks FROM sys.dm_tran_locks AS l"
                + " WHERE l.request_session_id = @@SPID AND l.resource_database_id = DB_ID() AND (l.resource_associated_entity_id IN"
                + " (SELECT p.hobt_id FROM sys.partitions AS p WHERE p.object_id = OBJECT_ID(" + literal(n.unquotedTable("dialogs"))
                + ")) OR (l.resource_type = N'OBJECT' AND l.resource_associated_entity_id = OBJECT_ID("
                + literal(n.unquotedTable("dialogs")) + "))) GROUP BY l.request_mode, l.resource_type";
    }

    /**
     * Makes a lock wait fail after 2 s on this session (a plain batch: it stays for the session).
     *
     * @return the T-SQL text
     */
    public static String probeLockTimeout2s() {
        return "SET LOCK_TIMEOUT 2000";
    }
}
