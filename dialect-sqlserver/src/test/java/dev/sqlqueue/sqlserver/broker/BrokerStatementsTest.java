package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.QueueName;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of every statement of {@link BrokerStatements} for prefix {@code sqlq_} and queue
 * {@code jobs}. These tests show only that the text is what was reviewed against the SQL Server
 * documentation; none of it has been run against a SQL Server.
 */
class BrokerStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textBrokerEnabled() {
        assertEquals("SELECT DB_NAME() AS database_name, is_broker_enabled FROM sys.databases WHERE database_id = DB_ID()",
                s.brokerEnabled());
    }

    @Test
    void textServerVersion() {
        assertEquals("SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version, CAST(SERVERPROPERTY('Edit"
                + "ion') AS nvarchar(128)) AS edition",
                s.serverVersion());
    }

    @Test
    void textProvisioningLock() {
        assertEquals("SET NOCOUNT ON; IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: the provisioning lock needs an open tran"
                + "saction', 1; DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'sqlq_bk:provisioning', @LockM"
                + "ode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = ?; SELECT @r AS result;",
                s.provisioningLock());
    }

    @Test
    void textCreateQueuesTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_queues', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_queues] (queue_name nv"
                + "archar(48) NOT NULL PRIMARY KEY, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME())",
                s.createQueuesTable());
    }

    @Test
    void textCreateDialogsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_dialogs', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_dialogs] (conversatio"
                + "n_handle uniqueidentifier NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, fill_id bigint NOT"
                + " NULL, is_spacer bit NOT NULL, owner_id uniqueidentifier NULL, created_at datetime2(3) NOT NULL DEFA"
                + "ULT SYSUTCDATETIME())",
                s.createDialogsTable());
    }

    @Test
    void textCreateAttemptsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_attempts', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_attempts] (queue_nam"
                + "e nvarchar(48) NOT NULL, message_id bigint NOT NULL, attempts int NOT NULL, last_error nvarchar(4000"
                + ") NULL, updated_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, message_"
                + "id))",
                s.createAttemptsTable());
    }

    @Test
    void textCreateDeadTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_dead', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_dead] (dead_id bigint ID"
                + "ENTITY(1,1) NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, payl"
                + "oad varbinary(max) NOT NULL, headers nvarchar(max) NOT NULL, attempts int NOT NULL, reason nvarchar("
                + "4000) NOT NULL, enqueued_at datetime2(3) NULL, dead_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME("
                + "), group_key nvarchar(128) NULL)",
                s.createDeadTable());
    }

    @Test
    void textCreateIdSequence() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_ids', N'SO') IS NULL CREATE SEQUENCE [dbo].[sqlq_bk_ids] AS bigint START "
                + "WITH 1 INCREMENT BY 1 CACHE 100",
                s.createIdSequence());
    }

    @Test
    void textCreateMessageType() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:msg') CREATE MESS"
                + "AGE TYPE [sqlq_bk:jobs:msg] VALIDATION = NONE",
                s.createMessageType(q));
    }

    @Test
    void textCreateEndOfStreamType() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:eos') CREATE MESS"
                + "AGE TYPE [sqlq_bk:jobs:eos] VALIDATION = EMPTY",
                s.createEndOfStreamType(q));
    }

    @Test
    void textCreateContract() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = N'sqlq_bk:jobs:contract') CREATE CON"
                + "TRACT [sqlq_bk:jobs:contract] ([sqlq_bk:jobs:msg] SENT BY INITIATOR, [sqlq_bk:jobs:eos] SENT BY INIT"
                + "IATOR)",
                s.createContract(q));
    }

    @Test
    void textCreateQueue() {
        assertEquals("IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:queue]', N'SQ') IS NULL CREATE QUEUE [dbo].[sqlq_bk:jobs:queue] W"
                + "ITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)",
                s.createQueue(q));
    }

    @Test
    void textCreateInitiatorQueue() {
        assertEquals("IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:iqueue]', N'SQ') IS NULL CREATE QUEUE [dbo].[sqlq_bk:jobs:iqueue]"
                + " WITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)",
                s.createInitiatorQueue(q));
    }

    @Test
    void textCreateService() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:service') CREATE SERVICE [sqlq"
                + "_bk:jobs:service] ON QUEUE [dbo].[sqlq_bk:jobs:queue] ([sqlq_bk:jobs:contract])",
                s.createService(q));
    }

    @Test
    void textCreateInitiatorService() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:iservice') CREATE SERVICE [sql"
                + "q_bk:jobs:iservice] ON QUEUE [dbo].[sqlq_bk:jobs:iqueue]",
                s.createInitiatorService(q));
    }

    @Test
    void textRegisterQueue() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_bk_queues] WHERE queue_name = ?) INSERT INTO [dbo].[sqlq_bk"
                + "_queues] (queue_name) VALUES (?)",
                s.registerQueue());
    }

    @Test
    void textAttachActivation() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = [dbo].[run_tas"
                + "k], MAX_QUEUE_READERS = 5, EXECUTE AS OWNER)",
                s.attachActivation(q, "dbo.run_task", 5, "OWNER"));
    }

    @Test
    void textDeleteQueueRows() {
        assertEquals("DECLARE @q nvarchar(48) = ?; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE queue_name = @q; DELETE FROM "
                + "[dbo].[sqlq_bk_fills] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_groups] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_group_pending] WHERE queue_"
                + "name = @q; DELETE FROM [dbo].[sqlq_bk_attempts] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_de"
                + "ad] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_history] WHERE queue_name = @q; DELETE FROM [d"
                + "bo].[sqlq_bk_queues] WHERE queue_name = @q;",
                s.deleteQueueRows());
    }

    @Test
    void textListQueues() {
        assertEquals("SELECT queue_name FROM [dbo].[sqlq_bk_queues] ORDER BY queue_name",
                s.listQueues());
    }

    @Test
    void textFillDialogs() {
        assertEquals("SET NOCOUNT ON; DECLARE @want int = ?, @spread int = ?, @queue nvarchar(48) = ?, @owner uniqueidenti"
                + "fier = ?, @i int = 1, @h uniqueidentifier, @fill bigint; DECLARE @kept TABLE (conversation_handle un"
                + "iqueidentifier NOT NULL); SET @fill = NEXT VALUE FOR [dbo].[sqlq_bk_ids]; WHILE @i <= @want * @sprea"
                + "d BEGIN BEGIN DIALOG CONVERSATION @h FROM SERVICE [sqlq_bk:jobs:iservice] TO SERVICE N'sqlq_bk:jobs:"
                + "service', N'CURRENT DATABASE' ON CONTRACT [sqlq_bk:jobs:contract] WITH LIFETIME = 604800, ENCRYPTION"
                + " = OFF; INSERT INTO [dbo].[sqlq_bk_dialogs] (conversation_handle, queue_name, fill_id, is_spacer, ow"
                + "ner_id) VALUES (@h, @queue, @fill, CASE WHEN @i % @spread = 0 THEN 0 ELSE 1 END, CASE WHEN @i % @spr"
                + "ead = 0 THEN @owner ELSE NULL END); IF @i % @spread = 0 INSERT INTO @kept (conversation_handle) VALU"
                + "ES (@h); SET @i += 1; END; IF @spread > 1 INSERT INTO [dbo].[sqlq_bk_fills] (queue_name, fill_id) VALUES"
                + " (@queue, @fill); SELECT conversation_handle FROM @kept;",
                s.fillDialogs(q, 604800));
    }

    @Test
    void textAdoptDialogs() {
        assertEquals("UPDATE TOP (?) [dbo].[sqlq_bk_dialogs] WITH (ROWLOCK, READPAST) SET owner_id = ? OUTPUT inserted.con"
                + "versation_handle, DATEDIFF_BIG(millisecond, inserted.created_at, SYSUTCDATETIME()) AS age_ms WHERE q"
                + "ueue_name = ? AND owner_id IS NULL AND is_spacer = 0",
                s.adoptDialogs());
    }

    @Test
    void textReleaseOwnedDialogs() {
        assertEquals("UPDATE [dbo].[sqlq_bk_dialogs] SET owner_id = NULL WHERE owner_id = ?",
                s.releaseOwnedDialogs());
    }

    @Test
    void textRetireDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:eos]; DELETE F"
                + "ROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @h;",
                s.retireDialog(q));
    }

    @Test
    void textDiscardDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conv"
                + "ersation_handle = @h;",
                s.discardDialog());
    }

    @Test
    void textSend() {
        assertEquals("SET NOCOUNT ON; DECLARE @h uniqueidentifier = ?, @rest varbinary(max) = ?, @id bigint; SET @id = NEX"
                + "T VALUE FOR [dbo].[sqlq_bk_ids]; DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8)) + CAST"
                + "(DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), SYSUTCDATETIME()) AS binary(8)) + @rest"
                + "; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body); SELECT @id AS message_id;",
                s.send(q));
    }

    @Test
    void textResend() {
        assertEquals("DECLARE @h uniqueidentifier = ?, @body varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body);",
                s.resend(q));
    }

    @Test
    void textInTransitOf() {
        assertEquals("SELECT message_body FROM sys.transmission_queue WHERE conversation_handle = ? AND message_type_name = N'sqlq_bk:jobs:msg'",
                s.inTransitOf(q));
    }

    @Test
    void textSpacerCleanUp() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_fills', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_fills] (queue_name nvarchar(48)"
                + " NOT NULL, fill_id bigint NOT NULL, completed_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY"
                + " (queue_name, fill_id))", s.createFillsTable());
        assertEquals("SELECT TOP (?) f.fill_id FROM [dbo].[sqlq_bk_fills] AS f WHERE f.queue_name = ? AND NOT EXISTS (SELECT 1"
                + " FROM [dbo].[sqlq_bk_dialogs] AS d WHERE d.fill_id = f.fill_id AND d.is_spacer = 0)", s.deadFills());
        assertEquals("DECLARE @max int = ?, @queue nvarchar(48) = ?, @fill bigint = ?, @s uniqueidentifier, @n int = 0; DECLARE"
                + " @batch TABLE (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY); INSERT INTO @batch (conversation_handle)"
                + " SELECT TOP (@max) conversation_handle FROM [dbo].[sqlq_bk_dialogs] WITH (UPDLOCK, ROWLOCK, READPAST) WHERE fill_id"
                + " = @fill AND is_spacer = 1; WHILE 1 = 1 BEGIN SET @s = NULL; SELECT TOP (1) @s = conversation_handle FROM @batch;"
                + " IF @s IS NULL BREAK; END CONVERSATION @s; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @s;"
                + " DELETE FROM @batch WHERE conversation_handle = @s; SET @n += 1; END; IF @n < @max AND NOT EXISTS (SELECT 1 FROM"
                + " [dbo].[sqlq_bk_dialogs] WHERE fill_id = @fill) DELETE FROM [dbo].[sqlq_bk_fills] WHERE queue_name = @queue AND"
                + " fill_id = @fill; SELECT @n AS ended;", s.endFillSpacers());
    }

    @Test
    void textCreateDialogsFillIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_dialogs') AND nam"
                + "e = N'ix_fill') CREATE INDEX [ix_fill] ON [dbo].[sqlq_bk_dialogs] (fill_id, is_spacer)",
                s.createDialogsFillIndex());
    }

    @Test
    void textProbeBeginDialog() {
        assertEquals("DECLARE @h uniqueidentifier; BEGIN DIALOG CONVERSATION @h FROM SERVICE [sqlq_bk:jobs:iservice] TO SE"
                + "RVICE N'sqlq_bk:jobs:service', N'CURRENT DATABASE' ON CONTRACT [sqlq_bk:jobs:contract] WITH LIFETIME"
                + " = 2, ENCRYPTION = OFF; SELECT @h AS conversation_handle;",
                s.probeBeginDialog(q, 2));
    }

    @Test
    void textProbeSend() {
        assertEquals("DECLARE @h uniqueidentifier = ?, @b varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq"
                + "_bk:jobs:msg] (@b);",
                s.probeSend(q));
    }

    @Test
    void textProbeReceive() {
        assertEquals("WAITFOR (RECEIVE TOP (?) conversation_handle, queuing_order, message_type_name FROM [dbo].[sqlq_bk:j"
                + "obs:queue]), TIMEOUT ?",
                s.probeReceive(q));
    }

    @Test
    void textProbeQueueCount() {
        assertEquals("SELECT COUNT_BIG(*) AS messages, MIN(queuing_order) AS first_order FROM [dbo].[sqlq_bk:jobs:queue] W"
                + "ITH (NOLOCK)",
                s.probeQueueCount(q));
    }

    @Test
    void textProbePoisonHandlingOn() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH POISON_MESSAGE_HANDLING (STATUS = ON)",
                s.probePoisonHandlingOn(q));
    }

    @Test
    void textProbeApplock() {
        assertEquals("DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'sqlq_probe', @LockMode = N'Exclusive', @Lo"
                + "ckOwner = N'Transaction', @LockTimeout = 0; SELECT @r AS result;",
                s.probeApplock());
    }

    @Test
    void textProbeInTransit() {
        assertEquals("SELECT COUNT_BIG(*) AS in_transit FROM sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs"
                + ":service' AND message_type_name = N'sqlq_bk:jobs:msg'",
                s.probeInTransit(q));
    }

    @Test
    void textProbeTargetEndpoints() {
        assertEquals("SELECT COUNT_BIG(*) AS target_endpoints FROM sys.conversation_endpoints WHERE far_service = N'sqlq_b"
                + "k:jobs:iservice'",
                s.probeTargetEndpoints(q));
    }

    @Test
    void textProbeEnqueueTimeType() {
        assertEquals("SELECT TOP (1) CAST(SQL_VARIANT_PROPERTY(CAST(message_enqueue_time AS sql_variant), 'BaseType') AS n"
                + "varchar(128)) AS base_type, DATEDIFF_BIG(millisecond, message_enqueue_time, SYSDATETIMEOFFSET()) AS "
                + "age_ms, DATEPART(TZOFFSET, SYSDATETIMEOFFSET()) AS offset_minutes FROM [dbo].[sqlq_bk:jobs:queue] WI"
                + "TH (NOLOCK)",
                s.probeEnqueueTimeType(q));
    }

    @Test
    void textProbeReceiveAll() {
        assertEquals("RECEIVE conversation_handle, message_type_name FROM [dbo].[sqlq_bk:jobs:queue]",
                s.probeReceiveAll(q));
    }

    @Test
    void textProbePermissions() {
        assertEquals("SELECT IS_ROLEMEMBER(N'db_owner') AS db_owner, HAS_PERMS_BY_NAME(N'sqlq_bk:jobs:service', N'SERVICE'"
                + ", N'SEND') AS send_target, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:queue]', N'OBJECT', N'RECEIVE') A"
                + "S receive_target, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:iqueue]', N'OBJECT', N'RECEIVE') AS receiv"
                + "e_initiator, HAS_PERMS_BY_NAME(N'sqlq_bk:jobs:contract', N'CONTRACT', N'REFERENCES') AS references_c"
                + "ontract, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:queue]', N'OBJECT', N'VIEW DEFINITION') AS view_def"
                + "inition",
                s.probePermissions(q));
    }

    @Test
    void textProbeCleanup() {
        assertEquals("DECLARE @h uniqueidentifier; WHILE 1 = 1 BEGIN SET @h = NULL; SELECT TOP (1) @h = conversation_handl"
                + "e FROM sys.conversation_endpoints WHERE far_service IN (N'sqlq_bk:jobs:service', N'sqlq_bk:jobs:iser"
                + "vice'); IF @h IS NULL BREAK; END CONVERSATION @h WITH CLEANUP; END;",
                s.probeCleanup(q));
    }

    @Test
    void textProbeStatics() {
        assertEquals("SELECT @@TRANCOUNT AS trancount", BrokerStatements.probeTranCount());
        assertEquals("SET LOCK_TIMEOUT 5000", BrokerStatements.probeLockTimeout());
        assertEquals(s.endConversation(), s.probeEnd());
    }

    @Test
    void textEnforceQueueSettings() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);"
                + " ALTER QUEUE [dbo].[sqlq_bk:jobs:iqueue] WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF"
                + ");",
                s.enforceQueueSettings(q));
    }

    @Test
    void textConflictingQueueName() {
        assertEquals("SELECT TOP (1) queue_name FROM [dbo].[sqlq_bk_queues] WHERE queue_name = ? AND queue_name <> ? COLLATE Latin1_General_100_BIN2",
                s.conflictingQueueName());
    }

    @Test
    void textReceiveMore() {
        assertEquals("RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number, message_type_name,"
                + " message_body FROM [dbo].[sqlq_bk:jobs:queue] WHERE conversation_group_id = ?",
                s.receiveMore(q));
    }

    @Test
    void textReceive() {
        assertEquals("WAITFOR (RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number, messag"
                + "e_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue]), TIMEOUT ?",
                s.receive(q));
    }

    @Test
    void textReceiveInitiator() {
        assertEquals("RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:iqueue"
                + "]",
                s.receiveInitiator(q));
    }

    @Test
    void textReceiveForPurge() {
        assertEquals("RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue]",
                s.receiveForPurge(q));
    }

    @Test
    void textEndConversation() {
        assertEquals("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;",
                s.endConversation());
    }

    @Test
    void textForgetDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @h;"
                + " DELETE FROM [dbo].[sqlq_bk_groups] WHERE conversation_handle = @h;",
                s.forgetDialog());
    }

    @Test
    void textAttemptsOf3() {
        assertEquals("SELECT message_id, attempts FROM [dbo].[sqlq_bk_attempts] WITH (READCOMMITTEDLOCK) WHERE queue_name "
                + "= ? AND message_id IN (?, ?, ?)",
                s.attemptsOf(3));
    }

    @Test
    void textRaiseAttempts() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @err nvarchar(4000) = ?; UPDATE [dbo].[sqlq_bk_attempts"
                + "] SET attempts = attempts + 1, last_error = @err, updated_at = SYSUTCDATETIME() WHERE queue_name = @"
                + "q AND message_id = @id; IF @@ROWCOUNT = 0 INSERT INTO [dbo].[sqlq_bk_attempts] (queue_name, message_"
                + "id, attempts, last_error) VALUES (@q, @id, 1, @err);",
                s.raiseAttempts());
    }

    @Test
    void textClearAttempts() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_attempts] WHERE queue_name = ? AND message_id = ?",
                s.clearAttempts());
    }

    @Test
    void textInsertDeadLetter() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @p varbinary(max) = ?, @hd nvarchar(max) = ?, @a int = "
                + "?, @r nvarchar(4000) = ?, @ms bigint = ?, @g nvarchar(128) = ?; INSERT INTO [dbo].[sqlq_bk_dead] (qu"
                + "eue_name, message_id, payload, headers, attempts, reason, enqueued_at, group_key) VALUES (@q, @id, @"
                + "p, @hd, @a, @r, DATEADD(millisecond, CAST(@ms % 86400000 AS int), DATEADD(day, CAST(@ms / 86400000 A"
                + "S int), CAST('19700101' AS datetime2(3)))), @g);",
                s.insertDeadLetter());
    }

    @Test
    void textListDeadLetters() {
        assertEquals("SELECT TOP (?) dead_id, message_id, payload, headers, attempts, reason, DATEDIFF_BIG(millisecond, CA"
                + "ST('19700101' AS datetime2(3)), enqueued_at) AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('1970010"
                + "1' AS datetime2(3)), dead_at) AS dead_ms, group_key FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ? O"
                + "RDER BY dead_id",
                s.listDeadLetters());
    }

    @Test
    void textRequeueSelections() {
        String columns = "dead_id, message_id, payload, headers, attempts, reason, DATEDIFF_BIG(millisecond, CAST('19700101' AS"
                + " datetime2(3)), enqueued_at) AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), dead_at)"
                + " AS dead_ms, group_key";
        assertEquals("SELECT " + columns + " FROM [dbo].[sqlq_bk_dead] WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ? AND message_id"
                + " IN (?, ?) ORDER BY dead_id", s.deadLettersByIds(2));
        assertEquals("SELECT MAX(dead_id) AS last_id FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?", s.lastDeadId());
        assertEquals("SELECT TOP (?) " + columns + " FROM [dbo].[sqlq_bk_dead] WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ? AND"
                + " dead_id > ? AND dead_id <= ? ORDER BY dead_id", s.deadLetterPage());
        assertThrows(IllegalArgumentException.class, () -> s.deadLettersByIds(501));
    }

    @Test
    void textDeleteDeadLetter() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_dead] WHERE dead_id = ?",
                s.deleteDeadLetter());
    }

    @Test
    void textPurgeDeadLetters() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?",
                s.purgeDeadLetters());
    }

    @Test
    void textStats() {
        assertEquals("SELECT (SELECT COALESCE(SUM(p.rows), 0) FROM sys.internal_tables AS it JOIN sys.partitions AS p ON p"
                + ".object_id = it.object_id AND p.index_id = 1 WHERE it.parent_object_id = OBJECT_ID(N'[dbo].[sqlq_bk:"
                + "jobs:queue]')) AS queue_rows, (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?) A"
                + "S dead, (SELECT MAX(a) FROM (VALUES ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(message_enqueue_"
                + "time), SYSDATETIMEOFFSET()), 0) FROM [dbo].[sqlq_bk:jobs:queue] WITH (NOLOCK) WHERE message_type_nam"
                + "e = N'sqlq_bk:jobs:msg')), ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(enqueue_time), SYSUTCDATE"
                + "TIME()), 0) FROM sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs:service' AND message_"
                + "type_name = N'sqlq_bk:jobs:msg'))) AS v(a)) AS oldest_ms, (SELECT COUNT_BIG(*) FROM sys.transmission"
                + "_queue WHERE to_service_name = N'sqlq_bk:jobs:service') AS transmission, (SELECT COUNT_BIG(*) FROM ["
                + "dbo].[sqlq_bk_history] WHERE queue_name = ?) AS processed, (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_bk:"
                + "jobs:queue] WITH (NOLOCK) WHERE message_type_name = N'sqlq_bk:jobs:msg') + (SELECT COUNT_BIG(*) FROM"
                + " sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs:service' AND message_type_name = N'sq"
                + "lq_bk:jobs:msg') AS ready",
                s.stats(q));
    }

    @Test
    void textConversationsByState() {
        assertEquals("SELECT ce.state_desc, COUNT_BIG(*) AS conversations FROM sys.conversation_endpoints AS ce JOIN sys.s"
                + "ervices AS s ON s.service_id = ce.service_id WHERE s.name IN (N'sqlq_bk:jobs:service', N'sqlq_bk:job"
                + "s:iservice') GROUP BY ce.state_desc",
                s.conversationsByState(q));
    }

    @Test
    void textQueueStatus() {
        assertEquals("SELECT is_receive_enabled, is_enqueue_enabled FROM sys.service_queues WHERE object_id = OBJECT_ID(N'"
                + "[dbo].[sqlq_bk:jobs:queue]')",
                s.queueStatus(q));
    }

    @Test
    void textDropQueueObjects() {
        assertEquals(List.of("IF EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:service') DROP SERVICE [sqlq_bk:jobs:service]",
                "IF EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:iservice') DROP SERVICE [sqlq_bk:jobs:iservice]",
                "IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:queue]', N'SQ') IS NOT NULL DROP QUEUE [dbo].[sqlq_bk:jobs:queue]",
                "IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:iqueue]', N'SQ') IS NOT NULL DROP QUEUE [dbo].[sqlq_bk:jobs:iqueue]",
                "IF EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = N'sqlq_bk:jobs:contract') DROP CONTRACT [sqlq_bk:jobs:contract]",
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:msg') DROP MESSAGE TYPE [sqlq_bk:jobs:msg]",
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:eos') DROP MESSAGE TYPE [sqlq_bk:jobs:eos]"), s.dropQueueObjects(q));
    }

    @Test
    void textRegistryExists() {
        assertEquals("SELECT CASE WHEN OBJECT_ID(N'dbo.sqlq_bk_queues', N'U') IS NULL THEN 0 ELSE 1 END AS present",
                s.registryExists());
    }

    @Test
    void textDeduplicationKeys() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_keys', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_keys] (queue_name nvarchar(48)"
                + " COLLATE Latin1_General_100_BIN2 NOT NULL, dedupe_key nvarchar(129) COLLATE Latin1_General_100_BIN2 NOT NULL,"
                + " message_id bigint NOT NULL, expires_at datetime2(7) NOT NULL, PRIMARY KEY (queue_name, dedupe_key))",
                s.createKeysTable());
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_keys') AND name ="
                + " N'ix_expiry') CREATE INDEX [ix_expiry] ON [dbo].[sqlq_bk_keys] (expires_at)", s.createKeysExpiryIndex());
        assertEquals("DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @s int = ?, @ms int = ?, @id bigint; DELETE FROM"
                + " [dbo].[sqlq_bk_keys] WITH (ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k AND expires_at <= SYSUTCDATETIME();"
                + " SELECT @id = message_id FROM [dbo].[sqlq_bk_keys] WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k;"
                + " IF @id IS NULL BEGIN BEGIN TRY INSERT INTO [dbo].[sqlq_bk_keys] (queue_name, dedupe_key, message_id, expires_at)"
                + " VALUES (@q, @k, 0, DATEADD(second, @s, DATEADD(millisecond, @ms, SYSUTCDATETIME()))); END TRY BEGIN CATCH"
                + " IF ERROR_NUMBER() NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW; SELECT @id = message_id FROM [dbo].[sqlq_bk_keys]"
                + " WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k; END CATCH END; SELECT @id AS message_id;",
                s.takeKey());
        assertEquals("UPDATE [dbo].[sqlq_bk_keys] SET message_id = ? WHERE queue_name = ? AND dedupe_key = ?", s.recordKey());
        assertEquals("DELETE TOP (?) FROM [dbo].[sqlq_bk_keys] WITH (ROWLOCK, READPAST) WHERE expires_at <= SYSUTCDATETIME()",
                s.deleteExpiredKeys());
        assertEquals("DELETE FROM [dbo].[sqlq_bk_keys] WHERE queue_name = ?", s.purgeKeys());
    }

    @Test
    void textDropPrefixObjects() {
        assertEquals(List.of("DROP TABLE IF EXISTS [dbo].[sqlq_bk_keys]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_dialogs]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_fills]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_groups]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_group_pending]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_attempts]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_dead]",
                "DROP TABLE IF EXISTS [dbo].[sqlq_bk_history]", "DROP TABLE IF EXISTS [dbo].[sqlq_bk_queues]",
                "DROP SEQUENCE IF EXISTS [dbo].[sqlq_bk_ids]"), s.dropPrefixObjects());
    }

    @Test
    void textEnableBroker() {
        assertEquals("ALTER DATABASE [app db] SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE", BrokerStatements.enableBroker("app db"));
    }

    @Test
    void textPageLatchWaits() {
        assertEquals("SELECT wait_type, waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats"
                + " WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH') ORDER BY wait_type", BrokerStatements.pageLatchWaits());
    }

    @Test
    void inlinedNumbersAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> s.fillDialogs(q, 0));
        assertThrows(IllegalArgumentException.class, () -> s.attemptsOf(0));
    }

    @Test
    void constantsNameTheBrokerMessageTypes() {
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog", BrokerStatements.END_DIALOG);
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/Error", BrokerStatements.ERROR);
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer", BrokerStatements.DIALOG_TIMER);
    }

    @Test
    void textCreateGroupsTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_groups', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_groups] (queue_name nv"
                + "archar(48) NOT NULL, group_key nvarchar(128) COLLATE Latin1_General_100_BIN2 NOT NULL, conversation_"
                + "handle uniqueidentifier NOT NULL, created_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), last_se"
                + "nd_at datetime2(3) NOT NULL DEFAULT SYSUTCDATETIME(), PRIMARY KEY (queue_name, group_key))",
                s.createGroupsTable());
    }

    @Test
    void textCreateHistoryTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_history', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_history] (history_id "
                + "bigint IDENTITY(1,1) NOT NULL PRIMARY KEY, queue_name nvarchar(48) NOT NULL, message_id bigint NOT N"
                + "ULL, enqueued_at datetime2(3) NULL, started_at datetime2(3) NOT NULL, finished_at datetime2(3) NOT N"
                + "ULL DEFAULT SYSUTCDATETIME(), duration_ms AS DATEDIFF_BIG(millisecond, started_at, finished_at), att"
                + "empts int NOT NULL, outcome nvarchar(16) NOT NULL, detail nvarchar(4000) NULL)",
                s.createHistoryTable());
    }

    @Test
    void textCreateHistoryIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_history') AND nam"
                + "e = N'ix_queue') CREATE INDEX [ix_queue] ON [dbo].[sqlq_bk_history] (queue_name, history_id)",
                s.createHistoryIndex());
    }

    @Test
    void textSendGrouped() {
        assertEquals("DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @rest varbinary(max) = ?, @id bigint; DECLARE"
                + " @h uniqueidentifier; SELECT @h = conversation_handle FROM [dbo].[sqlq_bk_groups] WITH (UPDLOCK, HOL"
                + "DLOCK, ROWLOCK) WHERE queue_name = @queue AND group_key = @g; IF @@TRANCOUNT = 0 THROW 51000, N'sqlq"
                + "ueue: sending needs an open transaction', 1; IF @h IS NULL BEGIN BEGIN DIALOG CONVERSATION @h FROM S"
                + "ERVICE [sqlq_bk:jobs:iservice] TO SERVICE N'sqlq_bk:jobs:service', N'CURRENT DATABASE' ON CONTRACT ["
                + "sqlq_bk:jobs:contract] WITH LIFETIME = 2147483647, ENCRYPTION = OFF; INSERT INTO [dbo].[sqlq_bk_grou"
                + "ps] (queue_name, group_key, conversation_handle) VALUES (@queue, @g, @h); END ELSE UPDATE [dbo].[sql"
                + "q_bk_groups] SET last_send_at = SYSUTCDATETIME() WHERE queue_name = @queue AND group_key = @g; SET @"
                + "id = NEXT VALUE FOR [dbo].[sqlq_bk_ids]; DECLARE @body varbinary(max) = 0x02 + CAST(@id AS binary(8)"
                + ") + CAST(DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), SYSUTCDATETIME()) AS binary(8))"
                + " + @rest; INSERT INTO [dbo].[sqlq_bk_group_pending] (queue_name, message_id, group_key) VALUES (@que"
                + "ue, @id, @g); SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body); SELECT @id AS messa"
                + "ge_id;",
                s.sendGrouped(q));
    }

    @Test
    void textResendGrouped() {
        assertEquals("DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @id bigint = ?, @body varbinary(max) = ?; DEC"
                + "LARE @h uniqueidentifier; SELECT @h = conversation_handle FROM [dbo].[sqlq_bk_groups] WITH (UPDLOCK,"
                + " HOLDLOCK, ROWLOCK) WHERE queue_name = @queue AND group_key = @g; IF @@TRANCOUNT = 0 THROW 51000, N'"
                + "sqlqueue: sending needs an open transaction', 1; IF @h IS NULL BEGIN BEGIN DIALOG CONVERSATION @h FR"
                + "OM SERVICE [sqlq_bk:jobs:iservice] TO SERVICE N'sqlq_bk:jobs:service', N'CURRENT DATABASE' ON CONTRA"
                + "CT [sqlq_bk:jobs:contract] WITH LIFETIME = 2147483647, ENCRYPTION = OFF; INSERT INTO [dbo].[sqlq_bk_"
                + "groups] (queue_name, group_key, conversation_handle) VALUES (@queue, @g, @h); END ELSE UPDATE [dbo]."
                + "[sqlq_bk_groups] SET last_send_at = SYSUTCDATETIME() WHERE queue_name = @queue AND group_key = @g; I"
                + "NSERT INTO [dbo].[sqlq_bk_group_pending] (queue_name, message_id, group_key) VALUES (@queue, @id, @g"
                + "); SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body);",
                s.resendGrouped(q));
    }

    @Test
    void textSendOnOwnDialog() {
        assertEquals("DECLARE @rest varbinary(max) = ?, @h uniqueidentifier, @id bigint, @reg int; SELECT @reg = 1 FROM [d"
                + "bo].[sqlq_bk_queues] WHERE queue_name = N'jobs'; IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: sending"
                + " needs an open transaction', 1; BEGIN DIALOG CONVERSATION @h FROM SERVICE [sqlq_bk:jobs:iservice] TO"
                + " SERVICE N'sqlq_bk:jobs:service', N'CURRENT DATABASE' ON CONTRACT [sqlq_bk:jobs:contract] WITH LIFET"
                + "IME = 2147483647, ENCRYPTION = OFF; SET @id = NEXT VALUE FOR [dbo].[sqlq_bk_ids]; DECLARE @body varb"
                + "inary(max) = 0x01 + CAST(@id AS binary(8)) + CAST(DATEDIFF_BIG(millisecond, CAST('19700101' AS datet"
                + "ime2(3)), SYSUTCDATETIME()) AS binary(8)) + @rest; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:j"
                + "obs:msg] (@body); SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:eos]; SELECT @id AS message_i"
                + "d;",
                s.sendOnOwnDialog(q));
    }

    @Test
    void textGroupSettled() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_group_pending] WHERE queue_name = ? AND message_id = ?",
                s.groupSettled());
    }

    @Test
    void textRetireIdleGroups() {
        assertEquals("DECLARE @queue nvarchar(48) = ?, @idle int = ?, @age int = ?, @max int = ?, @g nvarchar(128), @h uni"
                + "queidentifier, @n int = 0; BEGIN TRY WHILE @n < @max BEGIN SET @h = NULL; SELECT TOP (1) @g = gr.gro"
                + "up_key, @h = gr.conversation_handle FROM [dbo].[sqlq_bk_groups] AS gr WITH (UPDLOCK, ROWLOCK, READPA"
                + "ST) WHERE gr.queue_name = @queue AND (gr.last_send_at < DATEADD(millisecond, -@idle, SYSUTCDATETIME("
                + ")) OR gr.created_at < DATEADD(second, -@age, SYSUTCDATETIME())) AND NOT EXISTS (SELECT 1 FROM [dbo]."
                + "[sqlq_bk_group_pending] AS p WITH (READCOMMITTEDLOCK, NOWAIT) WHERE p.queue_name = gr.queue_name AND"
                + " p.group_key = gr.group_key); IF @h IS NULL BREAK; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:j"
                + "obs:eos]; DELETE FROM [dbo].[sqlq_bk_groups] WHERE queue_name = @queue AND group_key = @g; SET @n +="
                + " 1; END; END TRY BEGIN CATCH IF ERROR_NUMBER() <> 1222 THROW; END CATCH; SELECT @n AS retired;",
                s.retireIdleGroups(q));
    }

    @Test
    void textInsertHistory() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @e bigint = ?, @s bigint = ?, @a int = ?, @o nvarchar(1"
                + "6) = ?, @d nvarchar(4000) = ?; INSERT INTO [dbo].[sqlq_bk_history] (queue_name, message_id, enqueued"
                + "_at, started_at, attempts, outcome, detail) VALUES (@q, @id, DATEADD(millisecond, CAST(@e % 86400000"
                + " AS int), DATEADD(day, CAST(@e / 86400000 AS int), CAST('19700101' AS datetime2(3)))), DATEADD(milli"
                + "second, CAST(@s % 86400000 AS int), DATEADD(day, CAST(@s / 86400000 AS int), CAST('19700101' AS date"
                + "time2(3)))), @a, @o, @d);",
                s.insertHistory());
    }

    @Test
    void textListHistory() {
        assertEquals("SELECT TOP (?) message_id, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), enqueued_at) "
                + "AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), started_at) AS started_m"
                + "s, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), finished_at) AS finished_ms, duration"
                + "_ms, attempts, outcome, detail FROM [dbo].[sqlq_bk_history] WHERE queue_name = ? ORDER BY history_id"
                + " DESC",
                s.listHistory());
    }

    @Test
    void textPruneHistoryByAge() {
        assertEquals("SELECT DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), DATEADD(second, ?, DATEADD(millisecond,"
                + " ?, SYSUTCDATETIME()))) AS cutoff_ms", s.historyAgeCutoff());
        assertEquals("DECLARE @n int = ?, @q nvarchar(48) = ?, @c bigint = ?; DELETE TOP (@n) FROM [dbo].[sqlq_bk_history] WITH"
                + " (ROWLOCK) WHERE queue_name = @q AND finished_at <= DATEADD(millisecond, CAST(@c % 86400000 AS int), DATEADD(day,"
                + " CAST(@c / 86400000 AS int), CAST('19700101' AS datetime2(3))));", s.pruneHistoryBefore());
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_history') AND name ="
                + " N'ix_finished') CREATE INDEX [ix_finished] ON [dbo].[sqlq_bk_history] (queue_name, finished_at)",
                s.createHistoryFinishedIndex());
    }

    @Test
    void textPruneHistoryByRows() {
        assertEquals("SELECT MIN(k.history_id) AS keep_from FROM (SELECT TOP (?) history_id FROM [dbo].[sqlq_bk_history] WHERE"
                + " queue_name = ? ORDER BY history_id DESC) AS k", s.historyRowsCutoff());
        assertEquals("DECLARE @n int = ?, @q nvarchar(48) = ?, @keep bigint = ?; DELETE TOP (@n) FROM [dbo].[sqlq_bk_history] WITH"
                + " (ROWLOCK) WHERE queue_name = @q AND history_id < @keep;", s.pruneHistoryRowsBelow());
    }

    @Test
    void textCreateGroupsHandleIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_groups') AND name"
                + " = N'ux_handle') CREATE UNIQUE INDEX [ux_handle] ON [dbo].[sqlq_bk_groups] (conversation_handle)",
                s.createGroupsHandleIndex());
    }

    @Test
    void textCreateGroupPendingTable() {
        assertEquals("IF OBJECT_ID(N'dbo.sqlq_bk_group_pending', N'U') IS NULL CREATE TABLE [dbo].[sqlq_bk_group_pending] "
                + "(queue_name nvarchar(48) NOT NULL, message_id bigint NOT NULL, group_key nvarchar(128) COLLATE Latin"
                + "1_General_100_BIN2 NOT NULL, PRIMARY KEY (queue_name, message_id))",
                s.createGroupPendingTable());
    }

    @Test
    void textCreateGroupPendingIndex() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_group_pending') A"
                + "ND name = N'ix_group') CREATE INDEX [ix_group] ON [dbo].[sqlq_bk_group_pending] (queue_name, group_k"
                + "ey)",
                s.createGroupPendingIndex());
    }

    @Test
    void textClockMillis() {
        assertEquals("SELECT DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), SYSUTCDATETIME()) AS now_ms",
                s.clockMillis());
    }

    @Test
    void textReceiveRest() {
        assertEquals("RECEIVE message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue] WHERE conversation_handle = "
                + "?",
                s.receiveRest(q));
    }

    @Test
    void textReleaseClaim0() {
        assertEquals("DECLARE @q nvarchar(48) = ?; ROLLBACK TRANSACTION [sqlq_receive];",
                s.releaseClaim(0));
    }

    @Test
    void textReleaseClaim2() {
        assertEquals("DECLARE @q nvarchar(48) = ?; DECLARE @n TABLE (message_id bigint NOT NULL PRIMARY KEY, last_error nv"
                + "archar(4000) NULL); INSERT INTO @n (message_id, last_error) VALUES (?, ?), (?, ?); ROLLBACK TRANSACT"
                + "ION [sqlq_receive]; UPDATE a SET attempts = a.attempts + 1, last_error = x.last_error, updated_at = "
                + "SYSUTCDATETIME() FROM [dbo].[sqlq_bk_attempts] AS a JOIN @n AS x ON a.queue_name = @q AND a.message_"
                + "id = x.message_id; INSERT INTO [dbo].[sqlq_bk_attempts] (queue_name, message_id, attempts, last_erro"
                + "r) SELECT @q, x.message_id, 1, x.last_error FROM @n AS x WHERE NOT EXISTS (SELECT 1 FROM [dbo].[sqlq"
                + "_bk_attempts] AS a WHERE a.queue_name = @q AND a.message_id = x.message_id);",
                s.releaseClaim(2));
    }

    @Test
    void textRequireOpenTransaction() {
        assertEquals("IF XACT_STATE() <> 1 THROW 51000, N'sqlqueue: the claim''s transaction is no longer open', 1;",
                s.requireOpenTransaction());
    }
}
