package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of every statement of the sqlserver backend (prefix {@code sqlq_}, schema
 * {@code dbo}, fifo). Only the text is verified here: no statement has been run against SQL Server.
 */
class SqlServerStatementsTest {
    private final SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);

    @Test
    void everyStatementTextIsPinned() {
        // review N1: the key is taken by inserting it first, on the exact key, with no key-range lock
        final String TAKE = "DELETE FROM [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK) WHERE [queue_name] = @q AND [dedupe_key] = @k"
                + " AND [expires_at] <= SYSUTCDATETIME(); SELECT @id = [message_id] FROM [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK)"
                + " WHERE [queue_name] = @q AND [dedupe_key] = @k; IF @id IS NULL BEGIN BEGIN TRY INSERT INTO"
                + " [dbo].[sqlq_dedupe_keys] ([queue_name], [dedupe_key], [message_id], [expires_at]) VALUES (@q, @k, 0,"
                + " DATEADD(second, @ws, DATEADD(millisecond, @wms, SYSUTCDATETIME()))); END TRY BEGIN CATCH IF ERROR_NUMBER()"
                + " NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW; SELECT @id = [message_id] FROM [dbo].[sqlq_dedupe_keys]"
                + " WITH (ROWLOCK) WHERE [queue_name] = @q AND [dedupe_key] = @k; IF @id IS NULL THROW; END CATCH; END;";
        final String KEYED = "DECLARE @q nvarchar(48) = ?; DECLARE @k nvarchar(129) = ?; DECLARE @ws int = ?; DECLARE @wms int = ?"
                + "; DECLARE @id bigint; DECLARE @new TABLE ([id] bigint NOT NULL); IF NOT EXISTS (SELECT 1 FROM"
                + " [dbo].[sqlq_queues] AS [q] WITH (ROWLOCK, REPEATABLEREAD) WHERE [q].[name] = @q AND [q].[dropping] = 0)"
                + " SELECT CAST(NULL AS bigint) AS [id], 0 AS [duplicate] WHERE 1 = 0; ELSE BEGIN " + TAKE
                + " IF @id IS NOT NULL SELECT @id AS [id], 1 AS [duplicate]; ELSE BEGIN INSERT INTO [dbo].[sqlq_messages]"
                + " ([queue_name], [priority], [visible_at], [enqueued_at], [payload], [headers]) OUTPUT inserted.[id] INTO"
                + " @new ([id]) VALUES (@q, ?, DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME())), SYSUTCDATETIME(),"
                + " ?, ?); UPDATE [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK) SET [message_id] = (SELECT [id] FROM @new) WHERE"
                + " [queue_name] = @q AND [dedupe_key] = @k; SELECT [id], 0 AS [duplicate] FROM @new; END; END;";
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("claim",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; WITH [claim] AS "
                + "(SELECT TOP (?) [id], [priority], [enqueued_at], "
                + "[visible_at], [attempts], [claim_count], [lease_token], [started_at], [payload], [headers] FROM "
                + "[dbo].[sqlq_messages] WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK, FORCESEEK, INDEX "
                + "([sqlq_messages_claim])) WHERE [queue_name] = ? "
                + "AND [visible_at] <= SYSUTCDATETIME()"
                // the pause check (migration V4): the queue row is not marked paused, correlated on the claimed queue
                + " AND NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_queues] AS [p] WHERE [p].[paused] = 1 AND [p].[name] = [queue_name])"
                + " ORDER BY [visible_at], [id]) UPDATE [claim] SET [attempts] = "
                + "[attempts] + 1, [claim_count] = [claim_count] + 1, [lease_token] = [claim_count] + 1, [visible_at] = "
                + "DATEADD(millisecond, ?, SYSUTCDATETIME()), [started_at] = SYSUTCDATETIME() OUTPUT inserted.[id], "
                + "inserted.[lease_token], inserted.[attempts], inserted.[priority], inserted.[enqueued_at], "
                + "deleted.[visible_at] AS [prior_visible_at], inserted.[payload], inserted.[headers];");
        expected.put("enqueue",
                "SET NOCOUNT ON; SET XACT_ABORT ON; INSERT INTO [dbo].[sqlq_messages] ([queue_name], [priority], "
                + "[visible_at], [enqueued_at], [payload], [headers]) OUTPUT inserted.[id] SELECT [q].[name], ?, "
                + "DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME())), SYSUTCDATETIME(), ?, ? FROM "
                + "[dbo].[sqlq_queues] AS [q] WITH (ROWLOCK, REPEATABLEREAD) WHERE [q].[name] = ? AND [q].[dropping] = 0;");
        expected.put("enqueueJoined",
                "INSERT INTO [dbo].[sqlq_messages] ([queue_name], [priority], [visible_at], "
                + "[enqueued_at], [payload], [headers]) OUTPUT inserted.[id] SELECT [q].[name], ?, DATEADD(second, ?, "
                + "DATEADD(millisecond, ?, SYSUTCDATETIME())), SYSUTCDATETIME(), ?, ? FROM [dbo].[sqlq_queues] AS [q] "
                + "WITH (ROWLOCK, REPEATABLEREAD) WHERE [q].[name] = ? AND [q].[dropping] = 0;");
        expected.put("enqueueKeyed",
                "SET NOCOUNT ON; SET XACT_ABORT OFF; " + KEYED);
        expected.put("enqueueKeyedJoined", KEYED);
        expected.put("takeKey", "SET NOCOUNT ON; SET XACT_ABORT OFF; DECLARE @q nvarchar(48) = ?; DECLARE @k nvarchar(129) = ?;"
                + " DECLARE @ws int = ?; DECLARE @wms int = ?; DECLARE @id bigint; " + TAKE + " SELECT @id AS [message_id];");
        expected.put("bindKey", "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK) SET"
                + " [message_id] = ? WHERE [queue_name] = ? AND [dedupe_key] = ? AND [message_id] = 0; SELECT @@ROWCOUNT AS [n];");
        // READCOMMITTEDLOCK beside READPAST, as the claim has it (review P7: READPAST under READ_COMMITTED_SNAPSHOT)
        expected.put("deleteExpiredKeysBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK, READPAST, "
                + "READCOMMITTEDLOCK) WHERE [expires_at] <= SYSUTCDATETIME(); SELECT @@ROWCOUNT AS [n];");
        expected.put("purgeKeysBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_dedupe_keys] WITH (ROWLOCK) "
                + "WHERE [queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("ack",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_messages] WITH (ROWLOCK) WHERE [id] = ? "
                + "AND [queue_name] = ? AND [lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("ackToHistory",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_messages] WITH (ROWLOCK) OUTPUT "
                + "deleted.[id], deleted.[queue_name], deleted.[enqueued_at], deleted.[started_at], SYSUTCDATETIME(), "
                + "deleted.[attempts], N'acked', ?, SUBSTRING(deleted.[payload], 1, 64) INTO [dbo].[sqlq_history] ([message_id], [queue_name], "
                + "[enqueued_at], [started_at], [finished_at], [attempts], [outcome], [detail], [payload_preview]) WHERE [id] = ? AND "
                + "[queue_name] = ? AND [lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("nack",
                "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_messages] WITH (ROWLOCK) SET [visible_at] = "
                + "DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME())), [lease_token] = NULL, [last_error] = "
                + "? WHERE [id] = ? AND [queue_name] = ? AND [lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("extend",
                "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_messages] WITH (ROWLOCK) SET [visible_at] = "
                + "DATEADD(millisecond, ?, SYSUTCDATETIME()) WHERE [id] = ? AND [queue_name] = ? AND [lease_token] = ?; "
                + "SELECT @@ROWCOUNT AS [n];");
        expected.put("release",
                "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_messages] WITH (ROWLOCK) SET [visible_at] = "
                + "SYSUTCDATETIME(), [lease_token] = NULL, [attempts] = [attempts] - 1 WHERE [id] = ? AND [queue_name] "
                + "= ? AND [lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("releaseRestore",
                "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_messages] WITH (ROWLOCK) SET [visible_at] = ?, "
                + "[lease_token] = NULL, [attempts] = [attempts] - 1 WHERE [id] = ? AND [queue_name] = ? AND "
                + "[lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("deadLetter",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_messages] WITH (ROWLOCK) OUTPUT "
                + "deleted.[id], deleted.[queue_name], deleted.[priority], deleted.[payload], deleted.[headers], "
                + "deleted.[attempts], ?, deleted.[enqueued_at], deleted.[started_at], SYSUTCDATETIME() INTO "
                + "[dbo].[sqlq_dead_letters] ([message_id], [queue_name], [priority], [payload], [headers], [attempts], "
                + "[reason], [enqueued_at], [started_at], [dead_at]) WHERE [id] = ? AND [queue_name] = ? AND "
                + "[lease_token] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("historyFromDeadLetter",
                "SET NOCOUNT ON; SET XACT_ABORT ON; INSERT INTO [dbo].[sqlq_history] ([message_id], [queue_name], "
                + "[enqueued_at], [started_at], [finished_at], [attempts], [outcome], [detail], [payload_preview]) SELECT [message_id], "
                + "[queue_name], [enqueued_at], [started_at], [dead_at], [attempts], N'dead-lettered', [reason], "
                + "SUBSTRING([payload], 1, 64) FROM "
                + "[dbo].[sqlq_dead_letters] WITH (ROWLOCK) WHERE [message_id] = ? AND [queue_name] = ?;");
        expected.put("createQueue",
                "SET NOCOUNT ON; SET XACT_ABORT ON; INSERT INTO [dbo].[sqlq_queues] ([name], [created_at]) SELECT ?, "
                + "SYSUTCDATETIME() WHERE NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_queues] WITH (UPDLOCK, HOLDLOCK) WHERE "
                + "[name] = ?); SELECT [dropping] FROM [dbo].[sqlq_queues] WITH (ROWLOCK) WHERE [name] = ?;");
        expected.put("queueState",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [dropping] FROM [dbo].[sqlq_queues] WITH (ROWLOCK) WHERE [name] = ?;");
        expected.put("markDropping",
                "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_queues] WITH (ROWLOCK) SET [dropping] = 1 WHERE "
                + "[name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("deleteQueue",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_queues] WITH (ROWLOCK) WHERE [name] = ?; "
                + "SELECT @@ROWCOUNT AS [n];");
        expected.put("listQueues",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [name] FROM [dbo].[sqlq_queues] WHERE [dropping] = 0;");
        expected.put("purgeBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_messages] WITH (ROWLOCK) WHERE "
                + "[queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("purgeDeadLettersBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_dead_letters] WITH (ROWLOCK) "
                + "WHERE [queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("purgeHistoryBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_history] WITH (ROWLOCK) WHERE "
                + "[queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("pruneHistoryAgeBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_history] WITH (ROWLOCK) WHERE "
                + "[queue_name] = ? AND [finished_at] <= DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME()));"
                + " SELECT @@ROWCOUNT AS [n];");
        // review N11: the last row kept is read once; each batch is a seek on (queue_name, finished_at, id)
        expected.put("historyCutoff",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [finished_at], [id] FROM [dbo].[sqlq_history] WHERE [queue_name] = ?"
                + " ORDER BY [finished_at] DESC, [id] DESC OFFSET ? ROWS FETCH NEXT 1 ROWS ONLY;");
        expected.put("pruneHistoryBeforeBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_history] WITH (ROWLOCK) WHERE [queue_name] = ?"
                + " AND ([finished_at] < ? OR ([finished_at] = ? AND [id] < ?)); SELECT @@ROWCOUNT AS [n];");
        expected.put("stats",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DECLARE @q nvarchar(48) = ?; DECLARE @now datetime2(7) = "
                + "SYSUTCDATETIME(); SELECT (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_messages] WITH (NOLOCK) WHERE "
                + "[queue_name] = @q AND [visible_at] <= @now) AS [ready], (SELECT COUNT_BIG(*) FROM "
                + "[dbo].[sqlq_messages] WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] > @now AND "
                + "[lease_token] IS NOT NULL) AS [in_flight], (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_messages] WITH "
                + "(NOLOCK) WHERE [queue_name] = @q AND [visible_at] > @now AND [lease_token] IS NULL) AS [delayed], "
                + "(SELECT COUNT_BIG(*) FROM [dbo].[sqlq_dead_letters] WITH (NOLOCK) WHERE [queue_name] = @q) AS "
                + "[dead], (SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN([enqueued_at]), @now), 0) FROM "
                + "[dbo].[sqlq_messages] WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] <= @now) AS "
                + "[oldest_ms], (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_history] WITH (NOLOCK) WHERE [queue_name] = @q) "
                + "AS [processed];");
        expected.put("listDeadLetters",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT TOP (?) [message_id], [payload], [headers], [attempts], "
                + "[reason], [enqueued_at], [dead_at] FROM [dbo].[sqlq_dead_letters] WHERE [queue_name] = ? ORDER BY "
                + "[dead_at], [message_id];");
        expected.put("requeueDeadLetter",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_dead_letters] WITH (ROWLOCK) OUTPUT "
                + "deleted.[queue_name], deleted.[priority], SYSUTCDATETIME(), deleted.[enqueued_at], 0, "
                + "deleted.[payload], deleted.[headers] INTO [dbo].[sqlq_messages] ([queue_name], [priority], "
                + "[visible_at], [enqueued_at], [attempts], [payload], [headers]) WHERE [message_id] = ? AND "
                + "[queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        expected.put("requeueDeadLettersBatch",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM [dbo].[sqlq_dead_letters] WITH (ROWLOCK) "
                + "OUTPUT deleted.[queue_name], deleted.[priority], SYSUTCDATETIME(), deleted.[enqueued_at], 0, "
                + "deleted.[payload], deleted.[headers] INTO [dbo].[sqlq_messages] ([queue_name], [priority], "
                + "[visible_at], [enqueued_at], [attempts], [payload], [headers]) WHERE [queue_name] = ?; SELECT "
                + "@@ROWCOUNT AS [n];");
        // issue 31: listings read the first 256 bytes and the length of each payload, never the payload
        String summary = "[message_id], SUBSTRING([payload], 1, 256) AS [payload_preview], DATALENGTH([payload]) AS"
                + " [payload_bytes], [headers], [attempts], [reason], [enqueued_at], [dead_at]";
        expected.put("listDeadLetterSummaries", "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT TOP (?) " + summary
                + " FROM [dbo].[sqlq_dead_letters] WHERE [queue_name] = ? ORDER BY [dead_at], [message_id];");
        expected.put("deadLetterSummaryById", "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT " + summary
                + " FROM [dbo].[sqlq_dead_letters] WHERE [message_id] = ? AND [queue_name] = ?;");
        expected.put("listHistory",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT TOP (?) [message_id], [enqueued_at], [started_at], "
                + "[finished_at], [duration_ms], [attempts], [outcome], [detail], [payload_preview] FROM [dbo].[sqlq_history] WHERE "
                + "[queue_name] = ? ORDER BY [finished_at] DESC, [id] DESC;");
        expected.put("dropSchema",
                "SET NOCOUNT ON; SET XACT_ABORT ON; DROP TABLE IF EXISTS [dbo].[sqlq_dedupe_keys]; DROP TABLE IF EXISTS [dbo].[sqlq_messages]; "
                + "DROP TABLE IF EXISTS [dbo].[sqlq_dead_letters]; DROP TABLE IF EXISTS [dbo].[sqlq_history]; "
                + "DROP TABLE IF EXISTS [dbo].[sqlq_queues]; DROP TABLE IF EXISTS [dbo].[sqlq_settings]; "
                + "DROP TABLE IF EXISTS [dbo].[sqlq_schema_history];");
        String browse = "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT TOP (?) [id], [priority], [enqueued_at], [visible_at], [attempts],"
                + " [lease_token], [started_at], [headers], SUBSTRING([payload], 1, 256) AS [payload_preview], DATALENGTH([payload])"
                + " AS [payload_bytes], [last_error], SYSUTCDATETIME() AS [now] FROM [dbo].[sqlq_messages] WITH (NOLOCK)"
                + " WHERE [queue_name] = ? AND [id] > ? AND ";
        expected.put("listReady", browse + "[visible_at] <= SYSUTCDATETIME() ORDER BY [id];");
        expected.put("listDelayed", browse + "[visible_at] > SYSUTCDATETIME() AND [lease_token] IS NULL ORDER BY [id];");
        expected.put("listInFlight", browse + "[visible_at] > SYSUTCDATETIME() AND [lease_token] IS NOT NULL ORDER BY [id];");
        expected.put("messageById", "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [id], [priority], [enqueued_at], [visible_at],"
                + " [attempts], [lease_token], [started_at], [headers], SUBSTRING([payload], 1, 256) AS [payload_preview],"
                + " DATALENGTH([payload]) AS [payload_bytes], [last_error], SYSUTCDATETIME() AS [now] FROM [dbo].[sqlq_messages]"
                + " WITH (NOLOCK) WHERE [id] = ? AND [queue_name] = ?;");
        expected.put("deleteDeadLetter", "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE FROM [dbo].[sqlq_dead_letters] WITH (ROWLOCK)"
                + " WHERE [message_id] = ? AND [queue_name] = ?; SELECT @@ROWCOUNT AS [n];");
        // QueueAdmin.pause and resume (migration V4)
        expected.put("pauseQueue", "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_queues] WITH (ROWLOCK) SET [paused] = 1"
                + " WHERE [name] = ? AND [paused] = 0; SELECT @@ROWCOUNT AS [n];");
        expected.put("resumeQueue", "SET NOCOUNT ON; SET XACT_ABORT ON; UPDATE [dbo].[sqlq_queues] WITH (ROWLOCK) SET [paused] = 0"
                + " WHERE [name] = ? AND [paused] = 1; SELECT @@ROWCOUNT AS [n];");
        expected.put("queuePaused", "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [paused] FROM [dbo].[sqlq_queues] WHERE [name] = ?;");
        expected.put("leaseQueue",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [queue_name] FROM [dbo].[sqlq_messages] WITH (ROWLOCK) "
                + "WHERE [id] = ? AND [lease_token] = ?;");
        // issue 35: ready, delayed, a dead mover's (negative token) or lease-ended rows; held for the lease or the delay,
        // whichever is later; no attempt counted; the delay left, by the database clock
        expected.put("moveClaim", "SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED;"
                + " DECLARE @n int = ?; DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?; WITH [move] AS (SELECT TOP (@n)"
                + " [id], [priority], [enqueued_at], [visible_at], [attempts], [claim_count], [lease_token], [started_at], [payload],"
                + " [headers] FROM [dbo].[sqlq_messages] WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK, FORCESEEK, INDEX"
                + " ([sqlq_messages_claim])) WHERE [queue_name] = @q AND ([lease_token] IS NULL OR [lease_token] < 0 OR"
                + " [visible_at] <= SYSUTCDATETIME()) ORDER BY [visible_at], [id]) UPDATE [move] SET [claim_count] ="
                + " [claim_count] + 1, [lease_token] = -([claim_count] + 1), [started_at] = CASE WHEN [lease_token] < 0 THEN"
                + " [started_at] ELSE [visible_at] END, [visible_at] = CASE WHEN [visible_at] >"
                + " DATEADD(millisecond, @lease, SYSUTCDATETIME()) THEN [visible_at] ELSE DATEADD(millisecond, @lease,"
                + " SYSUTCDATETIME()) END OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts], inserted.[priority],"
                + " inserted.[enqueued_at], inserted.[started_at] AS [prior_visible_at], SYSUTCDATETIME() AS [claimed_at],"
                + " inserted.[payload], inserted.[headers];");
        expected.put("readSettings",
                "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT [name], [value] FROM [dbo].[sqlq_settings];");
        expected.put("serverVersion",
                "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS [version], "
                + "CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS [edition];");
        assertEquals(expected.keySet(), sql.all().keySet(), "every statement is pinned, none unpinned");
        expected.forEach((name, text) -> assertEquals(text, sql.get(name), "statement " + name));
    }

    /** The claim of every ordering, whole (review finding 3 and tests gap 3: not only the ORDER BY). */
    @Test
    void claimTextOfEveryOrderingIsPinnedWhole() {
        String head = "SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; WITH [claim] AS "
                + "(SELECT TOP (?) [id], [priority], [enqueued_at], [visible_at], [attempts], [claim_count], [lease_token], "
                + "[started_at], [payload], [headers] FROM [dbo].[sqlq_messages] WITH (ROWLOCK, READPAST, UPDLOCK, "
                + "READCOMMITTEDLOCK, FORCESEEK, INDEX ([sqlq_messages_claim])) WHERE [queue_name] = ? AND "
                + "[visible_at] <= SYSUTCDATETIME() AND NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_queues] AS [p] WHERE [p].[paused] = 1 AND [p].[name] = [queue_name]) ORDER BY ";
        String tail = ") UPDATE [claim] SET [attempts] = [attempts] + 1, [claim_count] = [claim_count] + 1, "
                + "[lease_token] = [claim_count] + 1, [visible_at] = DATEADD(millisecond, ?, SYSUTCDATETIME()), "
                + "[started_at] = SYSUTCDATETIME() OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts], "
                + "inserted.[priority], inserted.[enqueued_at], deleted.[visible_at] AS [prior_visible_at], "
                + "inserted.[payload], inserted.[headers];";
        assertEquals(head + "[visible_at], [id]" + tail, sql.get("claim"));
        assertEquals(head + "[visible_at] DESC, [id] DESC" + tail,
                new SqlServerStatements("sqlq_", "dbo", ClaimOrder.LIFO).get("claim"));
        assertEquals(head + "[priority] DESC, [visible_at], [id]" + tail,
                new SqlServerStatements("sqlq_", "dbo", ClaimOrder.PRIORITY_FIRST).get("claim"));
    }

    /**
     * The claim Babelfish can run (it cannot UPDATE through a CTE: babelfish_extensions issue 2920), whole; the
     * other statements are the same text on both engines.
     */
    @Test
    void babelfishClaimIsPinnedWholeAndTheOtherStatementsAreTheSame() {
        SqlServerStatements bf = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO, SqlServerEngine.BABELFISH);
        String t = "[dbo].[sqlq_messages]";
        assertEquals("SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; DECLARE @n int = ?;"
                + " DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?; UPDATE " + t + " SET " + t + ".[attempts] = " + t
                + ".[attempts] + 1, " + t + ".[claim_count] = " + t + ".[claim_count] + 1, " + t + ".[lease_token] = " + t
                + ".[claim_count] + 1, " + t + ".[visible_at] = DATEADD(millisecond, @lease, SYSUTCDATETIME()), " + t
                + ".[started_at] = SYSUTCDATETIME() OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts],"
                + " inserted.[priority], inserted.[enqueued_at], deleted.[visible_at] AS [prior_visible_at], inserted.[payload],"
                + " inserted.[headers] WHERE " + t + ".[queue_name] = @q AND " + t + ".[visible_at] <= SYSUTCDATETIME() AND " + t
                + ".[id] IN (SELECT TOP (@n) [c].[id] FROM " + t + " AS [c] WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK,"
                + " FORCESEEK, INDEX ([sqlq_messages_claim])) WHERE [c].[queue_name] = @q AND [c].[visible_at] <= SYSUTCDATETIME()"
                + " AND NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_queues] AS [p] WHERE [p].[paused] = 1 AND [p].[name] = @q) ORDER BY [visible_at], [id]);", bf.get("claim"));
        // the move claim (issue 35) in the same form
        assertEquals("SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; DECLARE @n int = ?;"
                + " DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?; UPDATE " + t + " SET " + t + ".[claim_count] = " + t
                + ".[claim_count] + 1, " + t + ".[lease_token] = -(" + t + ".[claim_count] + 1), " + t + ".[started_at] = CASE"
                + " WHEN " + t + ".[lease_token] < 0 THEN " + t + ".[started_at] ELSE " + t + ".[visible_at] END, " + t + ".[visible_at] = CASE"
                + " WHEN " + t + ".[visible_at] > DATEADD(millisecond, @lease, SYSUTCDATETIME()) THEN " + t + ".[visible_at]"
                + " ELSE DATEADD(millisecond, @lease, SYSUTCDATETIME()) END OUTPUT inserted.[id], inserted.[lease_token],"
                + " inserted.[attempts], inserted.[priority], inserted.[enqueued_at], inserted.[started_at] AS [prior_visible_at],"
                + " SYSUTCDATETIME() AS [claimed_at], inserted.[payload], inserted.[headers] WHERE " + t + ".[queue_name] = @q"
                + " AND (" + t + ".[lease_token] IS NULL OR " + t + ".[lease_token] < 0 OR " + t + ".[visible_at] <="
                + " SYSUTCDATETIME()) AND " + t + ".[id] IN (SELECT TOP (@n) [c].[id] FROM " + t + " AS [c] WITH (ROWLOCK,"
                + " READPAST, UPDLOCK, READCOMMITTEDLOCK, FORCESEEK, INDEX ([sqlq_messages_claim])) WHERE [c].[queue_name] = @q"
                + " AND ([c].[lease_token] IS NULL OR [c].[lease_token] < 0 OR [c].[visible_at] <= SYSUTCDATETIME())"
                + " ORDER BY [visible_at], [id]);", bf.get("moveClaim"));
        sql.all().forEach((name, text) -> {
            if (!name.equals("claim") && !name.equals("moveClaim")) {
                assertEquals(text, bf.get(name), name);
            }
        });
        assertTrue(!sql.get("claim").equals(bf.get("claim")));
    }

    /**
     * Review finding 3: the claim's seek is forced onto the claim index (its name comes from the same
     * source as the migration's index name), so no plan compiled on a near-empty table can scan and
     * U-lock the backlog; a missing index fails with error 8622 instead of scanning.
     */
    @Test
    void claimForcesASeekOnTheClaimIndexInEveryOrderingAndPrefix() {
        for (ClaimOrder o : ClaimOrder.values()) {
            SqlServerStatements s = new SqlServerStatements("my_q_", "ops", o);
            String index = s.placeholders(SqlServerOptions.Layout.HEAP).get("claim_index");
            assertEquals("[my_q_messages_claim]", index);
            assertTrue(s.get("claim").contains("FROM [ops].[my_q_messages] WITH (ROWLOCK, READPAST, UPDLOCK, "
                    + "READCOMMITTEDLOCK, FORCESEEK, INDEX (" + index + ")) WHERE"), o.key());
            assertTrue(!s.get("claim").contains("FORCESEEK ("), "the parameterized form is not allowed on an UPDATE's target");
        }
    }

    /**
     * Review finding 1: the statement run on the caller's connection carries no SET at all (a SET in a
     * plain batch stays on the session); the backend's own statements keep the prelude.
     */
    @Test
    void backendStatementsStartWithNocountAndXactAbortButTheJoinedEnqueueSetsNothing() {
        sql.all().forEach((name, text) -> {
            if (name.equals("enqueueKeyedJoined")) {
                assertTrue(text.startsWith("DECLARE @q "), "joined keyed enqueue sets no session option");
                assertTrue(!text.contains("SET NOCOUNT") && !text.contains("SET XACT_ABORT"), "joined keyed enqueue sets no session option");
            } else if (name.equals("enqueueKeyed") || name.equals("takeKey")) {
                // review N1: a duplicate-key error must stay a statement-level error their CATCH answers
                assertTrue(text.startsWith("SET NOCOUNT ON; SET XACT_ABORT OFF; "), name);
            } else if (name.equals("enqueueJoined")) {
                assertTrue(text.startsWith("INSERT INTO "), "joined enqueue sets no session option");
                assertTrue(!text.contains("SET "), "joined enqueue sets no session option");
            } else if (!name.equals("serverVersion")) {
                assertTrue(text.startsWith("SET NOCOUNT ON; SET XACT_ABORT ON; "), name);
            }
        });
    }

    /** Review finding 9: the claim sets READ COMMITTED itself instead of trusting the driver's cached level. */
    @Test
    void claimSetsReadCommittedInsideItsOwnBatch() {
        for (ClaimOrder o : ClaimOrder.values()) {
            assertTrue(new SqlServerStatements("sqlq_", "dbo", o).get("claim")
                    .startsWith("SET NOCOUNT ON; SET XACT_ABORT ON; SET TRANSACTION ISOLATION LEVEL READ COMMITTED; WITH"));
        }
    }

    @Test
    void queueTableStatementsKeepRowlockAndClaimHasAllFourHints() {
        sql.all().forEach((name, text) -> {
            boolean writes = text.contains("DELETE ") || text.contains("UPDATE ");
            if (writes && text.contains("[dbo].[sqlq_messages]") && !name.equals("requeueDeadLetter")
                    && !name.equals("requeueDeadLettersBatch")) {
                assertTrue(text.contains("ROWLOCK"), name + " touches the message table with ROWLOCK");
            }
        });
        assertTrue(sql.get("claim").contains("WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK, FORCESEEK, INDEX ("));
    }

    @Test
    void reservedWordAndBracketNamesAreQuotedEverywhere() {
        SqlServerStatements odd = new SqlServerStatements("order_", "select", ClaimOrder.FIFO);
        assertTrue(odd.get("ack").contains("DELETE FROM [select].[order_messages] WITH (ROWLOCK)"));
        assertEquals("[select].[order_messages]", odd.placeholders(SqlServerOptions.Layout.HEAP).get("messages"));
    }

    @Test
    void nameOfMapsTextBackToItsName() {
        assertEquals("purgeBatch", sql.nameOf(sql.get("purgeBatch")));
        assertNull(sql.nameOf("SELECT 1"));
    }

    @Test
    void placeholdersCarryPrefixedQuotedNamesAndLayout() {
        Map<String, String> p = sql.placeholders(SqlServerOptions.Layout.HEAP);
        assertEquals("[dbo].[sqlq_messages]", p.get("messages"));
        assertEquals("[sqlq_messages_claim]", p.get("claim_index"));
        assertEquals("NONCLUSTERED", p.get("pk_kind"));
        assertEquals("[visible_at], [id]", p.get("claim_key"));
        assertEquals("sqlq_schema_history", sql.flywayTable());
    }
}
