package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link DeadLetterStatements} (dead letters and history) for
 * prefix {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what was reviewed
 * against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class DeadLetterStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textInsertDeadLetter() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @p varbinary(max) = ?, @hd nvarchar(max) = ?, @a int = "
                + "?, @r nvarchar(4000) = ?, @ms bigint = ?, @g nvarchar(128) = ?; INSERT INTO [dbo].[sqlq_bk_dead] (qu"
                + "eue_name, message_id, payload, headers, attempts, reason, enqueued_at, group_key) VALUES (@q, @id, @"
                + "p, @hd, @a, @r, DATEADD(millisecond, CAST(@ms % 86400000 AS int), DATEADD(day, CAST(@ms / 86400000 A"
                + "S int), CAST('19700101' AS datetime2(3)))), @g);",
                s.deadLetters().insertDeadLetter());
    }

    @Test
    void textListDeadLetters() {
        assertEquals("SELECT TOP (?) dead_id, message_id, payload, headers, attempts, reason, DATEDIFF_BIG(millisecond, CA"
                + "ST('19700101' AS datetime2(3)), enqueued_at) AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('1970010"
                + "1' AS datetime2(3)), dead_at) AS dead_ms, group_key FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ? O"
                + "RDER BY dead_id",
                s.deadLetters().listDeadLetters());
    }

    @Test
    void textRequeueSelections() {
        String columns = "dead_id, message_id, payload, headers, attempts, reason, DATEDIFF_BIG(millisecond, CAST('19700101' AS"
                + " datetime2(3)), enqueued_at) AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), dead_at)"
                + " AS dead_ms, group_key";
        assertEquals("SELECT " + columns + " FROM [dbo].[sqlq_bk_dead] WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ? AND message_id"
                + " IN (?, ?) ORDER BY dead_id", s.deadLetters().deadLettersByIds(2));
        assertEquals("SELECT MAX(dead_id) AS last_id FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?", s.deadLetters().lastDeadId());
        assertEquals("SELECT TOP (?) " + columns + " FROM [dbo].[sqlq_bk_dead] WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ? AND"
                + " dead_id > ? AND dead_id <= ? ORDER BY dead_id", s.deadLetters().deadLetterPage());
        assertThrows(IllegalArgumentException.class, () -> s.deadLetters().deadLettersByIds(501));
    }

    @Test
    void textDeleteDeadLetter() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_dead] WHERE dead_id = ?",
                s.deadLetters().deleteDeadLetter());
    }

    @Test
    void textPurgeDeadLetters() {
        assertEquals("DELETE FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?",
                s.deadLetters().purgeDeadLetters());
    }

    @Test
    void textInsertHistory() {
        assertEquals("DECLARE @q nvarchar(48) = ?, @id bigint = ?, @e bigint = ?, @s bigint = ?, @a int = ?, @o nvarchar(1"
                + "6) = ?, @d nvarchar(4000) = ?; INSERT INTO [dbo].[sqlq_bk_history] (queue_name, message_id, enqueued"
                + "_at, started_at, attempts, outcome, detail) VALUES (@q, @id, DATEADD(millisecond, CAST(@e % 86400000"
                + " AS int), DATEADD(day, CAST(@e / 86400000 AS int), CAST('19700101' AS datetime2(3)))), DATEADD(milli"
                + "second, CAST(@s % 86400000 AS int), DATEADD(day, CAST(@s / 86400000 AS int), CAST('19700101' AS date"
                + "time2(3)))), @a, @o, @d);",
                s.deadLetters().insertHistory());
    }

    @Test
    void textListHistory() {
        assertEquals("SELECT TOP (?) message_id, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), enqueued_at) "
                + "AS enqueued_ms, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), started_at) AS started_m"
                + "s, DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), finished_at) AS finished_ms, duration"
                + "_ms, attempts, outcome, detail FROM [dbo].[sqlq_bk_history] WHERE queue_name = ? ORDER BY history_id"
                + " DESC",
                s.deadLetters().listHistory());
    }

    @Test
    void textPruneHistoryByAge() {
        assertEquals("SELECT DATEDIFF_BIG(millisecond, CAST('19700101' AS datetime2(3)), DATEADD(second, ?, DATEADD(millisecond,"
                + " ?, SYSUTCDATETIME()))) AS cutoff_ms", s.deadLetters().historyAgeCutoff());
        assertEquals("DECLARE @n int = ?, @q nvarchar(48) = ?, @c bigint = ?; DELETE TOP (@n) FROM [dbo].[sqlq_bk_history] WITH"
                + " (ROWLOCK) WHERE queue_name = @q AND finished_at <= DATEADD(millisecond, CAST(@c % 86400000 AS int), DATEADD(day,"
                + " CAST(@c / 86400000 AS int), CAST('19700101' AS datetime2(3))));", s.deadLetters().pruneHistoryBefore());
        assertEquals("IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE object_id = OBJECT_ID(N'dbo.sqlq_bk_history') AND name ="
                + " N'ix_finished') CREATE INDEX [ix_finished] ON [dbo].[sqlq_bk_history] (queue_name, finished_at)",
                s.schema().createHistoryFinishedIndex());
    }

    @Test
    void textPruneHistoryByRows() {
        assertEquals("SELECT MIN(k.history_id) AS keep_from FROM (SELECT TOP (?) history_id FROM [dbo].[sqlq_bk_history] WHERE"
                + " queue_name = ? ORDER BY history_id DESC) AS k", s.deadLetters().historyRowsCutoff());
        assertEquals("DECLARE @n int = ?, @q nvarchar(48) = ?, @keep bigint = ?; DELETE TOP (@n) FROM [dbo].[sqlq_bk_history] WITH"
                + " (ROWLOCK) WHERE queue_name = @q AND history_id < @keep;", s.deadLetters().pruneHistoryRowsBelow());
    }
}
