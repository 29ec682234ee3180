package dev.sqlqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * A message held by {@link QueueAdmin#claimForMove}: everything an enqueue on another database needs to recreate it.
 *
 * @param receipt settles the hold (lease mode): {@link Acknowledger#ackAll} once the message is on the target,
 *     {@link Acknowledger#deadLetter} when the target refuses it
 * @param payload the payload bytes exactly as enqueued (the array is owned by the caller)
 * @param headers the headers as enqueued, in order
 * @param attempts deliveries it had so far (0 for a message never claimed); the move claim does not count one
 * @param priority as enqueued
 * @param enqueuedAt the database-clock time of its enqueue
 * @param group its message group, or null
 * @param remainingDelay how long it would still have stayed invisible on its queue (database clock, ms
 *     resolution); zero for a ready message
 */
public record HeldForMove(Receipt receipt, byte[] payload, Map<String, String> headers, int attempts, int priority,
                          Instant enqueuedAt, String group, Duration remainingDelay) {
    /**
     * The message's id on the source.
     *
     * @return the id from the receipt
     */
    public long id() {
        return receipt.messageId();
    }
}
