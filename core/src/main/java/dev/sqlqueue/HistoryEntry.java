package dev.sqlqueue;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One processed message in the optional history (seed 001's start, end and duration).
 *
 * <p>Equality compares {@code payloadPreview} by content ({@link Arrays#equals(byte[], byte[])}), not by array
 * identity as a record would.
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
 * @param payloadPreview the first {@link #PREVIEW_BYTES} bytes of the payload (all of it when shorter), stored with
 *     the row when it was written; null for a row written before the backend kept previews (skiplocked schemas
 *     before the migration that added the column) and on backends that keep none (SQL Server Service Broker,
 *     Teradata). The array is the entry's own: do not modify it.
 */
public record HistoryEntry(long messageId, QueueName queue, Instant enqueuedAt, Instant startedAt,
                           Instant finishedAt, long durationMillis, int attempts, String outcome, String detail,
                           byte[] payloadPreview) {
    /** Bytes of the payload a history row keeps: 64, enough to tell which input line a row came from. */
    public static final int PREVIEW_BYTES = 64;

    /**
     * A history entry without a payload preview ({@code payloadPreview} null), the shape before previews.
     *
     * @param messageId the message id
     * @param queue its queue
     * @param enqueuedAt enqueue time (database clock)
     * @param startedAt when the final delivery was claimed
     * @param finishedAt when it was acked or dead-lettered
     * @param durationMillis finishedAt - startedAt in ms
     * @param attempts deliveries in all
     * @param outcome {@code acked} or {@code dead-lettered}
     * @param detail the handler's note or the last error
     */
    public HistoryEntry(long messageId, QueueName queue, Instant enqueuedAt, Instant startedAt,
                        Instant finishedAt, long durationMillis, int attempts, String outcome, String detail) {
        this(messageId, queue, enqueuedAt, startedAt, finishedAt, durationMillis, attempts, outcome, detail, null);
    }

    /**
     * Equal when every component is, the preview by content.
     *
     * @param o another object
     * @return whether it is an equal history entry
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof HistoryEntry h && messageId == h.messageId && durationMillis == h.durationMillis
                && attempts == h.attempts && Objects.equals(queue, h.queue) && Objects.equals(enqueuedAt, h.enqueuedAt)
                && Objects.equals(startedAt, h.startedAt) && Objects.equals(finishedAt, h.finishedAt)
                && Objects.equals(outcome, h.outcome) && Objects.equals(detail, h.detail)
                && Arrays.equals(payloadPreview, h.payloadPreview);
    }

    /**
     * A hash consistent with {@link #equals(Object)}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return Objects.hash(messageId, queue, enqueuedAt, startedAt, finishedAt, durationMillis, attempts, outcome, detail)
                * 31 + Arrays.hashCode(payloadPreview);
    }

    /**
     * The components, the preview as its length in bytes.
     *
     * @return a text for logs and test failures
     */
    @Override
    public String toString() {
        return "HistoryEntry[messageId=" + messageId + ", queue=" + queue + ", enqueuedAt=" + enqueuedAt + ", startedAt="
                + startedAt + ", finishedAt=" + finishedAt + ", durationMillis=" + durationMillis + ", attempts=" + attempts
                + ", outcome=" + outcome + ", detail=" + detail + ", payloadPreview="
                + (payloadPreview == null ? "null" : payloadPreview.length + " bytes") + "]";
    }
}
