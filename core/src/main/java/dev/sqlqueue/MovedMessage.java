package dev.sqlqueue;

/**
 * A message that {@link QueueAdmin#enqueueMoved} writes on the target of a move ({@link QueueMover}): the message as
 * an enqueue would write it, with the deliveries it already had on the source and, for a dead letter, its reason.
 * Immutable.
 *
 * @param message payload, headers, priority, group and remaining delay as on the source; its
 *     {@link Message#deduplicationKey()} is required (it makes the move exactly once)
 * @param attempts the deliveries it had on the source, 0..{@link Integer#MAX_VALUE}: the target's next delivery
 *     counts {@code attempts + 1}
 * @param deadLetterReason null for a message to enqueue; otherwise the message is written straight to the queue's
 *     dead letters with this reason (no consumer ever sees it on the queue), and its delay is not used
 */
public record MovedMessage(Message message, int attempts, String deadLetterReason) {
    /**
     * Checks the parts.
     *
     * @param message the message as an enqueue would write it, with its deduplication key
     * @param attempts the deliveries it had on the source, 0 or more
     * @param deadLetterReason null for a message to enqueue, else the reason it is a dead letter
     * @throws InvalidInputException (rule {@code move.message}) for a null message or one without a deduplication
     *     key; (rule {@code move.attempts}) for a negative attempt count; (rule {@code move.reason}) for a reason
     *     holding U+0000 or a lone surrogate, which a text column cannot keep
     */
    public MovedMessage {
        if (message == null || message.deduplicationKey() == null) {
            throw new InvalidInputException("move.message", "a moved message needs a message with a deduplication key,"
                    + " which makes the move exactly once");
        }
        if (attempts < 0) {
            throw new InvalidInputException("move.attempts", "attempts must be 0 or more, was " + attempts);
        }
        if (deadLetterReason != null) {
            Message.checkStorableText("move.reason", "the dead letter's reason", deadLetterReason);
        }
    }

    /**
     * Whether this is a dead letter.
     *
     * @return true when {@link #deadLetterReason()} is set
     */
    public boolean deadLetter() {
        return deadLetterReason != null;
    }
}
