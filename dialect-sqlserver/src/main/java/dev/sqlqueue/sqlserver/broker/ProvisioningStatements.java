package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;

/**
 * Provisioning: the checks before it (broker enabled, server version), the provisioning lock, each
 * queue's Service Broker objects (message types, contract, queues, services, activation) and their
 * removal, and the registry of the prefix's queues. Run by {@link BrokerProvisioner} and the backend's
 * admin operations.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class ProvisioningStatements {
    private final BrokerNames n;

    ProvisioningStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * One row: database_name, is_broker_enabled (bit).
     *
     * @return the T-SQL text
     */
    public String brokerEnabled() {
        return "SELECT DB_NAME() AS database_name, is_broker_enabled FROM sys.databases WHERE database_id = DB_ID()";
    }

    /**
     * One row: product version and edition, for reports.
     *
     * @return the T-SQL text
     */
    public String serverVersion() {
        return "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version,"
                + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition";
    }

    /**
     * Takes the provisioning lock for the open transaction; parameters: lock timeout in ms. One row:
     * result (0 or 1 granted, negative refused; see sp_getapplock). Fails with error 51000 if no
     * transaction is open (sp_getapplock would return -999 there: "sp_getapplock (Transact-SQL)").
     *
     * @return the T-SQL text
     */
    public String provisioningLock() {
        return "SET NOCOUNT ON; IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: the provisioning lock needs an open transaction', 1;"
                + " DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = "
                + literal(n.provisioningLock())
                + ", @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = ?; SELECT @r AS result;";
    }

    /**
     * Creates the queue's data message type (VALIDATION = NONE) unless it exists.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createMessageType(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.messageType(q))
                + ") CREATE MESSAGE TYPE " + quote(n.messageType(q)) + " VALIDATION = NONE";
    }

    /**
     * Creates the queue's end-of-stream message type (VALIDATION = EMPTY) unless it exists.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createEndOfStreamType(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.endOfStreamType(q))
                + ") CREATE MESSAGE TYPE " + quote(n.endOfStreamType(q)) + " VALIDATION = EMPTY";
    }

    /**
     * Creates the queue's contract unless it exists.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createContract(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = " + literal(n.contract(q))
                + ") CREATE CONTRACT " + quote(n.contract(q)) + " (" + quote(n.messageType(q))
                + " SENT BY INITIATOR, " + quote(n.endOfStreamType(q)) + " SENT BY INITIATOR)";
    }

    /**
     * The target queue. POISON_MESSAGE_HANDLING is OFF: the adapter counts attempts itself and moves a
     * message to the dead-letter table at its limit, so the broker's own rule (five rollbacks in a row
     * disable the queue) could only stop every consumer because of one crashing message.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createQueue(QueueName q) {
        return createQueueText(n.queue(q));
    }

    /**
     * The initiator queue: receives EndDialog and Error messages for the pooled dialogs.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createInitiatorQueue(QueueName q) {
        return createQueueText(n.initiatorQueue(q));
    }

    private String createQueueText(String name) {
        return "IF OBJECT_ID(" + literal(n.qualified(name)) + ", N'SQ') IS NULL CREATE QUEUE " + n.qualified(name)
                + " WITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)";
    }

    /**
     * Creates the queue's target service unless it exists.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createService(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.service(q))
                + ") CREATE SERVICE " + quote(n.service(q)) + " ON QUEUE " + n.qualified(n.queue(q))
                + " (" + quote(n.contract(q)) + ")";
    }

    /**
     * Creates the queue's initiator service unless it exists.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String createInitiatorService(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.initiatorService(q))
                + ") CREATE SERVICE " + quote(n.initiatorService(q)) + " ON QUEUE " + n.qualified(n.initiatorQueue(q));
    }

    /**
     * A registered queue whose name equals {@code name} under the database's collation but not byte
     * for byte ({@code Jobs} for {@code jobs} in a case-insensitive database): object names follow the
     * database collation, so the two queues would share Service Broker objects (m3). Parameters: name,
     * name. Rows: queue_name.
     *
     * @return the T-SQL text
     */
    public String conflictingQueueName() {
        return "SELECT TOP (1) queue_name FROM " + n.queuesTable() + " WHERE queue_name = ?"
                + " AND queue_name <> ? COLLATE Latin1_General_100_BIN2";
    }

    /**
     * Registers a queue of the prefix unless it is registered. Parameters: queue name, queue name.
     *
     * @return the T-SQL text
     */
    public String registerQueue() {
        return "IF NOT EXISTS (SELECT 1 FROM " + n.queuesTable() + " WHERE queue_name = ?) INSERT INTO "
                + n.queuesTable() + " (queue_name) VALUES (?)";
    }

    /**
     * Attaches a user's activation procedure (internal activation).
     *
     * @param q the queue whose objects the statement names
     * @param procedure schema-qualified name already validated by {@link BrokerOptions}
     * @param maxReaders 1..32767
     * @param executeAs {@code OWNER} or {@code SELF}
     * @return the T-SQL text
     */
    public String attachActivation(QueueName q, String procedure, int maxReaders, String executeAs) {
        String[] parts = procedure.split("\\.");
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = "
                + quote(parts[0]) + "." + quote(parts[1]) + ", MAX_QUEUE_READERS = " + maxReaders
                + ", EXECUTE AS " + executeAs + ")";
    }

    /**
     * Statements that remove the queue's broker objects, in order. Each is a no-op if missing.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL statements, in the order to run them
     */
    public java.util.List<String> dropQueueObjects(QueueName q) {
        return java.util.List.of(
                "IF EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.service(q)) + ") DROP SERVICE " + quote(n.service(q)),
                "IF EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.initiatorService(q)) + ") DROP SERVICE " + quote(n.initiatorService(q)),
                "IF OBJECT_ID(" + literal(n.qualified(n.queue(q))) + ", N'SQ') IS NOT NULL DROP QUEUE " + n.qualified(n.queue(q)),
                "IF OBJECT_ID(" + literal(n.qualified(n.initiatorQueue(q))) + ", N'SQ') IS NOT NULL DROP QUEUE " + n.qualified(n.initiatorQueue(q)),
                "IF EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = " + literal(n.contract(q)) + ") DROP CONTRACT " + quote(n.contract(q)),
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.messageType(q)) + ") DROP MESSAGE TYPE " + quote(n.messageType(q)),
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.endOfStreamType(q)) + ") DROP MESSAGE TYPE " + quote(n.endOfStreamType(q)));
    }

    /**
     * Puts the settings the backend relies on onto both queues, also when they existed before
     * ({@code createQueue} creates only what is missing): no retention, and poison message handling
     * OFF, so the rollbacks of failure paths never count toward disabling the queue (the adapter counts
     * attempts itself). STATUS is left alone: enabling a disabled queue is the operator's decision (m4).
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String enforceQueueSettings(QueueName q) {
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);"
                + " ALTER QUEUE " + n.qualified(n.initiatorQueue(q)) + " WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);";
    }

    /**
     * Parameter: queue name. Removes the queue's rows from every per-prefix table.
     *
     * @return the T-SQL text
     */
    public String deleteQueueRows() {
        return "DECLARE @q nvarchar(48) = ?; DELETE FROM " + n.dialogsTable() + " WHERE queue_name = @q; DELETE FROM "
                + n.fillsTable() + " WHERE queue_name = @q; DELETE FROM "
                + n.groupsTable() + " WHERE queue_name = @q; DELETE FROM " + n.groupPendingTable()
                + " WHERE queue_name = @q; DELETE FROM "
                + n.attemptsTable() + " WHERE queue_name = @q; DELETE FROM " + n.deadTable()
                + " WHERE queue_name = @q; DELETE FROM " + n.historyTable()
                + " WHERE queue_name = @q; DELETE FROM " + n.queuesTable() + " WHERE queue_name = @q;";
    }

    /**
     * One row: present, 1 if the queue registry table exists, else 0.
     *
     * @return the T-SQL text
     */
    public String registryExists() {
        return "SELECT CASE WHEN OBJECT_ID(" + literal(n.unquotedTable("queues")) + ", N'U') IS NULL THEN 0 ELSE 1 END AS present";
    }

    /**
     * Enables Service Broker in a database (needs exclusive access: other sessions are rolled back).
     * Used by test wiring and named in the error for a disabled broker; the backend never runs it itself.
     *
     * @param database the database name
     * @return the T-SQL text
     */
    public static String enableBroker(String database) {
        return "ALTER DATABASE " + quote(database) + " SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE";
    }

    /**
     * Queue names of this prefix, sorted.
     *
     * @return the T-SQL text
     */
    public String listQueues() {
        return "SELECT queue_name FROM " + n.queuesTable() + " ORDER BY queue_name";
    }
}
