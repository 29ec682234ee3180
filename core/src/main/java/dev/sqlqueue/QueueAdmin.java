package dev.sqlqueue;

import java.util.List;

/**
 * Driving port: administration. Thread-safe.
 */
public interface QueueAdmin {
    /** Create the backend's schema objects if missing (idempotent; Flyway where supported). */
    void migrate();

    /** Create the queue if missing (idempotent). */
    void createQueue(QueueName queue);

    /** Remove the queue, its messages, dead letters and history; other queues are untouched. */
    void dropQueue(QueueName queue);

    /** Delete every message of the queue (not its dead letters); returns how many. */
    long purge(QueueName queue);

    /** The queues that exist, sorted by name. */
    List<QueueName> queues();

    QueueStats stats(QueueName queue);

    /** Up to {@code limit} dead letters of the queue, oldest first. */
    List<DeadLetter> deadLetters(QueueName queue, int limit);

    /**
     * Put dead letters back on their queue with the attempt count reset; {@code messageIds} empty
     * means all of the queue's dead letters. Returns how many were requeued.
     *
     * @throws InvalidInputException (rule {@code dlq.ids}) if {@code messageIds} is null or holds null
     */
    long requeueDeadLetters(QueueName queue, List<Long> messageIds);

    /** Delete the queue's dead letters; returns how many. */
    long purgeDeadLetters(QueueName queue);

    /** The newest {@code limit} history rows of the queue, newest first (empty when history is off). */
    List<HistoryEntry> history(QueueName queue, int limit);

    /**
     * Delete the queue's history rows that {@code retention} does not keep: rows that finished
     * {@link HistoryRetention#maxAge()} or longer ago (database clock), and rows beyond the newest
     * {@link HistoryRetention#maxRows()} (by insertion order). Messages, dead letters and other queues are
     * untouched. Safe to call from several processes at once (each deletes what is still there).
     *
     * @return the number of rows deleted (0 when history is off or nothing is old enough)
     * @throws UnsupportedCapabilityException if the backend keeps no history
     *     ({@link Capability#HISTORY}) or cannot prune it yet
     */
    default long pruneHistory(QueueName queue, HistoryRetention retention) {
        throw new UnsupportedCapabilityException(Capability.HISTORY, getClass().getSimpleName(), "history pruning");
    }
}
