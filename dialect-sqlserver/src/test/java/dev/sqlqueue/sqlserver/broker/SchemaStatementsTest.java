package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link SchemaStatements} (per-prefix tables) for prefix
 * {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what was reviewed
 * against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class SchemaStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textCreateQueuesTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_queues', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_queues] (queue_name nv"
                + "archar(48) NOT NULL PRIMARY KEY, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())",
                s.schema().createQueuesTable());
    }

    @Test
    void textCreateDialogsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_dialogs', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_dialogs] (conversatio"
                + "n_handle uniqueidentifier NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, fill_id bigint NOT"
                + " NULL, is_spacer bit NOT NULL, owner_id uniqueidentifier NULL, created_at datetime2(3) NOT NULL DEFA"
                + "ULT SYSUTCDATETIME())",
                s.schema().createDialogsTable());
    }

    @Test
    void textCreateAttemptsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_attempts', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_attempts] (queue_nam"
                + "e nvarchar(48) NOT NULL, message_id bigint NOT NULL, attempts int NOT NULL, last_error nvarchar(4000"
                + ") NULL, updated_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, message_"
                + "id))",
                s.schema().createAttemptsTable());
    }

    @Test
    void textCreateDeadTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_dead', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_dead] (dead_id bigint ID"
                + "ENTITY(1,1) NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, payl"
                + "oad varbinary(max) NOT NULL, headers nvarchar(max) NOT NULL, attempts int NOT NULL, reason nvarchar("
                + "4000) NOT NULL, enqueued_at datetime2(3) NULL, dead_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME("
                + "), group_key nvarchar(128) NULL)",
                s.schema().createDeadTable());
    }

    @Test
    void textCreateIdSequence() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_ids', N'SO') IS NULL CREATE SEQUENCE [dbo].[sqlq_bk_ids] AS bigint START "
                + "WITH 1 INCREMENT BY 1 CACHE 100",
                s.schema().createIdSequence());
    }

    @Test
    void textSpacerCleanUp() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_fills', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_fills] (queue_name nvarchar(48)"
                + " NOT NULL, fill_id bigint NOT NULL, completed_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY"
                + " (queue_name, fill_id))", s.schema().createFillsTable());
        assertEquals("SELECT TOP (?) f.fill_id FROM [dbo].[sqlq_bk_fills] AS f WHERE f.queue_name = ? AND NOT EXISTS (SELECT 1"
                + " FROM [dbo].[sqlq_bk_dialogs] AS d WHERE d.fill_id = f.fill_id AND d.is_spacer = 0)", s.dialogs().deadFills());
        assertEquals("DECLARE @max int = ?, @queue nvarchar(48) = ?, @fill bigint = ?, @s uniqueidentifier, @n int = 0; DECLARE"
                + " @batch TABLE (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY); INSERT INTO @batch (conversation_handle)"
                + " SELECT TOP (@max) conversation_handle FROM [dbo].[sqlq_bk_dialogs] WITH (UPDLOCK, ROWLOCK, READPAST) WHERE fill_id"
                + " = @fill AND is_spacer = 1; WHILE 1 = 1 BEGIN SET @s = NULL; SELECT TOP (1) @s = conversation_handle FROM @batch;"
                + " IF @s IS NULL BREAK; END CONVERSATION @s; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @s;"
                + " DELETE FROM @batch WHERE conversation_handle = @s; SET @n += 1; END; IF @n < @max AND NOT EXISTS (SELECT 1 FROM"
                + " [dbo].[sqlq_bk_dialogs] WHERE fill_id = @fill) DELETE FROM [dbo].[sqlq_bk_fills] WHERE queue_name = @queue AND"
                + " fill_id = @fill; SELECT @n AS ended;", s.dialogs().endFillSpacers());
    }

    @Test
    void textCreateDialogsFillIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_dialogs') AND nam"
                + "e = N'ix_fill') CREATE INDEX [ix_fill] ON [dbo].[sqlq_bk_dialogs] (fill_id, is_spacer)",
                s.schema().createDialogsFillIndex());
    }

    @Test
    void textDeduplicationKeys() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_keys', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_keys] (queue_name nvarchar(48)"
                + " COLLATE Latin1_General_100_BIN2 NOT NULL, dedupe_key nvarchar(129) COLLATE Latin1_General_100_BIN2 NOT NULL,"
                + " message_id bigint NOT NULL, expires_at datetime2(7) NOT NULL, PRIMARY KEY (queue_name, dedupe_key))",
                s.schema().createKeysTable());
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_keys') AND name ="
                + " N'ix_expiry') CREATE INDEX [ix_expiry] ON [dbo].[sqlq_bk_keys] (expires_at)", s.schema().createKeysExpiryIndex());
        assertEquals("DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @s int = ?, @ms int = ?, @id bigint; DELETE FROM"
                + " [dbo].[sqlq_bk_keys] WITH (ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k AND expires_at <= SYSUTCDATETIME();"
                + " SELECT @id = message_id FROM [dbo].[sqlq_bk_keys] WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k;"
                + " IF @id IS NULL BEGIN BEGIN TRY INSERT INTO [dbo].[sqlq_bk_keys] (queue_name, dedupe_key, message_id, expires_at)"
                + " VALUES (@q, @k, 0, DATEADD(second, @s, DATEADD(millisecond, @ms, SYSUTCDATETIME()))); END TRY BEGIN CATCH"
                + " IF ERROR_NUMBER() NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW; SELECT @id = message_id FROM [dbo].[sqlq_bk_keys]"
                + " WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k; END CATCH END; SELECT @id AS message_id;",
                s.sending().takeKey());
        assertEquals("UPDATE [dbo].[sqlq_bk_keys] SET message_id = ? WHERE queue_name = ? AND dedupe_key = ?", s.sending().recordKey());
        assertEquals("DELETE TOP (?) FROM [dbo].[sqlq_bk_keys] WITH (ROWLOCK, READPAST) WHERE expires_at <= SYSUTCDATETIME()",
                s.dialogs().deleteExpiredKeys());
        assertEquals("DELETE FROM [dbo].[sqlq_bk_keys] WHERE queue_name = ?", s.admin().purgeKeys());
    }

    @Test
    void textDropPrefixObjects() {
        assertEquals(List.of("DROP TABLE IF EXISTS [dbo].[sqlq_bk_keys]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_dialogs]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_fills]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_groups]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_group_pending]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_attempts]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_dead]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_history]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_queues]",
                "DROP SEQUENCE IF EXISTS [dbo].[sqlq_bk_ids]"), s.schema().dropPrefixObjects());
    }

    @Test
    void textCreateGroupsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_groups', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_groups] (queue_name nv"
                + "archar(48) NOT NULL, group_key nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL, conversation_"
                + "handle uniqueidentifier NOT NULL, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), last_se"
                + "nd_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, group_key))",
                s.schema().createGroupsTable());
    }

    @Test
    void textCreateHistoryTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_history', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_history] (history_id "
                + "bigint IDENTITY(1,1) NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, message_id bigint NOT N"
                + "ULL, enqueued_at datetime2(3) NULL, started_at datetime2(3) NOT NULL, finished_at datetime2(3) NOT N"
                + "ULL DEFAULT SYSUTCDATETIME(), duration_ms AS DATEDIFF_BIG(millisecond, started_at, finished_at), att"
                + "empts int NOT NULL, outcome nvarchar(16) NOT NULL, detail nvarchar(4000) NULL)",
                s.schema().createHistoryTable());
    }

    @Test
    void textCreateHistoryIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_history') AND nam"
                + "e = N'ix_queue') CREATE INDEX [ix_queue] ON [dbo].[sqlq_bk_history] (queue_name, history_id)",
                s.schema().createHistoryIndex());
    }

    @Test
    void textCreateGroupsHandleIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_groups') AND name"
                + " = N'ux_handle') CREATE UNIQUE INDEX [ux_handle] ON [dbo].[sqlq_bk_groups] (conversation_handle)",
                s.schema().createGroupsHandleIndex());
    }

    @Test
    void textCreateGroupPendingTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_group_pending', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_group_pending] "
                + "(queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, group_key nvarchar(128) COLLATE Latin"
                + "1_General_100_BIN2 NOT NULL, PRIMARY KEY (queue_name, message_id))",
                s.schema().createGroupPendingTable());
    }

    @Test
    void textCreateGroupPendingIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_group_pending') A"
                + "ND name = N'ix_group') CREATE INDEX [ix_group] ON [dbo].[sqlq_bk_group_pending] (queue_name, group_k"
                + "ey)",
                s.schema().createGroupPendingIndex());
    }
}
