package dev.sqlqueue;

import java.time.Duration;

/**
 * How much of a queue's history {@link QueueAdmin#pruneHistory} keeps: rows that finished within
 * {@code maxAge} (database clock), and at most the newest {@code maxRows} rows. A null limit does not
 * apply; with both, a row must pass both to stay. Immutable.
 *
 * @param maxAge keep rows that finished less than this long ago; null for no age limit; at least 1 ms
 * @param maxRows keep at most this many rows per queue, newest first; null for no row limit; 0 or more
 */
public record HistoryRetention(Duration maxAge, Long maxRows) {
    public HistoryRetention {
        if (maxAge == null && maxRows == null) {
            throw new InvalidInputException("history-retention.empty", "a history retention needs a maximum age, a maximum row count, or both");
        }
        if (maxAge != null && maxAge.toMillis() < 1) {
            throw new InvalidInputException("history-retention.age", "the history's maximum age must be at least 1 ms, was " + maxAge);
        }
        if (maxRows != null && maxRows < 0) {
            throw new InvalidInputException("history-retention.rows", "the history's maximum row count must be 0 or more, was " + maxRows);
        }
    }

    /** Keep rows that finished less than {@code maxAge} ago. */
    public static HistoryRetention ofAge(Duration maxAge) {
        return new HistoryRetention(maxAge, null);
    }

    /** Keep the newest {@code maxRows} rows of each queue. */
    public static HistoryRetention ofRows(long maxRows) {
        return new HistoryRetention(null, maxRows);
    }

    /** This retention with a row limit as well. */
    public HistoryRetention withMaxRows(long rows) {
        return new HistoryRetention(maxAge, rows);
    }
}
