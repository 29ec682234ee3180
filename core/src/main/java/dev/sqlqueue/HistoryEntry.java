package dev.sqlqueue;

import java.time.Instant;

/**
 * One processed message in the optional history (seed 001's start, end and duration).
 *
 * @param messageId the message id
 * @param queue its queue
 * @param enqueuedAt enqueue time (database clock)
 * @param startedAt when the final, successful or dead-lettering, delivery was claimed
 * @param finishedAt when it was acked or dead-lettered
 * @param durationMillis finishedAt - startedAt in ms, computed by the database
 * @param attempts deliveries in all
 * @param outcome {@code acked} or {@code dead-lettered}
 * @param detail the handler's note on success (for example an exit code) or the last error
 */
public record HistoryEntry(long messageId, QueueName queue, Instant enqueuedAt, Instant startedAt,
                           Instant finishedAt, long durationMillis, int attempts, String outcome, String detail) {
}
