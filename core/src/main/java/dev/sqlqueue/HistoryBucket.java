package dev.sqlqueue;

import java.time.Instant;

/**
 * The history rows of one queue that finished in one time bucket ({@link QueueAdmin#historyBuckets}): how many were
 * acked and how many ended otherwise (dead-lettered), and the mean enqueue-to-finish latency of the acked ones. Times
 * on the database clock.
 *
 * @param start the bucket's start (inclusive); it ends one bucket width later
 * @param acked rows with outcome {@code acked}
 * @param deadLettered the other rows
 * @param meanAckLatencyMillis mean of {@code finishedAt - enqueuedAt} over the acked rows, ms; null when none was acked
 */
public record HistoryBucket(Instant start, long acked, long deadLettered, Double meanAckLatencyMillis) {
}
