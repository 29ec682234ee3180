package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;
import java.util.Collections;

/**
 * Every SQL statement of the Service Broker backend, and nothing else. Written from the SQL Server
 * documentation (Transact-SQL reference: CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE QUEUE, CREATE
 * SERVICE, BEGIN DIALOG CONVERSATION, SEND, RECEIVE, END CONVERSATION, sp_getapplock; catalog views
 * sys.databases, sys.service_queues, sys.internal_tables, sys.partitions, sys.conversation_endpoints,
 * sys.transmission_queue). None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only.
 *
 * <p>Rules kept by every statement: names come from {@link BrokerNames} (validated, quoted); values
 * are JDBC parameters except the few DDL numbers that T-SQL does not accept as variables (dialog
 * LIFETIME, MAX_QUEUE_READERS), which are validated integers; message bodies are never cast inside
 * RECEIVE (a failing cast there would leave the message stuck and give activation no event); times
 * come from {@code SYSUTCDATETIME()}. Immutable and thread-safe.
 */
public final class BrokerStatements {
    /** Message type names the broker itself sends. */
    public static final String END_DIALOG = "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog";
    public static final String ERROR = "http://schemas.microsoft.com/SQL/ServiceBroker/Error";
    public static final String DIALOG_TIMER = "http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer";

    private static final String EPOCH = "CAST('19700101' AS datetime2(3))";

    private final BrokerNames n;

    public BrokerStatements(BrokerNames names) {
        this.n = names;
    }

    public BrokerNames names() {
        return n;
    }

    // ---- server and database --------------------------------------------------------------------

    /** One row: database_name, is_broker_enabled (bit). */
    public String brokerEnabled() {
        return "SELECT DB_NAME() AS database_name, is_broker_enabled FROM sys.databases WHERE database_id = DB_ID()";
    }

    /** One row: product version and edition, for reports. */
    public String serverVersion() {
        return "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version,"
                + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition";
    }

    /**
     * Takes the provisioning lock for the open transaction; parameters: lock timeout in ms. One row:
     * result (0 or 1 granted, negative refused; see sp_getapplock). Fails with error 51000 if no
     * transaction is open (sp_getapplock would return -999 there: "sp_getapplock (Transact-SQL)").
     */
    public String provisioningLock() {
        return "SET NOCOUNT ON; IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: the provisioning lock needs an open transaction', 1;"
                + " DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = "
                + literal(n.provisioningLock())
                + ", @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = ?; SELECT @r AS result;";
    }

    // ---- per-prefix tables ------------------------------------------------------------------------

