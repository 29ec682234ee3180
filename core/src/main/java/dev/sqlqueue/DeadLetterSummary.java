package dev.sqlqueue;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

/**
 * A dead letter as listings show it: everything of {@link DeadLetter} but the payload, of which it carries the first
 * {@link #PREVIEW_BYTES} bytes and the length. Listings of large dead letters read these, so their time and memory do
 * not depend on the payloads' sizes (issue 31); {@link QueueAdmin#deadLetters} still reads whole payloads.
 *
 * @param messageId the id the message had on its queue
 * @param queue its queue
 * @param payloadPreview the payload's first bytes: at most {@link #PREVIEW_BYTES}, all of it when shorter
 * @param payloadBytes the payload's length in bytes
 * @param headers the headers; empty when the original headers could not be decoded (see {@code rawHeaders})
 * @param rawHeaders the headers as stored, which may be malformed
 * @param attempts how many deliveries it had
 * @param reason why it was dead-lettered (the last error)
 * @param enqueuedAt the original enqueue time
 * @param deadAt when it was dead-lettered (database clock)
 * @param group its message group, or null
 */
public record DeadLetterSummary(long messageId, QueueName queue, byte[] payloadPreview, long payloadBytes,
                                Map<String, String> headers, String rawHeaders, int attempts, String reason,
                                Instant enqueuedAt, Instant deadAt, String group) {
    /** The most payload bytes a summary carries: 256. */
    public static final int PREVIEW_BYTES = 256;

    /**
     * The summary of a whole dead letter (for backends that read whole payloads).
     *
     * @param d the dead letter
     * @return its summary, with the first {@value #PREVIEW_BYTES} bytes of its payload
     */
    public static DeadLetterSummary of(DeadLetter d) {
        byte[] p = d.payload();
        return new DeadLetterSummary(d.messageId(), d.queue(), Arrays.copyOf(p, Math.min(p.length, PREVIEW_BYTES)), p.length,
                d.headers(), d.rawHeaders(), d.attempts(), d.reason(), d.enqueuedAt(), d.deadAt(), d.group());
    }

    /**
     * True when {@link #payloadPreview()} is the whole payload.
     *
     * @return whether the preview holds every byte of the payload
     */
    public boolean wholePayload() {
        return payloadPreview.length == payloadBytes;
    }
}
