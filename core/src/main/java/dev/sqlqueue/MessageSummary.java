package dev.sqlqueue;

import java.time.Instant;
import java.util.Map;

/**
 * A message on its queue as a listing shows it ({@link QueueAdmin#messages}, {@link QueueAdmin#message}): everything
 * but the payload, of which it carries the first {@link DeadLetterSummary#PREVIEW_BYTES} bytes and the length, so a
 * listing never reads whole payloads (issue 31). Times are on the database clock.
 *
 * @param messageId the message id
 * @param queue its queue
 * @param state ready, delayed or in flight at {@code readAt}
 * @param priority its priority
 * @param enqueuedAt when it was enqueued
 * @param visibleAt when it becomes (or became) visible: for a message in flight, when its lease runs out
 * @param attempts deliveries so far (the one in flight included)
 * @param leaseToken the fencing token of the lease holding it, or null when no lease-mode claim took it; the library
 *     records no worker name, so this token (also in the holder's receipt) is what identifies the holder
 * @param claimedAt when the last lease-mode claim took it, or null
 * @param headers its headers; empty when they could not be decoded (see {@code rawHeaders})
 * @param rawHeaders the headers as stored
 * @param payloadPreview the payload's first bytes, at most {@link DeadLetterSummary#PREVIEW_BYTES}
 * @param payloadBytes the payload's length in bytes
 * @param group its message group, or null
 * @param lastError the error of its last nack, or null
 * @param readAt the database clock when this was read: {@code visibleAt - readAt} is the lease time left
 */
public record MessageSummary(long messageId, QueueName queue, MessageState state, int priority, Instant enqueuedAt,
                             Instant visibleAt, int attempts, Long leaseToken, Instant claimedAt,
                             Map<String, String> headers, String rawHeaders, byte[] payloadPreview, long payloadBytes,
                             String group, String lastError, Instant readAt) {
    /**
     * Milliseconds until {@link #visibleAt()} at {@link #readAt()}: the lease left of a message in flight; 0 when past.
     *
     * @return milliseconds, 0 or more
     */
    public long millisLeft() {
        return Math.max(0, visibleAt.toEpochMilli() - readAt.toEpochMilli());
    }
}
