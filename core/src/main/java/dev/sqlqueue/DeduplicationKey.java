package dev.sqlqueue;

import java.time.Duration;

/**
 * A producer's deduplication key still in its window ({@link QueueAdmin#deduplicationKeys}), as a move copies it
 * ({@link QueueAdmin#enqueueMovedKeys}). Immutable.
 *
 * @param key the key, as the producer gave it ({@link Message.Builder#deduplicationKey})
 * @param messageId the id of the message the key stands for on its database (that message may since have been
 *     processed)
 * @param remaining how long the key stays in its window (database clock, ms resolution), more than zero
 */
public record DeduplicationKey(String key, long messageId, Duration remaining) {
    /**
     * Checks the parts.
     *
     * @param key the key, as the producer gave it
     * @param messageId the id of the message the key stands for on its database
     * @param remaining how long the key stays in its window, more than zero and at most {@link Message#MAX_DELAY}
     * @throws InvalidInputException (rule {@code dedupe.length} or {@code dedupe.text}) for a key a message could not
     *     have; (rule {@code move.key-window}) for a remaining window that is null, not above zero or over
     *     {@link Message#MAX_DELAY}
     */
    public DeduplicationKey {
        Message.builder(new byte[0]).deduplicationKey(key);
        if (key == null) {
            throw new InvalidInputException("dedupe.length", "a deduplication key must not be null");
        }
        if (remaining == null || remaining.isNegative() || remaining.isZero() || remaining.compareTo(Message.MAX_DELAY) > 0) {
            throw new InvalidInputException("move.key-window", "a key's remaining window must be above 0 and at most "
                    + Message.MAX_DELAY.toDays() + " days, was " + remaining);
        }
    }
}
