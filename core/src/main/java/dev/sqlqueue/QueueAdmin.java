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

    /**
     * Up to {@code limit} dead letters of the queue, oldest first, payloads whole: memory grows with the payloads'
     * sizes. To list them, {@link #deadLetterSummaries(QueueName, int)}.
     */
    List<DeadLetter> deadLetters(QueueName queue, int limit);

    /**
     * Up to {@code limit} (1..100,000) dead letters of the queue, oldest first, each with at most
     * {@link DeadLetterSummary#PREVIEW_BYTES} of its payload and the payload's length: what a listing needs, read in
     * time and memory that do not depend on the payloads' sizes. The H2, PostgreSQL, MariaDB and SQL Server backends
     * (queue tables and Service Broker) read the previews in SQL; this default reads whole payloads and cuts them.
     *
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..100,000
     */
    default List<DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return deadLetters(queue, limit).stream().map(DeadLetterSummary::of).toList();
    }

    /**
     * The dead letters of the queue among {@code messageIds} (at most 10,000 ids), as summaries (see
     * {@link #deadLetterSummaries(QueueName, int)}), oldest first; ids that are no dead letters of the queue are left
     * out. This default lists the whole queue ({@link #deadLetters}, at most 100,000) and filters.
     *
     * @throws InvalidInputException (rule {@code dlq.ids}) for null, a null id or more than 10,000 ids
     */
    default List<DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        java.util.Set<Long> wanted = java.util.Set.copyOf(messageIds);
        return deadLetters(queue, 100_000).stream().filter(d -> wanted.contains(d.messageId())).map(DeadLetterSummary::of)
                .toList();
    }

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
