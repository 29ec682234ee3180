package dev.sqlqueue;

/**
 * A history row with its id in the history table, as {@link QueueAdmin#historyForMove} reads it for a move.
 *
 * @param historyId the row's id in the queue's history table (ascending in insertion order)
 * @param entry the row
 */
public record HistoryRow(long historyId, HistoryEntry entry) {
    /**
     * Checks the entry.
     *
     * @param historyId the row's id in the queue's history table
     * @param entry the row
     * @throws NullPointerException if {@code entry} is null
     */
    public HistoryRow {
        java.util.Objects.requireNonNull(entry, "entry");
    }
}
