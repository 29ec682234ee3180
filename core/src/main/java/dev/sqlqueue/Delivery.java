package dev.sqlqueue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * One claimed message.
 *
 * @param receipt what to pass to ack, nack, extend, release or deadLetter
 * @param payload the payload bytes exactly as enqueued (the array is owned by the caller)
 * @param headers the headers as enqueued, in order
 * @param attempt 1 for the first delivery, raised by every nack and (lease mode) every expired lease
 * @param priority as enqueued
 * @param enqueuedAt the database-clock time of enqueue
 * @param group the message group, or null
 */
public record Delivery(Receipt receipt, byte[] payload, Map<String, String> headers, int attempt,
                       int priority, Instant enqueuedAt, String group) {

    /**
     * The message's id.
     *
     * @return the id from the receipt
     */
    public long id() {
        return receipt.messageId();
    }

    /**
     * The payload decoded as UTF-8.
     *
     * @return the text; bytes that are not UTF-8 become U+FFFD
     */
    public String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
