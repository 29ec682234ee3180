package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link ProvisioningStatements} (provisioning checks, lock
 * and each queue's broker objects) for prefix {@code sqlq_} and queue {@code jobs}. These tests show
 * only that the text is what was reviewed against the SQL Server documentation; none of it has been run
 * against a SQL Server.
 */
class ProvisioningStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textBrokerEnabled() {
        assertEquals("SELECT DB_NAME() AS database_name, is_broker_enabled FROM sys.databases WHERE database_id = DB_ID()",
                s.provisioning().brokerEnabled());
    }

    @Test
    void textServerVersion() {
        assertEquals("SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS version, CAST(SERVERPROPERTY('Edit"
                + "ion') AS nvarchar(128)) AS edition",
                s.provisioning().serverVersion());
    }

    @Test
    void textProvisioningLock() {
        assertEquals("SET NOCOUNT ON; IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: the provisioning lock needs an open tran"
                + "saction', 1; DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'sqlq_bk:provisioning', @LockM"
                + "ode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = ?; SELECT @r AS result;",
                s.provisioning().provisioningLock());
    }

    @Test
    void textCreateMessageType() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:msg') CREATE MESS"
                + "AGE TYPE [sqlq_bk:jobs:msg] VALIDATION = NONE",
                s.provisioning().createMessageType(q));
    }

    @Test
    void textCreateEndOfStreamType() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:eos') CREATE MESS"
                + "AGE TYPE [sqlq_bk:jobs:eos] VALIDATION = EMPTY",
                s.provisioning().createEndOfStreamType(q));
    }

    @Test
    void textCreateContract() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = N'sqlq_bk:jobs:contract') CREATE CON"
                + "TRACT [sqlq_bk:jobs:contract] ([sqlq_bk:jobs:msg] SENT BY INITIATOR, [sqlq_bk:jobs:eos] SENT BY INIT"
                + "IATOR)",
                s.provisioning().createContract(q));
    }

    @Test
    void textCreateQueue() {
        assertEquals("IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:queue]', N'SQ') IS NULL CREATE QUEUE [dbo].[sqlq_bk:jobs:queue] W"
                + "ITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)",
                s.provisioning().createQueue(q));
    }

    @Test
    void textCreateInitiatorQueue() {
        assertEquals("IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:iqueue]', N'SQ') IS NULL CREATE QUEUE [dbo].[sqlq_bk:jobs:iqueue]"
                + " WITH STATUS = ON, RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF)",
                s.provisioning().createInitiatorQueue(q));
    }

    @Test
    void textCreateService() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:service') CREATE SERVICE [sqlq"
                + "_bk:jobs:service] ON QUEUE [dbo].[sqlq_bk:jobs:queue] ([sqlq_bk:jobs:contract])",
                s.provisioning().createService(q));
    }

    @Test
    void textCreateInitiatorService() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:iservice') CREATE SERVICE [sql"
                + "q_bk:jobs:iservice] ON QUEUE [dbo].[sqlq_bk:jobs:iqueue]",
                s.provisioning().createInitiatorService(q));
    }

    @Test
    void textRegisterQueue() {
        assertEquals("IF NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_bk_queues] WHERE queue_name = ?) INSERT INTO [dbo].[sqlq_bk"
                + "_queues] (queue_name) VALUES (?)",
                s.provisioning().registerQueue());
    }

    @Test
    void textAttachActivation() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = [dbo].[run_tas"
                + "k], MAX_QUEUE_READERS = 5, EXECUTE AS OWNER)",
                s.provisioning().attachActivation(q, "dbo.run_task", 5, "OWNER"));
    }

    @Test
    void textDeleteQueueRows() {
        assertEquals("DECLARE @q nvarchar(48) = ?; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE queue_name = @q; DELETE FROM "
                + "[dbo].[sqlq_bk_fills] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_groups] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_group_pending] WHERE queue_"
                + "name = @q; DELETE FROM [dbo].[sqlq_bk_attempts] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_de"
                + "ad] WHERE queue_name = @q; DELETE FROM [dbo].[sqlq_bk_history] WHERE queue_name = @q; DELETE FROM [d"
                + "bo].[sqlq_bk_queues] WHERE queue_name = @q;",
                s.provisioning().deleteQueueRows());
    }

    @Test
    void textListQueues() {
        assertEquals("SELECT queue_name FROM [dbo].[sqlq_bk_queues] ORDER BY queue_name",
                s.provisioning().listQueues());
    }

    @Test
    void textEnforceQueueSettings() {
        assertEquals("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF);"
                + " ALTER QUEUE [dbo].[sqlq_bk:jobs:iqueue] WITH RETENTION = OFF, POISON_MESSAGE_HANDLING (STATUS = OFF"
                + ");",
                s.provisioning().enforceQueueSettings(q));
    }

    @Test
    void textConflictingQueueName() {
        assertEquals("SELECT TOP (1) queue_name FROM [dbo].[sqlq_bk_queues] WHERE queue_name = ? AND queue_name <> ? COLLATE Latin1_General_100_BIN2",
                s.provisioning().conflictingQueueName());
    }

    @Test
    void textDropQueueObjects() {
        assertEquals(List.of("IF EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:service') DROP SERVICE [sqlq_bk:jobs:service]",
                "IF EXISTS (SELECT 1 FROM sys.services WHERE name = N'sqlq_bk:jobs:iservice') DROP SERVICE [sqlq_bk:jobs:iservice]",
                "IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:queue]', N'SQ') IS NOT NULL DROP QUEUE [dbo].[sqlq_bk:jobs:queue]",
                "IF OBJECT_ID(N'[dbo].[sqlq_bk:jobs:iqueue]', N'SQ') IS NOT NULL DROP QUEUE [dbo].[sqlq_bk:jobs:iqueue]",
                "IF EXISTS (SELECT 1 FROM sys.service_contracts WHERE name = N'sqlq_bk:jobs:contract') DROP CONTRACT [sqlq_bk:jobs:contract]",
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:msg') DROP MESSAGE TYPE [sqlq_bk:jobs:msg]",
                "IF EXISTS (SELECT 1 FROM sys.service_message_types WHERE name = N'sqlq_bk:jobs:eos') DROP MESSAGE TYPE [sqlq_bk:jobs:eos]"), s.provisioning().dropQueueObjects(q));
    }

    @Test
    void textRegistryExists() {
        assertEquals("SELECT CASE WHEN OBJECT_ID(N'dbo.sqlq_bk_queues', N'U') IS NULL THEN 0 ELSE 1 END AS present",
                s.provisioning().registryExists());
    }

    @Test
    void textEnableBroker() {
        assertEquals("ALTER DATABASE [app db] SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE", ProvisioningStatements.enableBroker("app db"));
    }
}
