package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.BrokerNames;
import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link ProbeStatements} (probes) for prefix {@code sqlq_}
 * and queue {@code jobs}. These tests show only that the text is what was reviewed against the SQL
 * Server documentation; none of it has been run against a SQL Server.
 */
class ProbeStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textProbeBeginDialog() {
        assertEquals("DECLARE @h uniqueidentifier; BEGIN DIALOG CONVERSATION @h FROM SERVICE [sqlq_bk:jobs:iservice] TO SE"
                + "RVICE N'sqlq_bk:jobs:service', N'CURRENT DATABASE' ON CONTRACT [sqlq_bk:jobs:contract] WITH LIFETIME"
                + " = 2, ENCRYPTION = OFF; SELECT @h AS conversation_handle;",
                s.probes().probeBeginDialog(q, 2));
    }

    @Test
    void textProbeSend() {
        assertEquals("DECLARE @h uniqueidentifier = ?, @b varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq"
                + "_bk:jobs:msg] (@b);",
                s.probes().probeSend(q));
    }

    @Test
    void textProbeReceive() {
        assertEquals("WAITFOR (RECEIVE TOP (?) conversation_handle, queuing_order, message_type_name FROM [dbo].[sqlq_bk:j"
                + "obs:queue]), TIMEOUT ?",
                s.probes().probeReceive(q));
    }

    @Test
    void textProbeQueueCount() {
        assertEquals("SELECT COUNT_BIG(*) AS messages, MIN(queuing_order) AS first_order FROM [dbo].[sqlq_bk:jobs:queue] W"
                + "ITH (NOLOCK)",
                s.probes().probeQueueCount(q));
    }

    @Test
    void textProbePoisonHandlingOn() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH POISON_MESSAGE_HANDLING (STATUS = ON)",
                s.probes().probePoisonHandlingOn(q));
    }

    @Test
    void textProbeApplock() {
        assertEquals("DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'sqlq_probe', @LockMode = N'Exclusive', @Lo"
                + "ckOwner = N'Transaction', @LockTimeout = 0; SELECT @r AS result;",
                s.probes().probeApplock());
    }

    @Test
    void textProbeInTransit() {
        assertEquals("SELECT COUNT_BIG(*) AS in_transit FROM sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs"
                + ":service' AND message_type_name = N'sqlq_bk:jobs:msg'",
                s.probes().probeInTransit(q));
    }

    @Test
    void textProbeTargetEndpoints() {
        assertEquals("SELECT COUNT_BIG(*) AS target_endpoints FROM sys.conversation_endpoints WHERE far_service = N'sqlq_b"
                + "k:jobs:iservice'",
                s.probes().probeTargetEndpoints(q));
    }

    @Test
    void textProbeEnqueueTimeType() {
        assertEquals("SELECT TOP (1) CAST(SQL_VARIANT_PROPERTY(CAST(message_enqueue_time AS sql_variant), 'BaseType') AS n"
                + "varchar(128)) AS base_type, DATEDIFF_BIG(millisecond, message_enqueue_time, SYSDATETIMEOFFSET()) AS "
                + "age_ms, DATEPART(TZOFFSET, SYSDATETIMEOFFSET()) AS offset_minutes FROM [dbo].[sqlq_bk:jobs:queue] WI"
                + "TH (NOLOCK)",
                s.probes().probeEnqueueTimeType(q));
    }

    @Test
    void textProbeReceiveAll() {
        assertEquals("RECEIVE conversation_handle, message_type_name FROM [dbo].[sqlq_bk:jobs:queue]",
                s.probes().probeReceiveAll(q));
    }

    @Test
    void textProbePermissions() {
        assertEquals("SELECT IS_ROLEMEMBER(N'db_owner') AS db_owner, HAS_PERMS_BY_NAME(N'sqlq_bk:jobs:service', N'SERVICE'"
                + ", N'SEND') AS send_target, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:queue]', N'OBJECT', N'RECEIVE') A"
                + "S receive_target, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:iqueue]', N'OBJECT', N'RECEIVE') AS receiv"
                + "e_initiator, HAS_PERMS_BY_NAME(N'sqlq_bk:jobs:contract', N'CONTRACT', N'REFERENCES') AS references_c"
                + "ontract, HAS_PERMS_BY_NAME(N'[dbo].[sqlq_bk:jobs:queue]', N'OBJECT', N'VIEW DEFINITION') AS view_def"
                + "inition",
                s.probes().probePermissions(q));
    }

    @Test
    void textProbeCleanup() {
        assertEquals("DECLARE @h uniqueidentifier; WHILE 1 = 1 BEGIN SET @h = NULL; SELECT TOP (1) @h = conversation_handl"
                + "e FROM sys.conversation_endpoints WHERE far_service IN (N'sqlq_bk:jobs:service', N'sqlq_bk:jobs:iser"
                + "vice'); IF @h IS NULL BREAK; END CONVERSATION @h WITH CLEANUP; END;",
                s.probes().probeCleanup(q));
    }

    @Test
    void textProbesOfTheReReview() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @id bigint; SELECT @id = message_id FROM [dbo].[sqlq_bk_keys]"
                + " WITH (UPDLOCK, HOLDLOCK, ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k; SELECT @id AS message_id;",
                s.probes().probeRangeKeyRead());
        assertEquals("SELECT snapshot_isolation_state, is_read_committed_snapshot_on FROM sys.databases WHERE database_id = DB_ID()",
                ProbeStatements.probeIsolationSettings());
        assertEquals("SELECT @@OPTIONS & 512 AS nocount", ProbeStatements.probeNocount());
        assertEquals("EXECUTE AS USER = N'app''s user'", ProbeStatements.probeExecuteAs("app's user"));
        assertEquals("REVERT", ProbeStatements.probeRevert());
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH STATUS = OFF", s.probes().probeQueueStatus(q, false));
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH STATUS = ON", s.probes().probeQueueStatus(q, true));
        assertEquals("SET LOCK_TIMEOUT 2000", ProbeStatements.probeLockTimeout2s());
        assertEquals("SELECT l.request_mode, l.resource_type, COUNT_BIG(*) AS locks FROM sys.dm_tran_locks AS l WHERE"
                + " l.request_session_id = @@SPID AND l.resource_database_id = DB_ID() AND (l.resource_associated_entity_id IN (SELECT"
                + " p.hobt_id FROM sys.partitions AS p WHERE p.object_id = OBJECT_ID(N'dbo.sqlq_bk_dialogs')) OR (l.resource_type ="
                + " N'OBJECT' AND l.resource_associated_entity_id = OBJECT_ID(N'dbo.sqlq_bk_dialogs'))) GROUP BY l.request_mode,"
                + " l.resource_type", s.probes().probeDialogLocks());
    }
}
