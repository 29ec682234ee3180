package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link ClaimStatements} (consume and settle) for prefix
 * {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what was reviewed
 * against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class ClaimStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textReceiveMore() {
        assertEquals("RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number, message_type_name,"
                + " message_body FROM [dbo].[sqlq_bk:jobs:queue] WHERE conversation_group_id = ?",
                s.claims().receiveMore(q));
    }

    @Test
    void textReceive() {
        assertEquals("WAITFOR (RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number, messag"
                + "e_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue]), TIMEOUT ?",
                s.claims().receive(q));
    }

    @Test
    void textAttemptsOf3() {
        assertEquals("SELECT message_id, attempts FROM [dbo].[sqlq_bk_attempts] WITH (READCOMMITTEDLOCK) WHERE queue_name "
                + "= ? AND message_id IN (?, ?, ?)",
                s.claims().attemptsOf(3));
    }

    @Test
    void textRaiseAttempts() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @err nvarchar(4000) = ?; UPDATE [dbo].[sqlq_bk_attempts"
                + "] SET attempts = attempts + 1, last_error = @err, updated_at = SYSUTCDATETIME() WHERE queue_name = @"
                + "q AND message_id = @id; IF @@ROWCOUNT = 0 INSERT INTO [dbo].[sqlq_bk_attempts] (queue_name, message_"
                + "id, attempts, last_error) VALUES (@q, @id, 1, @err);",
                s.claims().raiseAttempts());
    }

    @Test
    void textClearAttempts() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_attempts] WHERE queue_name = ? AND message_id = ?",
                s.claims().clearAttempts());
    }

    @Test
    void textGroupSettled() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_group_pending] WHERE queue_name = ? AND message_id = ?",
                s.claims().groupSettled());
    }

    @Test
    void textClockMillis() {
        assertEquals("SELECT DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), SYSUTCDATETIME()) AS now_ms",
                s.claims().clockMillis());
    }

    @Test
    void textReceiveRest() {
        assertEquals("RECEIVE message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue] WHERE conversation_handle = "
                + "?",
                s.claims().receiveRest(q));
    }

    @Test
    void textReleaseClaim0() {
        assertEquals("DECLARE @q nvarchar(48) = ?; ROLLBACK TRANSACTION [sqlq_receive];",
                s.claims().releaseClaim(0));
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
                s.claims().releaseClaim(2));
    }

    @Test
    void textRequireOpenTransaction() {
        assertEquals("IF XACT_STATE() <> 1 THROW 51000, N'sqlqueue: the claim''s transaction is no longer open', 1;",
                s.claims().requireOpenTransaction());
    }
}
