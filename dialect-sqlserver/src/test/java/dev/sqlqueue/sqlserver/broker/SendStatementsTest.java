package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link SendStatements} (enqueue) for prefix {@code sqlq_}
 * and queue {@code jobs}. These tests show only that the text is what was reviewed against the SQL
 * Server documentation; none of it has been run against a SQL Server.
 */
class SendStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textSend() {
        assertEquals("SET NOCOUNT ON; DECLARE @h uniqueidentifier = ?, @rest varbinary(max) = ?, @id bigint; SET @id = NEX"
                + "T VALUE FOR [dbo].[sqlq_bk_ids]; DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8)) + CAST"
                + "(DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), SYSUTCDATETIME()) AS binary(8)) + @rest"
                + "; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body); SELECT @id AS message_id;",
                s.sending().send(q));
    }

    @Test
    void textResend() {
        assertEquals("DECLARE @h uniqueidentifier = ?, @body varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:msg] (@body);",
                s.sending().resend(q));
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
                s.sending().sendGrouped(q));
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
                s.sending().resendGrouped(q));
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
                s.sending().sendOnOwnDialog(q));
    }
}
