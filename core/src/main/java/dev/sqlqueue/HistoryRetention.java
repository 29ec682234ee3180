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
    /**
     * Checks the limits.
     *
     * @param maxAge keep rows that finished less than this long ago; null for no age limit; at least 1 ms
     * @param maxRows keep at most this many rows per queue, newest first; null for no row limit; 0 or more
     * @throws InvalidInputException (rule {@code history-retention.empty}) when both are null,
     *     ({@code history-retention.age}) for an age under 1 ms, ({@code history-retention.rows}) for a negative count
     */
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

    /**
     * Keep rows that finished less than {@code maxAge} ago.
     *
     * @param maxAge at least 1 ms
     * @return a retention without a row limit
     * @throws InvalidInputException (rule {@code history-retention.empty} or {@code history-retention.age}) for null or under 1 ms
     */
    public static HistoryRetention ofAge(Duration maxAge) {
        return new HistoryRetention(maxAge, null);
    }

    /**
     * Keep the newest {@code maxRows} rows of each queue.
     *
     * @param maxRows 0 or more
     * @return a retention without an age limit
     * @throws InvalidInputException (rule {@code history-retention.rows}) for a negative count
     */
    public static HistoryRetention ofRows(long maxRows) {
        return new HistoryRetention(null, maxRows);
    }

    /**
     * This retention with a row limit as well.
     *
     * @param rows keep at most this many rows per queue, 0 or more
     * @return a new retention with this row limit and this one's age limit
     * @throws InvalidInputException (rule {@code history-retention.rows}) for a negative count
     */
    public HistoryRetention withMaxRows(long rows) {
        return new HistoryRetention(maxAge, rows);
    }
}
