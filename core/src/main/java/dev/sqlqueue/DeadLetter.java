package dev.sqlqueue;

import java.time.Instant;
import java.util.Map;

/**
 * A message in the dead-letter store.
 *
 * @param messageId the id the message had on its queue
 * @param queue its queue
 * @param payload the payload bytes, intact
 * @param headers the headers; empty when the original headers could not be decoded (see {@code rawHeaders})
 * @param rawHeaders the headers as stored, which may be malformed
 * @param attempts how many deliveries it had
 * @param reason why it was dead-lettered (the last error)
 * @param enqueuedAt the original enqueue time
 * @param deadAt when it was dead-lettered (database clock)
 * @param group its message group, or null (requeue puts it back in the group)
 */
public record DeadLetter(long messageId, QueueName queue, byte[] payload, Map<String, String> headers,
                         String rawHeaders, int attempts, String reason, Instant enqueuedAt, Instant deadAt,
                         String group) {
    /**
     * A dead letter without a message group (backends that offer none).
     *
     * @param messageId the id the message had on its queue
     * @param queue its queue
     * @param payload the payload bytes, intact
     * @param headers the headers; empty when the original headers could not be decoded
     * @param rawHeaders the headers as stored, which may be malformed
     * @param attempts how many deliveries it had
     * @param reason why it was dead-lettered
     * @param enqueuedAt the original enqueue time
     * @param deadAt when it was dead-lettered (database clock)
     */
    public DeadLetter(long messageId, QueueName queue, byte[] payload, Map<String, String> headers,
                      String rawHeaders, int attempts, String reason, Instant enqueuedAt, Instant deadAt) {
        this(messageId, queue, payload, headers, rawHeaders, attempts, reason, enqueuedAt, deadAt, null);
    }
}