    public String createQueuesTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("queues")) + ", N'U') IS NULL CREATE TABLE "
                + n.queuesTable() + " (queue_name nvarchar(48) NOT NULL PRIMARY KEY,"
                + " created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())";
    }

    public String createDialogsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("dialogs")) + ", N'U') IS NULL CREATE TABLE "
                + n.dialogsTable() + " (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY,"
                + " queue_name nvarchar(48) NOT NULL, fill_id bigint NOT NULL, is_spacer bit NOT NULL,"
                + " owner_id uniqueidentifier NULL, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())";
    }

    public String createAttemptsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("attempts")) + ", N'U') IS NULL CREATE TABLE "
                + n.attemptsTable() + " (queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL,"
                + " attempts int NOT NULL, last_error nvarchar(4000) NULL,"
                + " updated_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, message_id))";
    }

    public String createDeadTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("dead")) + ", N'U') IS NULL CREATE TABLE "
                + n.deadTable() + " (dead_id bigint IDENTITY(1,1) NOT NULL PRIMARY KEY,"
                + " queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, payload varbinary(max) NOT NULL,"
                + " headers nvarchar(max) NOT NULL, attempts int NOT NULL, reason nvarchar(4000) NOT NULL,"
                + " enqueued_at datetime2(3) NULL, dead_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),"
                + " group_key nvarchar(128) NULL)";
    }

    /**
     * Group names compare by code point ({@code Latin1_General_100_BIN2}), not by the database's default
     * collation, which is usually case-insensitive and would merge {@code G} and {@code g}. SQL Server
     * still ignores trailing spaces in {@code =} (ANSI padding), so groups that differ only in trailing
     * spaces share a dialog here.
     */
    static final String GROUP_COLLATION = "COLLATE Latin1_General_100_BIN2";

    /** Message groups: the dialog each group travels on. */
    public String createGroupsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("groups")) + ", N'U') IS NULL CREATE TABLE "
                + n.groupsTable() + " (queue_name nvarchar(48) NOT NULL, group_key nvarchar(128) " + GROUP_COLLATION + " NOT NULL,"
                + " conversation_handle uniqueidentifier NOT NULL,"
                + " created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),"
                + " last_send_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, group_key))";
    }

    /** EndDialog and Error find a group's row by its handle ({@link #forgetDialog}). */
    public String createGroupsHandleIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("groups"))
                + ") AND name = N'ux_handle') CREATE UNIQUE INDEX [ux_handle] ON " + n.groupsTable() + " (conversation_handle)";
    }

    /**
     * One row per message of a group that was sent and has not left the queue (acked, dead-lettered,
     * purged, or consumed and sent again). A group's dialog is retired only when it has no row here
     * ({@link #retireIdleGroups}), so a new dialog never overtakes an old one. Rows are inserted by
     * senders and deleted by consumers by message id: idempotent, and consumers never touch the group's
     * row that senders lock.
     */
    public String createGroupPendingTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("group_pending")) + ", N'U') IS NULL CREATE TABLE "
                + n.groupPendingTable() + " (queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL,"
                + " group_key nvarchar(128) " + GROUP_COLLATION + " NOT NULL, PRIMARY KEY (queue_name, message_id))";
    }

    /** The retire check looks pending messages up by group. */
    public String createGroupPendingIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("group_pending"))
                + ") AND name = N'ix_group') CREATE INDEX [ix_group] ON " + n.groupPendingTable() + " (queue_name, group_key)";
    }

    /** Processed messages (seed 001): start, end and a duration computed by the database. */
    public String createHistoryTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("history")) + ", N'U') IS NULL CREATE TABLE "
                + n.historyTable() + " (history_id bigint IDENTITY(1,1) NOT NULL PRIMARY KEY,"
                + " queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, enqueued_at datetime2(3) NULL,"
                + " started_at datetime2(3) NOT NULL, finished_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),"
                + " duration_ms AS DATEDIFF_BIG(millisecond, started_at, finished_at), attempts int NOT NULL,"
                + " outcome nvarchar(16) NOT NULL, detail nvarchar(4000) NULL)";
    }

    /** The history is read newest first per queue. */
    public String createHistoryIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("history"))
                + ") AND name = N'ix_queue') CREATE INDEX [ix_queue] ON " + n.historyTable() + " (queue_name, history_id)";
    }

    /** The age prune finds a queue's oldest rows by finish time ({@link #pruneHistoryBefore}); idempotent (N3). */
    public String createHistoryFinishedIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("history"))
                + ") AND name = N'ix_finished') CREATE INDEX [ix_finished] ON " + n.historyTable() + " (queue_name, finished_at)";
    }

    /**
     * Deduplication keys, written in the SEND's transaction. Queue and key compare by code point (BIN2);
     * the stored key is the key followed by {@code .}, because {@code =} ignores trailing spaces even
     * under BIN2, which would make {@code k} and {@code k } one key.
     */
    public String createKeysTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("keys")) + ", N'U') IS NULL CREATE TABLE "
                + n.keysTable() + " (queue_name nvarchar(48) " + GROUP_COLLATION + " NOT NULL,"
                + " dedupe_key nvarchar(129) " + GROUP_COLLATION + " NOT NULL, message_id bigint NOT NULL,"
                + " expires_at datetime2(7) NOT NULL, PRIMARY KEY (queue_name, dedupe_key))";
    }

    public String createKeysExpiryIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("keys"))
                + ") AND name = N'ix_expiry') CREATE INDEX [ix_expiry] ON " + n.keysTable() + " (expires_at)";
    }

    /**
     * Takes a deduplication key for the open transaction, or names the message holding it. Binds: queue,
     * stored key, window seconds, window milliseconds part. One row: message_id, NULL when this transaction
     * took the key (its row then holds message id 0 until {@link #recordKey} writes the real one).
     *
     * <p>No key-range lock (re-review N1): a read of a missing key under UPDLOCK, HOLDLOCK locked the gap up
     * to the next key ("Key-range locking", singleton fetch of nonexistent data: RangeS-U, incompatible with
     * RangeS-U and RangeI-N), so unrelated keys of one gap waited for each other and keyed batches deadlocked.
     * Instead: delete the key's expired row; read the key with READCOMMITTEDLOCK (a locking read at READ
     * COMMITTED whatever READ_COMMITTED_SNAPSHOT or the caller's isolation level is; it waits for a holder that
     * has not committed yet); if it is missing, insert it, which locks that key only ("Insert operation": X on
     * the new key, RangeI-N only tested). Two transactions that both found it missing: the second insert waits
     * for the first's X lock and then fails with 2627 (2601 for a unique index), which the CATCH block takes
     * as "duplicate" and answers with the holder's id. An error that left the transaction uncommittable (a
     * caller's session with XACT_ABORT ON) is raised again: the caller must roll back. Reading first means a
     * plain duplicate raises no error at all. No SET: it also runs on the caller's connection.
     */
    public String takeKey() {
        String read = "SELECT @id = message_id FROM " + n.keysTable() + " WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k;";
        return "DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @s int = ?, @ms int = ?, @id bigint;"
                + " DELETE FROM " + n.keysTable() + " WITH (ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k"
                + " AND expires_at <= SYSUTCDATETIME(); " + read
                + " IF @id IS NULL BEGIN BEGIN TRY INSERT INTO " + n.keysTable() + " (queue_name, dedupe_key, message_id, expires_at)"
                + " VALUES (@q, @k, 0, DATEADD(second, @s, DATEADD(millisecond, @ms, SYSUTCDATETIME()))); END TRY"
                + " BEGIN CATCH IF ERROR_NUMBER() NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW; " + read + " END CATCH END;"
                + " SELECT @id AS message_id;";
    }

    /** Writes the message id into the key this transaction took ({@link #takeKey}). Binds: message id, queue, stored key. */
    public String recordKey() {
        return "UPDATE " + n.keysTable() + " SET message_id = ? WHERE queue_name = ? AND dedupe_key = ?";
    }

    /**
     * Binds: batch size. Expired keys of any queue, through the expiry index, skipping locked ones. READPAST
     * needs READ COMMITTED or REPEATABLE READ (error 650 otherwise: "Table hints (Transact-SQL)"), so it runs
     * only on the sweeper's own connection at READ COMMITTED, each batch its own transaction (N2).
     */
    public String deleteExpiredKeys() {
        return "DELETE TOP (?) FROM " + n.keysTable() + " WITH (ROWLOCK, READPAST) WHERE expires_at <= SYSUTCDATETIME()";
    }

    /** Binds: queue. The queue's keys (drop queue). */
    public String purgeKeys() {
        return "DELETE FROM " + n.keysTable() + " WHERE queue_name = ?";
    }

    public String createIdSequence() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("ids")) + ", N'SO') IS NULL CREATE SEQUENCE "
                + n.idSequence() + " AS bigint START WITH 1 INCREMENT BY 1 CACHE 100";
    }

    // ---- per-queue broker objects -----------------------------------------------------------------

    public String createMessageType(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.messageType(q))
                + ") CREATE MESSAGE TYPE " + quote(n.messageType(q)) + " VALIDATION = NONE";
    }

    public String createEndOfStreamType(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = " + literal(n.endOfStreamType(q))
                + ") CREATE MESSAGE TYPE " + quote(n.endOfStreamType(q)) + " VALIDATION = EMPTY";
    }

    public String createContract(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = " + literal(n.contract(q))
                + ") CREATE CONTRACT " + quote(n.contract(q)) + " (" + quote(n.messageType(q))
                + " SENT BY INITIATOR, " + quote(n.endOfStreamType(q)) + " SENT BY INITIATOR)";
    }

    /**
     * The target queue. POISON_MESSAGE_HANDLING is OFF: the adapter counts attempts itself and moves a
     * message to the dead-letter table at its limit, so the broker's own rule (five rollbacks in a row
     * disable the queue) could only stop every consumer because of one crashing message.
     */
    public String createQueue(QueueName q) {
        return createQueueText(n.queue(q));
    }

    /** The initiator queue: receives EndDialog and Error messages for the pooled dialogs. */
    public String createInitiatorQueue(QueueName q) {
        return createQueueText(n.initiatorQueue(q));
    }

    private String createQueueText(String name) {
        return "IF OBJECT_ID(" + literal(n.qualified(name)) + ", N'SQ') IS NULL CREATE QUEUE " + n.qualified(name)
                + " WITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)";
    }

    public String createService(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.service(q))
                + ") CREATE SERVICE " + quote(n.service(q)) + " ON QUEUE " + n.qualified(n.queue(q))
                + " (" + quote(n.contract(q)) + ")";
    }

    public String createInitiatorService(QueueName q) {
        return "IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = " + literal(n.initiatorService(q))
                + ") CREATE SERVICE " + quote(n.initiatorService(q)) + " ON QUEUE " + n.qualified(n.initiatorQueue(q));
    }

    /** Parameters: queue name twice. */
    /**
     * A registered queue whose name equals {@code name} under the database's collation but not byte
     * for byte ({@code Jobs} for {@code jobs} in a case-insensitive database): object names follow the
     * database collation, so the two queues would share Service Broker objects (m3). Parameters: name,
     * name. Rows: queue_name.
     */
    public String conflictingQueueName() {
        return "SELECT TOP (1) queue_name FROM " + n.queuesTable() + " WHERE queue_name = ?"
                + " AND queue_name <> ? COLLATE Latin1_General_100_BIN2";
    }

    public String registerQueue() {
        return "IF NOT EXISTS (SELECT 1 FROM " + n.queuesTable() + " WHERE queue_name = ?) INSERT INTO "
                + n.queuesTable() + " (queue_name) VALUES (?)";
    }

    /**
     * Attaches a user's activation procedure (internal activation).
     *
     * @param procedure schema-qualified name already validated by {@link BrokerOptions}
     * @param maxReaders 1..32767
     * @param executeAs {@code OWNER} or {@code SELF}
     */
    public String attachActivation(QueueName q, String procedure, int maxReaders, String executeAs) {
        String[] parts = procedure.split("\\.");
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = "
                + quote(parts[0]) + "." + quote(parts[1]) + ", MAX_QUEUE_READERS = " + maxReaders
                + ", EXECUTE AS " + executeAs + ")";
    }

    /** Statements that remove the queue's broker objects, in order. Each is a no-op if missing. */
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
     */
    public String enforceQueueSettings(QueueName q) {
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);"
                + " ALTER QUEUE " + n.qualified(n.initiatorQueue(q)) + " WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);";
    }

    /** Parameter: queue name. Removes the queue's rows from every per-prefix table. */
    public String deleteQueueRows() {
        return "DECLARE @q nvarchar(48) = ?; DELETE FROM " + n.dialogsTable() + " WHERE queue_name = @q; DELETE FROM "
                + n.fillsTable() + " WHERE queue_name = @q; DELETE FROM "
                + n.groupsTable() + " WHERE queue_name = @q; DELETE FROM " + n.groupPendingTable()
                + " WHERE queue_name = @q; DELETE FROM "
                + n.attemptsTable() + " WHERE queue_name = @q; DELETE FROM " + n.deadTable()
                + " WHERE queue_name = @q; DELETE FROM " + n.historyTable()
                + " WHERE queue_name = @q; DELETE FROM " + n.queuesTable() + " WHERE queue_name = @q;";
    }

    /** One row: present, 1 if the queue registry table exists, else 0. */
    public String registryExists() {
        return "SELECT CASE WHEN OBJECT_ID(" + literal(n.unquotedTable("queues")) + ", N'U') IS NULL THEN 0 ELSE 1 END AS present";
    }

    /** Drops the per-prefix tables and the id sequence (after every queue was dropped), in order. */
    public java.util.List<String> dropPrefixObjects() {
        return java.util.List.of("DROP TABLE IF EXISTS " + n.keysTable(), "DROP TABLE IF EXISTS " + n.dialogsTable(),
                "DROP TABLE IF EXISTS " + n.fillsTable(),
                "DROP TABLE IF EXISTS " + n.groupsTable(),
                "DROP TABLE IF EXISTS " + n.groupPendingTable(),
                "DROP TABLE IF EXISTS " + n.attemptsTable(), "DROP TABLE IF EXISTS " + n.deadTable(),
                "DROP TABLE IF EXISTS " + n.historyTable(), "DROP TABLE IF EXISTS " + n.queuesTable(),
                "DROP SEQUENCE IF EXISTS " + n.idSequence());
    }

    /**
     * Enables Service Broker in a database (needs exclusive access: other sessions are rolled back).
     * Used by test wiring and named in the error for a disabled broker; the backend never runs it itself.
     */
    public static String enableBroker(String database) {
        return "ALTER DATABASE " + quote(database) + " SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE";
    }

    /** Queue names of this prefix, sorted. */
    public String listQueues() {
        return "SELECT queue_name FROM " + n.queuesTable() + " ORDER BY queue_name";
    }

    // ---- dialog pool ------------------------------------------------------------------------------

    /**
     * Begins {@code want * spread} dialogs and keeps every {@code spread}-th as a pooled dialog owned
     * by {@code owner}; the others stay open as spacers (seed 000, the "150 trick": handles created one
     * after another share a page of sys.sysdesend, so keeping every 150th gives each pooled handle its
     * own page). Spread 1 keeps all. With spread above 1, the fill writes its {@code fills} row after its
     * last dialog: only then may the sweeper end its spacers (a fill runs in auto-commit and writes its
     * spacers before its pooled rows, so a sweeper that looked only for "no pooled row" could end the spacers
     * of a fill still being built: re-review N5). Parameters: want, spread, queue name, owner id. Result: the
     * kept handles.
     *
     * @param lifetimeSeconds explicit dialog LIFETIME, validated 1..2147483647
     */
    public String fillDialogs(QueueName q, int lifetimeSeconds) {
        return "SET NOCOUNT ON; DECLARE @want int = ?, @spread int = ?, @queue nvarchar(48) = ?,"
                + " @owner uniqueidentifier = ?, @i int = 1, @h uniqueidentifier, @fill bigint;"
                + " DECLARE @kept TABLE (conversation_handle uniqueidentifier NOT NULL);"
                + " SET @fill = NEXT VALUE FOR " + n.idSequence() + ";"
                + " WHILE @i <= @want * @spread BEGIN "
                + beginDialog(q, lifetimeSeconds) + ";"
                + " INSERT INTO " + n.dialogsTable() + " (conversation_handle, queue_name, fill_id, is_spacer, owner_id)"
                + " VALUES (@h, @queue, @fill, CASE WHEN @i % @spread = 0 THEN 0 ELSE 1 END,"
                + " CASE WHEN @i % @spread = 0 THEN @owner ELSE NULL END);"
                + " IF @i % @spread = 0 INSERT INTO @kept (conversation_handle) VALUES (@h);"
                + " SET @i += 1; END;"
                + " IF @spread > 1 INSERT INTO " + n.fillsTable() + " (queue_name, fill_id) VALUES (@queue, @fill);"
                + " SELECT conversation_handle FROM @kept;";
    }

    private String beginDialog(QueueName q, int lifetimeSeconds) {
        if (lifetimeSeconds < 1) {
            throw new IllegalArgumentException("dialog lifetime must be at least 1 s");
        }
        return "BEGIN DIALOG CONVERSATION @h FROM SERVICE " + quote(n.initiatorService(q)) + " TO SERVICE "
                + literal(n.service(q)) + ", N'CURRENT DATABASE' ON CONTRACT " + quote(n.contract(q))
                + " WITH LIFETIME = " + lifetimeSeconds + ", ENCRYPTION = OFF";
    }

    /**
     * Adopts pooled dialogs released by a process that closed cleanly. Parameters: how many, owner id,
     * queue name. Result: conversation_handle, age_ms (database clock).
     */
    public String adoptDialogs() {
        return "UPDATE TOP (?) " + n.dialogsTable() + " WITH (ROWLOCK, READPAST) SET owner_id = ?"
                + " OUTPUT inserted.conversation_handle, DATEDIFF_BIG(millisecond, inserted.created_at, SYSUTCDATETIME()) AS age_ms"
                + " WHERE queue_name = ? AND owner_id IS NULL AND is_spacer = 0";
    }

    /** Parameter: owner id. Gives this process's pooled dialogs back to the table on close. */
    public String releaseOwnedDialogs() {
        return "UPDATE " + n.dialogsTable() + " SET owner_id = NULL WHERE owner_id = ?";
    }

    /**
     * Recycles a pooled dialog: sends the end-of-stream message (the target ends its side first, the
     * initiator ends on the EndDialog that follows) and removes it from the pool, inside the sender's
     * transaction. Its fill's spacers are ended later by the sweeper ({@link #endFillSpacers}), not here:
     * ending a fill's thousands of spacers in a sender's transaction held its locks for the whole
     * cleanup (M5). Parameter: the conversation handle.
     */
    public String retireDialog(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @h;";
    }

    /** Spacer cleanup finds a fill's rows by fill ({@link #endFillSpacers}). */
    public String createDialogsFillIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("dialogs"))
                + ") AND name = N'ix_fill') CREATE INDEX [ix_fill] ON " + n.dialogsTable() + " (fill_id, is_spacer)";
    }

    /** Fills whose every dialog was begun ({@link #fillDialogs}); the sweeper ends spacers of these only. */
    public String createFillsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("fills")) + ", N'U') IS NULL CREATE TABLE " + n.fillsTable()
                + " (queue_name nvarchar(48) NOT NULL, fill_id bigint NOT NULL,"
                + " completed_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, fill_id))";
    }

    /**
     * Complete fills of a queue with no pooled dialog left (retired, discarded or forgotten): their spacers
     * can go. A plain read without locking hints, through the fills' key and {@code ix_fill}, so it keeps no
     * lock on any dialog (re-review N5: the scan before held U locks on every live fill's spacers).
     * Parameters: how many at most, queue name. Rows: fill_id.
     */
    public String deadFills() {
        return "SELECT TOP (?) f.fill_id FROM " + n.fillsTable() + " AS f WHERE f.queue_name = ? AND NOT EXISTS (SELECT 1 FROM "
                + n.dialogsTable() + " AS d WHERE d.fill_id = f.fill_id AND d.is_spacer = 0)";
    }

    /**
     * Ends up to a batch of the spacers (the 150 trick's unused dialogs) of one dead fill ({@link #deadFills})
     * and deletes their rows, in the caller's transaction; when none is left, deletes the fill's row. The
     * spacers are found through {@code ix_fill} (fill_id, is_spacer), so only this fill's rows are locked;
     * rows another session holds are skipped ({@code READPAST}). An END CONVERSATION on a never-used dialog is
     * local (probe V4 asks a server to confirm it sends nothing). Parameters: how many at most, queue name,
     * fill id. One row: ended.
     */
    public String endFillSpacers() {
        return "DECLARE @max int = ?, @queue nvarchar(48) = ?, @fill bigint = ?, @s uniqueidentifier, @n int = 0;"
                + " DECLARE @batch TABLE (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY);"
                + " INSERT INTO @batch (conversation_handle) SELECT TOP (@max) conversation_handle FROM " + n.dialogsTable()
                + " WITH (UPDLOCK, ROWLOCK, READPAST) WHERE fill_id = @fill AND is_spacer = 1;"
                + " WHILE 1 = 1 BEGIN SET @s = NULL;"
                + " SELECT TOP (1) @s = conversation_handle FROM @batch; IF @s IS NULL BREAK;"
                + " END CONVERSATION @s; DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @s;"
                + " DELETE FROM @batch WHERE conversation_handle = @s; SET @n += 1; END;"
                + " IF @n < @max AND NOT EXISTS (SELECT 1 FROM " + n.dialogsTable() + " WHERE fill_id = @fill)"
                + " DELETE FROM " + n.fillsTable() + " WHERE queue_name = @queue AND fill_id = @fill;"
                + " SELECT @n AS ended;";
    }

    /**
     * Drops a broken or errored dialog: ends our side (never WITH CLEANUP), then removes it from the
     * pool, so a failing END leaves the row for the sweeper's spacer/fill bookkeeping instead of a
     * dialog nobody knows (m10).
     * Parameter: the conversation handle.
     */
    public String discardDialog() {
        return "DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; DELETE FROM " + n.dialogsTable()
                + " WHERE conversation_handle = @h;";
    }

    // ---- send ------------------------------------------------------------------------------------------

    /**
     * Sends one new message on a pooled dialog. The body is the envelope ({@link Envelope}): version
     * byte, the id from the sequence, the database-clock enqueue time in ms since 1970, then the rest
     * built by the adapter. Parameters: conversation handle, rest of the envelope. One row: message_id.
     */
    public String send(QueueName q) {
        return "SET NOCOUNT ON; DECLARE @h uniqueidentifier = ?, @rest varbinary(max) = ?, @id bigint;"
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);"
                + " SELECT @id AS message_id;";
    }

    /**
     * Sends one new message of a message group on the group's dialog, inside the caller's transaction
     * (the backend's own, or the caller's for an enqueue in the caller's transaction). The group's row
     * is read with {@code UPDLOCK, HOLDLOCK}, so concurrent senders of one group queue behind each other
     * until commit (every SEND locks its conversation anyway) and two first sends of a new group cannot
     * both begin a dialog. The first message of a group (or the first after its dialog was retired)
     * begins the dialog, with the longest LIFETIME (a group's dialog is always ended explicitly, and a
     * LIFETIME that ran out would end it with its messages). Records the message as pending. No
     * {@code SET} options are changed, because this may run on the caller's connection. Parameters:
     * queue name, group, rest of the envelope (version 2). One row: message_id.
     */
    public String sendGrouped(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @rest varbinary(max) = ?, @id bigint;"
                + groupDialog(q)
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x02 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + pendingAndSend(q)
                + " SELECT @id AS message_id;";
    }

    /**
     * Sends a complete version-2 envelope again (same id, enqueue time and group) on its group's
     * dialog, as {@link #sendGrouped}. Parameters: queue name, group, message id, body.
     */
    public String resendGrouped(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @id bigint = ?, @body varbinary(max) = ?;"
                + groupDialog(q) + pendingAndSend(q);
    }

    /** The longest dialog LIFETIME T-SQL accepts (about 68 years): for dialogs that are always ended explicitly. */
    public static final int LONGEST_LIFETIME_SECONDS = Integer.MAX_VALUE;

    private String groupDialog(QueueName q) {
        return " DECLARE @h uniqueidentifier;"
                + " SELECT @h = conversation_handle FROM " + n.groupsTable() + " WITH (UPDLOCK, HOLDLOCK, ROWLOCK)"
                + " WHERE queue_name = @queue AND group_key = @g; " + requireTransaction()
                + " IF @h IS NULL BEGIN " + beginDialog(q, LONGEST_LIFETIME_SECONDS) + ";"
                + " INSERT INTO " + n.groupsTable() + " (queue_name, group_key, conversation_handle) VALUES (@queue, @g, @h); END"
                + " ELSE UPDATE " + n.groupsTable() + " SET last_send_at = SYSUTCDATETIME()"
                + " WHERE queue_name = @queue AND group_key = @g;";
    }

    /**
     * Fails (error 51000) when no transaction is open. Placed after a SELECT from a table, which opens
     * the implicit transaction ("SET IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks), and before the
     * first SEND or BEGIN DIALOG, which do not: so a send meant for a transaction never commits alone.
     */
    static String requireTransaction() {
        return "IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: sending needs an open transaction', 1;";
    }

    private String pendingAndSend(QueueName q) {
        return " INSERT INTO " + n.groupPendingTable() + " (queue_name, message_id, group_key) VALUES (@queue, @id, @g);"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);";
    }

    /**
     * Sends one message without a group on a dialog of its own, followed by the end-of-stream message,
     * inside the caller's transaction (enqueue in the caller's transaction: a pooled dialog cannot be
     * lent to a transaction whose end the backend does not see, because SEND locks the conversation
     * until then). The target ends the dialog after receiving end-of-stream; the sweeper ends the
     * initiator side on the EndDialog that follows. The dialog has the longest LIFETIME, so a long
     * consumer outage cannot end it with its message. Nothing is sent fire-and-forget. No {@code SET}
     * options are changed. Its first statement reads the queue registry, which opens the caller's
     * implicit transaction if nothing has yet (SEND and BEGIN DIALOG would not), and it fails (51000)
     * rather than send outside a transaction. Parameter: rest of the envelope (version 1). One row:
     * message_id.
     */
    public String sendOnOwnDialog(QueueName q) {
        return "DECLARE @rest varbinary(max) = ?, @h uniqueidentifier, @id bigint, @reg int;"
                + " SELECT @reg = 1 FROM " + n.queuesTable() + " WHERE queue_name = " + literal(q.value()) + ";"
                + " " + requireTransaction() + " "
                + beginDialog(q, LONGEST_LIFETIME_SECONDS) + ";"
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " SELECT @id AS message_id;";
    }

    /**
     * A message left the queue for good (acked, dead-lettered, purged, or consumed and sent again,
     * which records it again); a no-op for a message without a group. Parameters: queue name, message id.
     */
    public String groupSettled() {
        return "DELETE FROM " + n.groupPendingTable() + " WHERE queue_name = ? AND message_id = ?";
    }

    /**
     * Retires group dialogs that have nothing pending and are idle or old: sends end-of-stream on each
     * and deletes its row, inside the caller's transaction. Group rows a sender holds are skipped
     * ({@code READPAST}); the pending check reads without {@code READPAST} but with {@code NOWAIT}, so a
     * consumer's uncommitted settlement is never skipped: it raises error 1222 at once, which ends the
     * round early (what was retired so far stays; the next sweep tries again). No {@code SET} option is
     * changed. Because nothing of the old dialog is queued or in
     * a consumer's hands, the group's next dialog cannot overtake it. Parameters: queue name, idle time
     * in ms (0..2147483647), maximum age in s, how many at most. One row: retired.
     */
    public String retireIdleGroups(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @idle int = ?, @age int = ?, @max int = ?, @g nvarchar(128),"
                + " @h uniqueidentifier, @n int = 0;"
                + " BEGIN TRY WHILE @n < @max BEGIN SET @h = NULL;"
                + " SELECT TOP (1) @g = gr.group_key, @h = gr.conversation_handle FROM " + n.groupsTable()
                + " AS gr WITH (UPDLOCK, ROWLOCK, READPAST) WHERE gr.queue_name = @queue"
                + " AND (gr.last_send_at < DATEADD(millisecond, -@idle, SYSUTCDATETIME())"
                + " OR gr.created_at < DATEADD(second, -@age, SYSUTCDATETIME()))"
                + " AND NOT EXISTS (SELECT 1 FROM " + n.groupPendingTable() + " AS p WITH (READCOMMITTEDLOCK, NOWAIT)"
                + " WHERE p.queue_name = gr.queue_name AND p.group_key = gr.group_key);"
                + " IF @h IS NULL BREAK;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " DELETE FROM " + n.groupsTable() + " WHERE queue_name = @queue AND group_key = @g;"
                + " SET @n += 1; END; END TRY"
                + " BEGIN CATCH IF ERROR_NUMBER() <> 1222 THROW; END CATCH;"
                + " SELECT @n AS retired;";
    }

    /** One row: now_ms, the database clock in ms since 1970. */
    public String clockMillis() {
        return "SELECT DATEDIFF_BIG(millisecond, " + EPOCH + ", SYSUTCDATETIME()) AS now_ms";
    }

    /**
     * Receives the messages left on a conversation that ended with an Error, inside the caller's open
     * transaction, so they can be dead-lettered before END CONVERSATION removes them. Parameter: the
     * conversation handle. Columns: message_type_name, message_body.
     */
    public String receiveRest(QueueName q) {
        return "RECEIVE message_type_name, message_body FROM " + n.qualified(n.queue(q)) + " WHERE conversation_handle = ?";
    }

    /**
     * The data messages of an initiator conversation still waiting in {@code sys.transmission_queue}
     * (for example while the target queue is disabled). When the conversation errors, END CONVERSATION
     * drops them ("END CONVERSATION (Transact-SQL)", Remarks), so the sweeper reads them first and
     * dead-letters them (L2). Parameter: the conversation handle. Column: message_body.
     */
    public String inTransitOf(QueueName q) {
        return "SELECT message_body FROM sys.transmission_queue WHERE conversation_handle = ? AND message_type_name = "
                + literal(n.messageType(q));
    }

    /** Sends a complete envelope again (same id). Parameters: conversation handle, body. */
    public String resend(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?, @body varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE "
                + quote(n.messageType(q)) + " (@body);";
    }

    // ---- receive ---------------------------------------------------------------------------------------

    /**
     * Waits up to the time-out for messages of one conversation group and removes them inside the
     * caller's open transaction. Parameters: how many (TOP), time-out in ms. Columns are returned as
     * stored; nothing is cast.
     */
    public String receive(QueueName q) {
        return "WAITFOR (RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number,"
                + " message_type_name, message_body FROM " + n.qualified(n.queue(q)) + "), TIMEOUT ?";
    }

    /**
     * Receives more messages of a conversation group the open transaction already holds (it received
     * from it), without waiting. Parameters: how many (TOP), conversation group id. Columns as
     * {@link #receive}. Used to fill a batch claim from a pooled dialog; never for a message group's
     * dialog, whose messages are claimed one at a time.
     */
    public String receiveMore(QueueName q) {
        return "RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number,"
                + " message_type_name, message_body FROM " + n.qualified(n.queue(q)) + " WHERE conversation_group_id = ?";
    }

    /** Receives from the initiator queue without waiting (EndDialog, Error, DialogTimer). Parameter: TOP. */
    public String receiveInitiator(QueueName q) {
        return "RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM "
                + n.qualified(n.initiatorQueue(q));
    }

    /** Purge: receives without waiting. Parameter: TOP. The body tells a grouped message's id. */
    public String receiveForPurge(QueueName q) {
        return "RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM " + n.qualified(n.queue(q));
    }

    /** Ends our side of a conversation (never WITH CLEANUP). Parameter: conversation handle. */
    public String endConversation() {
        return "DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;";
    }

    /** Removes an ended dialog from the pool or from its message group. Parameter: conversation handle. */
    public String forgetDialog() {
        return "DECLARE @h uniqueidentifier = ?; DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @h;"
                + " DELETE FROM " + n.groupsTable() + " WHERE conversation_handle = @h;";
    }

    // ---- attempts and dead letters --------------------------------------------------------------------

    /** Parameters: queue name, then {@code count} message ids. Result: message_id, attempts. */
    public String attemptsOf(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1");
        }
        return "SELECT message_id, attempts FROM " + n.attemptsTable() + " WITH (READCOMMITTEDLOCK) WHERE queue_name = ?"
                + " AND message_id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
    }

    /**
     * Ends a claim that acked and dead-lettered nothing, inside its open transaction: rolls back to the
     * savepoint taken before its RECEIVE ({@code sqlq_receive}), which returns the messages to the queue
     * in place, then raises the attempt count of each nacked message, in one batch. The nacks are first
     * kept in a table variable, which a rollback does not touch. Rolling back to a savepoint releases
     * the locks taken after it (Transact-SQL reference, ROLLBACK TRANSACTION), so another consumer may
     * receive a message as soon as the rollback ran, and read its count ({@link #attemptsOf}) before this
     * batch's raise: for a first nack there is no row yet to wait on. The count can then be one low, and
     * {@code broker.maxAttempts} exceeded by one delivery (review m1: the limit is approximate by one;
     * raising the count first on a second connection would cost a connection per nack while every
     * consumer already holds one). Parameters: queue name, then message id and last error per nack. The
     * caller commits.
     *
     * @param nacks how many nacked messages (0 for a claim that only released)
     */
    public String releaseClaim(int nacks) {
        if (nacks < 0 || nacks > 1000) {
            throw new IllegalArgumentException("nacks must be 0..1000");
        }
        String rollback = "ROLLBACK TRANSACTION [" + BrokerReceiver.SAVEPOINT + "];";
        if (nacks == 0) {
            return "DECLARE @q nvarchar(48) = ?; " + rollback;
        }
        return "DECLARE @q nvarchar(48) = ?; DECLARE @n TABLE (message_id bigint NOT NULL PRIMARY KEY, last_error nvarchar(4000) NULL);"
                + " INSERT INTO @n (message_id, last_error) VALUES " + String.join(", ", Collections.nCopies(nacks, "(?, ?)")) + "; "
                + rollback
                + " UPDATE a SET attempts = a.attempts + 1, last_error = x.last_error, updated_at = SYSUTCDATETIME() FROM "
                + n.attemptsTable() + " AS a JOIN @n AS x ON a.queue_name = @q AND a.message_id = x.message_id;"
                + " INSERT INTO " + n.attemptsTable() + " (queue_name, message_id, attempts, last_error)"
                + " SELECT @q, x.message_id, 1, x.last_error FROM @n AS x WHERE NOT EXISTS (SELECT 1 FROM " + n.attemptsTable()
                + " AS a WHERE a.queue_name = @q AND a.message_id = x.message_id);";
    }

    /**
     * Fails (error 51000) unless the connection's transaction is still open and committable: a claim
     * whose transaction the server ended (deadlock victim, killed session) must not commit what its
     * settlements would run in a fresh implicit transaction.
     */
    public String requireOpenTransaction() {
        return "IF XACT_STATE() <> 1 THROW 51000, N'sqlqueue: the claim''s transaction is no longer open', 1;";
    }

    /** Raises a message's attempt count. Parameters: queue name, message id, last error. */
    public String raiseAttempts() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @err nvarchar(4000) = ?;"
                + " UPDATE " + n.attemptsTable() + " SET attempts = attempts + 1, last_error = @err,"
                + " updated_at = SYSUTCDATETIME() WHERE queue_name = @q AND message_id = @id;"
                + " IF @@ROWCOUNT = 0 INSERT INTO " + n.attemptsTable()
                + " (queue_name, message_id, attempts, last_error) VALUES (@q, @id, 1, @err);";
    }

    /** Parameters: queue name, message id. */
    public String clearAttempts() {
        return "DELETE FROM " + n.attemptsTable() + " WHERE queue_name = ? AND message_id = ?";
    }

    /**
     * Parameters: queue name, message id, payload, headers text, attempts, reason, enqueue time in ms
     * since 1970 (database clock, from the envelope) or null when unknown, message group or null.
     */
    public String insertDeadLetter() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @p varbinary(max) = ?, @hd nvarchar(max) = ?,"
                + " @a int = ?, @r nvarchar(4000) = ?, @ms bigint = ?, @g nvarchar(128) = ?; INSERT INTO " + n.deadTable()
                + " (queue_name, message_id, payload, headers, attempts, reason, enqueued_at, group_key) VALUES (@q, @id, @p, @hd, @a, @r, "
                + fromMillis("@ms") + ", @g);";
    }

    /** A datetime2(3) from ms since 1970 (DATEADD takes an int, so days and the rest are added apart). */
    private static String fromMillis(String variable) {
        return "DATEADD(millisecond, CAST(" + variable + " % 86400000 AS int), DATEADD(day, CAST(" + variable
                + " / 86400000 AS int), " + EPOCH + "))";
    }

    /** Parameters: limit, queue name. Oldest first. */
    public String listDeadLetters() {
        return "SELECT TOP (?) dead_id, message_id, payload, headers, attempts, reason,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", dead_at) AS dead_ms, group_key FROM " + n.deadTable()
                + " WHERE queue_name = ? ORDER BY dead_id";
    }

    // ---- history -------------------------------------------------------------------------------------

    /**
     * Records a processed message in the claim's transaction; finished_at is the database clock at
     * insert. Parameters: queue name, message id, enqueue time (ms since 1970), receive time (ms since
     * 1970, from the RECEIVE), attempts, outcome ({@code acked} or {@code dead-lettered}), detail or null.
     */
    public String insertHistory() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @e bigint = ?, @s bigint = ?, @a int = ?, @o nvarchar(16) = ?,"
                + " @d nvarchar(4000) = ?; INSERT INTO " + n.historyTable()
                + " (queue_name, message_id, enqueued_at, started_at, attempts, outcome, detail) VALUES (@q, @id, "
                + fromMillis("@e") + ", " + fromMillis("@s") + ", @a, @o, @d);";
    }

    /**
     * Parameters: limit, queue name. Newest first. Columns: message_id, enqueued_ms, started_ms,
     * finished_ms, duration_ms, attempts, outcome, detail.
     */
    public String listHistory() {
        return "SELECT TOP (?) message_id, DATEDIFF_BIG(millisecond, " + EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", started_at) AS started_ms,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", finished_at) AS finished_ms, duration_ms, attempts, outcome, detail"
                + " FROM " + n.historyTable() + " WHERE queue_name = ? ORDER BY history_id DESC";
    }

    /**
     * The age prune's cutoff, read once per prune (re-review N3): the database clock minus the age, in ms
     * since 1970. Parameters: minus the age's whole seconds, minus its millisecond part (DATEADD takes an int
     * each). One row: cutoff_ms.
     */
    public String historyAgeCutoff() {
        return "SELECT DATEDIFF_BIG(millisecond, " + EPOCH + ", DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME())))"
                + " AS cutoff_ms";
    }

    /**
     * One batch of the age prune: at most {@code n} rows of the queue that finished at or before the cutoff,
     * through {@code ix_finished}, with row locks (500 stays far below the 5,000 locks at which SQL Server
     * tries to escalate: "Lock escalation"). Parameters: batch size, queue name, cutoff in ms since 1970.
     */
    public String pruneHistoryBefore() {
        return "DECLARE @n int = ?, @q nvarchar(48) = ?, @c bigint = ?; DELETE TOP (@n) FROM " + n.historyTable()
                + " WITH (ROWLOCK) WHERE queue_name = @q AND finished_at <= " + fromMillis("@c") + ";";
    }

    /**
     * The rows prune's cutoff, read once per prune: the smallest history_id of the queue's {@code maxRows}
     * newest rows (NULL when the queue has none). Parameters: rows kept (at least 1), queue name. One row:
     * keep_from.
     */
    public String historyRowsCutoff() {
        return "SELECT MIN(k.history_id) AS keep_from FROM (SELECT TOP (?) history_id FROM " + n.historyTable()
                + " WHERE queue_name = ? ORDER BY history_id DESC) AS k";
    }

    /**
     * One batch of the rows prune: at most {@code n} rows of the queue older than the cutoff, through
     * {@code ix_queue}. Parameters: batch size, queue name, the first history_id kept.
     */
    public String pruneHistoryRowsBelow() {
        return "DECLARE @n int = ?, @q nvarchar(48) = ?, @keep bigint = ?; DELETE TOP (@n) FROM " + n.historyTable()
                + " WITH (ROWLOCK) WHERE queue_name = @q AND history_id < @keep;";
    }

    private String deadLetterColumns() {
        return "dead_id, message_id, payload, headers, attempts, reason,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + EPOCH + ", dead_at) AS dead_ms, group_key";
    }

    /**
     * Requeue of given ids (N12): the queue's dead letters with these message ids, U-locked until the requeue
     * commits so a second requeue waits and then finds them gone. Parameters: queue name, then {@code count}
     * message ids (1..500). Columns as {@link #listDeadLetters}.
     */
    public String deadLettersByIds(int count) {
        if (count < 1 || count > 500) {
            throw new IllegalArgumentException("count must be 1..500");
        }
        return "SELECT " + deadLetterColumns() + " FROM " + n.deadTable() + " WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ?"
                + " AND message_id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ") ORDER BY dead_id";
    }

    /** One row: last_id, the queue's highest dead_id now (NULL when it has none): a requeue of all stops there. Parameter: queue name. */
    public String lastDeadId() {
        return "SELECT MAX(dead_id) AS last_id FROM " + n.deadTable() + " WHERE queue_name = ?";
    }

    /**
     * Requeue of all (N12): the next page of the queue's dead letters, oldest first, U-locked as
     * {@link #deadLettersByIds}. Parameters: page size, queue name, the last dead_id of the previous page (0
     * for the first), the last dead_id to take. Columns as {@link #listDeadLetters}.
     */
    public String deadLetterPage() {
        return "SELECT TOP (?) " + deadLetterColumns() + " FROM " + n.deadTable() + " WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ?"
                + " AND dead_id > ? AND dead_id <= ? ORDER BY dead_id";
    }

    /** Parameter: dead_id. */
    public String deleteDeadLetter() {
        return "DELETE FROM " + n.deadTable() + " WHERE dead_id = ?";
    }

    /** Parameter: queue name. */
    public String purgeDeadLetters() {
        return "DELETE FROM " + n.deadTable() + " WHERE queue_name = ?";
    }

    // ---- statistics --------------------------------------------------------------------------------

    /**
     * One row: queue_rows (rows of the queue's internal table from sys.partitions: every message,
     * system messages included), dead, oldest_ms (age of the oldest data message by the queue's
     * message_enqueue_time), transmission (rows of sys.transmission_queue for the target service),
     * processed (history rows), ready (data messages on the queue and not received by an open
     * transaction: a {@code NOLOCK} count, which reads the uncommitted deletes of RECEIVE; it scans the
     * queue, so it costs in proportion to its depth; plus data messages still in
     * {@code sys.transmission_queue} on their way to it). oldest_ms covers both places
     * ({@code sys.transmission_queue.enqueue_time} is UTC). Parameters: queue name, twice.
     */
    public String stats(QueueName q) {
        return "SELECT (SELECT COALESCE(SUM(p.rows), 0) FROM sys.internal_tables AS it JOIN sys.partitions AS p"
                + " ON p.object_id = it.object_id AND p.index_id = 1 WHERE it.parent_object_id = OBJECT_ID("
                + literal(n.qualified(n.queue(q))) + ")) AS queue_rows,"
                + " (SELECT COUNT_BIG(*) FROM " + n.deadTable() + " WHERE queue_name = ?) AS dead,"
                + " (SELECT MAX(a) FROM (VALUES"
                + " ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(message_enqueue_time), SYSDATETIMEOFFSET()), 0) FROM "
                + n.qualified(n.queue(q)) + " WITH (NOLOCK) WHERE message_type_name = " + literal(n.messageType(q)) + ")),"
                + " ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(enqueue_time), SYSUTCDATETIME()), 0) FROM sys.transmission_queue"
                + " WHERE " + inTransit(q) + "))) AS v(a)) AS oldest_ms,"
                + " (SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE to_service_name = " + literal(n.service(q))
                + ") AS transmission,"
                + " (SELECT COUNT_BIG(*) FROM " + n.historyTable() + " WHERE queue_name = ?) AS processed,"
                + " (SELECT COUNT_BIG(*) FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK) WHERE message_type_name = "
                + literal(n.messageType(q)) + ")"
                + " + (SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE " + inTransit(q) + ") AS ready";
    }

    /**
     * The data messages of a queue still in {@code sys.transmission_queue}: a local SEND that cannot
     * reach the target queue at once (its conversation locked by a consumer, the queue disabled) waits
     * there, and is on its way to the queue (L3).
     */
    private String inTransit(QueueName q) {
        return "to_service_name = " + literal(n.service(q)) + " AND message_type_name = " + literal(n.messageType(q));
    }

    /** Rows: state_desc, conversations; both sides of the queue's dialogs. */
    public String conversationsByState(QueueName q) {
        return "SELECT ce.state_desc, COUNT_BIG(*) AS conversations FROM sys.conversation_endpoints AS ce"
                + " JOIN sys.services AS s ON s.service_id = ce.service_id WHERE s.name IN ("
                + literal(n.service(q)) + ", " + literal(n.initiatorService(q)) + ") GROUP BY ce.state_desc";
    }

    /**
     * Rows: wait_type, waiting_tasks_count, wait_time_ms for PAGELATCH_EX and PAGELATCH_SH, server-wide
     * since the last restart or clear (needs VIEW SERVER STATE). The send benchmark prints the change.
     */
    public static String pageLatchWaits() {
        return "SELECT wait_type, waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats"
                + " WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH') ORDER BY wait_type";
    }

    /** One row: is_receive_enabled, is_enqueue_enabled of the target queue. */
    public String queueStatus(QueueName q) {
        return "SELECT is_receive_enabled, is_enqueue_enabled FROM sys.service_queues WHERE object_id = OBJECT_ID("
                + literal(n.qualified(n.queue(q))) + ")";
    }

    // ---- probes (sqlqueue probe --backend sqlserver-broker): experiments under a probe prefix ---------

    /** Begins a dialog to the queue's service. One row: conversation_handle. */
    public String probeBeginDialog(QueueName q, int lifetimeSeconds) {
        return "DECLARE @h uniqueidentifier; " + beginDialog(q, lifetimeSeconds) + "; SELECT @h AS conversation_handle;";
    }

    /** Sends one data message. Parameters: conversation handle, body. */
    public String probeSend(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?, @b varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE "
                + quote(n.messageType(q)) + " (@b);";
    }

    /** Receives with a wait. Parameters: TOP, time-out in ms. Columns: conversation_handle, queuing_order, message_type_name. */
    public String probeReceive(QueueName q) {
        return "WAITFOR (RECEIVE TOP (?) conversation_handle, queuing_order, message_type_name FROM " + n.qualified(n.queue(q))
                + "), TIMEOUT ?";
    }

    /** One row: messages on the queue and the lowest queuing_order (a NOLOCK read). */
    public String probeQueueCount(QueueName q) {
        return "SELECT COUNT_BIG(*) AS messages, MIN(queuing_order) AS first_order FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK)";
    }

    /** Turns the queue's poison message handling on, so rollbacks that count toward it show. */
    public String probePoisonHandlingOn(QueueName q) {
        return "ALTER QUEUE " + n.qualified(n.queue(q)) + " WITH POISON_MESSAGE_HANDLING (STATUS = ON)";
    }

    /** One row: trancount. */
    public static String probeTranCount() {
        return "SELECT @@TRANCOUNT AS trancount";
    }

    /** Asks for a transaction-owned application lock without waiting; one row: result. */
    public String probeApplock() {
        return "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = " + literal(n.prefix() + "probe")
                + ", @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = 0; SELECT @r AS result;";
    }

    /** Ends a conversation. Parameter: conversation handle. */
    public String probeEnd() {
        return endConversation();
    }

    /** One row: data messages of the queue's service in sys.transmission_queue. */
    public String probeInTransit(QueueName q) {
        return "SELECT COUNT_BIG(*) AS in_transit FROM sys.transmission_queue WHERE " + inTransit(q);
    }

    /** Makes a lock wait fail after 5 s on this session (a plain batch: it stays for the session). */
    public static String probeLockTimeout() {
        return "SET LOCK_TIMEOUT 5000";
    }

    /** One row: target_endpoints, the target-side conversation endpoints of the probe queue's dialogs. */
    public String probeTargetEndpoints(QueueName q) {
        return "SELECT COUNT_BIG(*) AS target_endpoints FROM sys.conversation_endpoints WHERE far_service = "
                + literal(n.initiatorService(q));
    }

    /** One row: base_type of message_enqueue_time, its age in ms by SYSDATETIMEOFFSET(), server offset in minutes. */
    public String probeEnqueueTimeType(QueueName q) {
        return "SELECT TOP (1) CAST(SQL_VARIANT_PROPERTY(CAST(message_enqueue_time AS sql_variant), 'BaseType') AS nvarchar(128))"
                + " AS base_type, DATEDIFF_BIG(millisecond, message_enqueue_time, SYSDATETIMEOFFSET()) AS age_ms,"
                + " DATEPART(TZOFFSET, SYSDATETIMEOFFSET()) AS offset_minutes FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK)";
    }

    /** Receives every remaining message without waiting. Columns: conversation_handle, message_type_name. */
    public String probeReceiveAll(QueueName q) {
        return "RECEIVE conversation_handle, message_type_name FROM " + n.qualified(n.queue(q));
    }

    /**
     * One row: db_owner membership of the login running the probe, and its SEND, RECEIVE, REFERENCES
     * and VIEW DEFINITION permissions on the queue's objects (1 granted, 0 not).
     */
    public String probePermissions(QueueName q) {
        return "SELECT IS_ROLEMEMBER(N'db_owner') AS db_owner,"
                + " HAS_PERMS_BY_NAME(" + literal(n.service(q)) + ", N'SERVICE', N'SEND') AS send_target,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.queue(q))) + ", N'OBJECT', N'RECEIVE') AS receive_target,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.initiatorQueue(q))) + ", N'OBJECT', N'RECEIVE') AS receive_initiator,"
                + " HAS_PERMS_BY_NAME(" + literal(n.contract(q)) + ", N'CONTRACT', N'REFERENCES') AS references_contract,"
                + " HAS_PERMS_BY_NAME(" + literal(n.qualified(n.queue(q))) + ", N'OBJECT', N'VIEW DEFINITION') AS view_definition";
    }

    /** Ends every conversation of the probe queue's services WITH CLEANUP (probe clean-up only; never in operation). */
    public String probeCleanup(QueueName q) {
        return "DECLARE @h uniqueidentifier; WHILE 1 = 1 BEGIN SET @h = NULL; SELECT TOP (1) @h = conversation_handle"
                + " FROM sys.conversation_endpoints WHERE far_service IN (" + literal(n.service(q)) + ", "
                + literal(n.initiatorService(q)) + "); IF @h IS NULL BREAK; END CONVERSATION @h WITH CLEANUP; END;";
    }
}
