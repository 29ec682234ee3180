package dev.sqlqueue.sqlserver.broker;

import java.util.Collections;

/**
 * The dead-letter table and the history of processed messages (seed 001): written in a claim's or the
 * sweeper's transaction, listed, requeued page by page, purged, pruned in batches. Run by {@link
 * DeadLetterStore}, {@link BrokerClaim}, {@link BrokerReceiver}, {@link BrokerSweeper} and the backend.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class DeadLetterStatements {
    private final BrokerNames n;

    DeadLetterStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Parameters: queue name, message id, payload, headers text, attempts, reason, enqueue time in ms
     * since 1970 (database clock, from the envelope) or null when unknown, message group or null.
     *
     * @return the T-SQL text
     */
    public String insertDeadLetter() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @p varbinary(max) = ?, @hd nvarchar(max) = ?,"
                + " @a int = ?, @r nvarchar(4000) = ?, @ms bigint = ?, @g nvarchar(128) = ?; INSERT INTO " + n.deadTable()
                + " (queue_name, message_id, payload, headers, attempts, reason, enqueued_at, group_key) VALUES (@q, @id, @p, @hd, @a, @r, "
                + BrokerStatements.fromMillis("@ms") + ", @g);";
    }

    /**
     * Parameters: limit, queue name. Oldest first.
     *
     * @return the T-SQL text
     */
    public String listDeadLetters() {
        return "SELECT TOP (?) dead_id, message_id, payload, headers, attempts, reason,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", dead_at) AS dead_ms, group_key FROM " + n.deadTable()
                + " WHERE queue_name = ? ORDER BY dead_id";
    }

    /**
     * Listings (issue 31): the first bytes of each payload and its length, never the payload. Parameters: limit,
     * queue name. Columns: dead_id, message_id, payload_preview, headers, attempts, reason, enqueued_ms, dead_ms,
     * group_key, payload_bytes. Oldest first.
     *
     * @return the T-SQL text
     */
    public String listDeadLetterSummaries() {
        return "SELECT TOP (?) " + summaryColumns() + " FROM " + n.deadTable() + " WHERE queue_name = ? ORDER BY dead_id";
    }

    /**
     * As {@link #listDeadLetterSummaries} for the queue's dead letters with {@code count} (1..500) message ids.
     *
     * @param count how many message ids the statement takes as parameters, 1..500
     * @return the T-SQL text
     * @throws IllegalArgumentException if {@code count} is outside 1..500
     */
    public String deadLetterSummariesByIds(int count) {
        if (count < 1 || count > 500) {
            throw new IllegalArgumentException("count must be 1..500");
        }
        return "SELECT " + summaryColumns() + " FROM " + n.deadTable() + " WHERE queue_name = ?"
                + " AND message_id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ") ORDER BY dead_id";
    }

    private String summaryColumns() {
        return "dead_id, message_id, SUBSTRING(payload, 1, " + dev.sqlqueue.DeadLetterSummary.PREVIEW_BYTES
                + ") AS payload_preview, headers, attempts, reason,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", dead_at) AS dead_ms, group_key,"
                + " DATALENGTH(payload) AS payload_bytes";
    }

    private String deadLetterColumns() {
        return "dead_id, message_id, payload, headers, attempts, reason,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", dead_at) AS dead_ms, group_key";
    }

    /**
     * Requeue of given ids (N12): the queue's dead letters with these message ids, U-locked until the requeue
     * commits so a second requeue waits and then finds them gone. Parameters: queue name, then {@code count}
     * message ids (1..500). Columns as {@link #listDeadLetters}.
     *
     * @param count how many message ids the statement takes as parameters, 1..500
     * @return the T-SQL text
     * @throws IllegalArgumentException if {@code count} is outside 1..500
     */
    public String deadLettersByIds(int count) {
        if (count < 1 || count > 500) {
            throw new IllegalArgumentException("count must be 1..500");
        }
        return "SELECT " + deadLetterColumns() + " FROM " + n.deadTable() + " WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ?"
                + " AND message_id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ") ORDER BY dead_id";
    }

    /**
     * One row: last_id, the queue's highest dead_id now (NULL when it has none): a requeue of all stops there. Parameter: queue name.
     *
     * @return the T-SQL text
     */
    public String lastDeadId() {
        return "SELECT MAX(dead_id) AS last_id FROM " + n.deadTable() + " WHERE queue_name = ?";
    }

    /**
     * Requeue of all (N12): the next page of the queue's dead letters, oldest first, U-locked as
     * {@link #deadLettersByIds}. Parameters: page size, queue name, the last dead_id of the previous page (0
     * for the first), the last dead_id to take. Columns as {@link #listDeadLetters}.
     *
     * @return the T-SQL text
     */
    public String deadLetterPage() {
        return "SELECT TOP (?) " + deadLetterColumns() + " FROM " + n.deadTable() + " WITH (UPDLOCK, ROWLOCK) WHERE queue_name = ?"
                + " AND dead_id > ? AND dead_id <= ? ORDER BY dead_id";
    }

    /**
     * Parameter: dead_id.
     *
     * @return the T-SQL text
     */
    public String deleteDeadLetter() {
        return "DELETE FROM " + n.deadTable() + " WHERE dead_id = ?";
    }

    /**
     * Parameter: queue name.
     *
     * @return the T-SQL text
     */
    public String purgeDeadLetters() {
        return "DELETE FROM " + n.deadTable() + " WHERE queue_name = ?";
    }

    /**
     * Records a processed message in the claim's transaction; finished_at is the database clock at
     * insert. Parameters: queue name, message id, enqueue time (ms since 1970), receive time (ms since
     * 1970, from the RECEIVE), attempts, outcome ({@code acked} or {@code dead-lettered}), detail or null.
     *
     * @return the T-SQL text
     */
    public String insertHistory() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @e bigint = ?, @s bigint = ?, @a int = ?, @o nvarchar(16) = ?,"
                + " @d nvarchar(4000) = ?; INSERT INTO " + n.historyTable()
                + " (queue_name, message_id, enqueued_at, started_at, attempts, outcome, detail) VALUES (@q, @id, "
                + BrokerStatements.fromMillis("@e") + ", " + BrokerStatements.fromMillis("@s") + ", @a, @o, @d);";
    }

    /**
     * Parameters: limit, queue name. Newest first. Columns: message_id, enqueued_ms, started_ms,
     * finished_ms, duration_ms, attempts, outcome, detail.
     *
     * @return the T-SQL text
     */
    public String listHistory() {
        return "SELECT TOP (?) message_id, DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", enqueued_at) AS enqueued_ms,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", started_at) AS started_ms,"
                + " DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", finished_at) AS finished_ms, duration_ms, attempts, outcome, detail"
                + " FROM " + n.historyTable() + " WHERE queue_name = ? ORDER BY history_id DESC";
    }

    /**
     * The age prune's cutoff, read once per prune (re-review N3): the database clock minus the age, in ms
     * since 1970. Parameters: minus the age's whole seconds, minus its millisecond part (DATEADD takes an int
     * each). One row: cutoff_ms.
     *
     * @return the T-SQL text
     */
    public String historyAgeCutoff() {
        return "SELECT DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME())))"
                + " AS cutoff_ms";
    }

    /**
     * One batch of the age prune: at most {@code n} rows of the queue that finished at or before the cutoff,
     * through {@code ix_finished}, with row locks (500 stays far below the 5,000 locks at which SQL Server
     * tries to escalate: "Lock escalation"). Parameters: batch size, queue name, cutoff in ms since 1970.
     *
     * @return the T-SQL text
     */
    public String pruneHistoryBefore() {
        return "DECLARE @n int = ?, @q nvarchar(48) = ?, @c bigint = ?; DELETE TOP (@n) FROM " + n.historyTable()
                + " WITH (ROWLOCK) WHERE queue_name = @q AND finished_at <= " + BrokerStatements.fromMillis("@c") + ";";
    }

    /**
     * The rows prune's cutoff, read once per prune: the smallest history_id of the queue's {@code maxRows}
     * newest rows (NULL when the queue has none). Parameters: rows kept (at least 1), queue name. One row:
     * keep_from.
     *
     * @return the T-SQL text
     */
    public String historyRowsCutoff() {
        return "SELECT MIN(k.history_id) AS keep_from FROM (SELECT TOP (?) history_id FROM " + n.historyTable()
                + " WHERE queue_name = ? ORDER BY history_id DESC) AS k";
    }

    /**
     * One batch of the rows prune: at most {@code n} rows of the queue older than the cutoff, through
     * {@code ix_queue}. Parameters: batch size, queue name, the first history_id kept.
     *
     * @return the T-SQL text
     */
    public String pruneHistoryRowsBelow() {
        return "DECLARE @n int = ?, @q nvarchar(48) = ?, @keep bigint = ?; DELETE TOP (@n) FROM " + n.historyTable()
                + " WITH (ROWLOCK) WHERE queue_name = @q AND history_id < @keep;";
    }
}
