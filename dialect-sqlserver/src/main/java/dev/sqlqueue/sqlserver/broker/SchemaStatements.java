package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;

/**
 * The per-prefix tables, their indexes and the id sequence, each created only when missing
 * (provisioning is idempotent), and their removal by {@code dropSchema}.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class SchemaStatements {
    private final BrokerNames n;

    SchemaStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Creates the table of the prefix's queues unless it exists.
     *
     * @return the T-SQL text
     */
    public String createQueuesTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("queues")) + ", N'U') IS NULL CREATE TABLE "
                + n.queuesTable() + " (queue_name nvarchar(48) NOT NULL PRIMARY KEY,"
                + " created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())";
    }

    /**
     * Creates the table of the dialog pool unless it exists.
     *
     * @return the T-SQL text
     */
    public String createDialogsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("dialogs")) + ", N'U') IS NULL CREATE TABLE "
                + n.dialogsTable() + " (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY,"
                + " queue_name nvarchar(48) NOT NULL, fill_id bigint NOT NULL, is_spacer bit NOT NULL,"
                + " owner_id uniqueidentifier NULL, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())";
    }

    /**
     * Creates the table of attempt counts unless it exists.
     *
     * @return the T-SQL text
     */
    public String createAttemptsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("attempts")) + ", N'U') IS NULL CREATE TABLE "
                + n.attemptsTable() + " (queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL,"
                + " attempts int NOT NULL, last_error nvarchar(4000) NULL,"
                + " updated_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, message_id))";
    }

    /**
     * Creates the table of dead letters unless it exists.
     *
     * @return the T-SQL text
     */
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

    /**
     * Message groups: the dialog each group travels on.
     *
     * @return the T-SQL text
     */
    public String createGroupsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("groups")) + ", N'U') IS NULL CREATE TABLE "
                + n.groupsTable() + " (queue_name nvarchar(48) NOT NULL, group_key nvarchar(128) " + GROUP_COLLATION + " NOT NULL,"
                + " conversation_handle uniqueidentifier NOT NULL,"
                + " created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),"
                + " last_send_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, group_key))";
    }

    /**
     * EndDialog and Error find a group's row by its handle ({@link DialogStatements#forgetDialog}).
     *
     * @return the T-SQL text
     */
    public String createGroupsHandleIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("groups"))
                + ") AND name = N'ux_handle') CREATE UNIQUE INDEX [ux_handle] ON " + n.groupsTable() + " (conversation_handle)";
    }

    /**
     * One row per message of a group that was sent and has not left the queue (acked, dead-lettered,
     * purged, or consumed and sent again). A group's dialog is retired only when it has no row here
     * ({@link DialogStatements#retireIdleGroups}), so a new dialog never overtakes an old one. Rows are inserted by
     * senders and deleted by consumers by message id: idempotent, and consumers never touch the group's
     * row that senders lock.
     *
     * @return the T-SQL text
     */
    public String createGroupPendingTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("group_pending")) + ", N'U') IS NULL CREATE TABLE "
                + n.groupPendingTable() + " (queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL,"
                + " group_key nvarchar(128) " + GROUP_COLLATION + " NOT NULL, PRIMARY KEY (queue_name, message_id))";
    }

    /**
     * The retire check looks pending messages up by group.
     *
     * @return the T-SQL text
     */
    public String createGroupPendingIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("group_pending"))
                + ") AND name = N'ix_group') CREATE INDEX [ix_group] ON " + n.groupPendingTable() + " (queue_name, group_key)";
    }

    /**
     * Processed messages (seed 001): start, end and a duration computed by the database.
     *
     * @return the T-SQL text
     */
    public String createHistoryTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("history")) + ", N'U') IS NULL CREATE TABLE "
                + n.historyTable() + " (history_id bigint IDENTITY(1,1) NOT NULL PRIMARY KEY,"
                + " queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, enqueued_at datetime2(3) NULL,"
                + " started_at datetime2(3) NOT NULL, finished_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(),"
                + " duration_ms AS DATEDIFF_BIG(millisecond, started_at, finished_at), attempts int NOT NULL,"
                + " outcome nvarchar(16) NOT NULL, detail nvarchar(4000) NULL)";
    }

    /**
     * The history is read newest first per queue.
     *
     * @return the T-SQL text
     */
    public String createHistoryIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("history"))
                + ") AND name = N'ix_queue') CREATE INDEX [ix_queue] ON " + n.historyTable() + " (queue_name, history_id)";
    }

    /**
     * The age prune finds a queue's oldest rows by finish time ({@link DeadLetterStatements#pruneHistoryBefore}); idempotent (N3).
     *
     * @return the T-SQL text
     */
    public String createHistoryFinishedIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("history"))
                + ") AND name = N'ix_finished') CREATE INDEX [ix_finished] ON " + n.historyTable() + " (queue_name, finished_at)";
    }

    /**
     * Deduplication keys, written in the SEND's transaction. Queue and key compare by code point (BIN2);
     * the stored key is the key followed by {@code .}, because {@code =} ignores trailing spaces even
     * under BIN2, which would make {@code k} and {@code k } one key.
     *
     * @return the T-SQL text
     */
    public String createKeysTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("keys")) + ", N'U') IS NULL CREATE TABLE "
                + n.keysTable() + " (queue_name nvarchar(48) " + GROUP_COLLATION + " NOT NULL,"
                + " dedupe_key nvarchar(129) " + GROUP_COLLATION + " NOT NULL, message_id bigint NOT NULL,"
                + " expires_at datetime2(7) NOT NULL, PRIMARY KEY (queue_name, dedupe_key))";
    }

    /**
     * Creates the index on the deduplication keys' expiry unless it exists.
     *
     * @return the T-SQL text
     */
    public String createKeysExpiryIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("keys"))
                + ") AND name = N'ix_expiry') CREATE INDEX [ix_expiry] ON " + n.keysTable() + " (expires_at)";
    }

    /**
     * Creates the sequence of message and fill ids unless it exists.
     *
     * @return the T-SQL text
     */
    public String createIdSequence() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("ids")) + ", N'SO') IS NULL CREATE SEQUENCE "
                + n.idSequence() + " AS bigint START WITH 1 INCREMENT BY 1 CACHE 100";
    }

    /**
     * Spacer cleanup finds a fill's rows by fill ({@link DialogStatements#endFillSpacers}).
     *
     * @return the T-SQL text
     */
    public String createDialogsFillIndex() {
        return "IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(" + literal(n.unquotedTable("dialogs"))
                + ") AND name = N'ix_fill') CREATE INDEX [ix_fill] ON " + n.dialogsTable() + " (fill_id, is_spacer)";
    }

    /**
     * Fills whose every dialog was begun ({@link DialogStatements#fillDialogs}); the sweeper ends spacers of these only.
     *
     * @return the T-SQL text
     */
    public String createFillsTable() {
        return "IF OBJECT_ID(" + literal(n.unquotedTable("fills")) + ", N'U') IS NULL CREATE TABLE " + n.fillsTable()
                + " (queue_name nvarchar(48) NOT NULL, fill_id bigint NOT NULL,"
                + " completed_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, fill_id))";
    }

    /**
     * Drops the per-prefix tables and the id sequence (after every queue was dropped), in order.
     *
     * @return the T-SQL statements, in the order to run them
     */
    public java.util.List<String> dropPrefixObjects() {
        return java.util.List.of("DROP TABLE IF EXISTS " + n.keysTable(), "DROP TABLE IF EXISTS " + n.dialogsTable(),
                "DROP TABLE IF EXISTS " + n.fillsTable(),
                "DROP TABLE IF EXISTS " + n.groupsTable(),
                "DROP TABLE IF EXISTS " + n.groupPendingTable(),
                "DROP TABLE IF EXISTS " + n.attemptsTable(), "DROP TABLE IF EXISTS " + n.deadTable(),
                "DROP TABLE IF EXISTS " + n.historyTable(), "DROP TABLE IF EXISTS " + n.queuesTable(),
                "DROP SEQUENCE IF EXISTS " + n.idSequence());
    }
}
