package dev.sqlqueue;

/**
 * Proof of a claim, handed back to {@link Acknowledger} calls.
 *
 * @param queue the queue the message was claimed from
 * @param messageId the message id (64-bit, assigned by the database)
 * @param token the fencing token of this claim (lease mode) or the handle of the open claim
 *     transaction (transactional mode); a later claim of the same message gets a different token
 * @param mode how the message is held
 */
public record Receipt(QueueName queue, long messageId, long token, ClaimMode mode) {
}
