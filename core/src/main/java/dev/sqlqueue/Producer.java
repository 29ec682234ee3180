package dev.sqlqueue;

import java.sql.Connection;
import java.util.List;

/**
 * Driving port: put messages on a queue. Implementations are thread-safe.
 */
public interface Producer {
    /**
     * Enqueue one message and commit.
     *
     * @param queue the queue to enqueue on
     * @param message the message to enqueue
     * @return the message id (64-bit, assigned by the database); for a message whose
     *     {@link Message#deduplicationKey()} was seen within the window, the first message's id (nothing is
     *     enqueued; {@link #enqueueDeduplicated(QueueName, Message)} tells the two apart)
     * @throws InvalidInputException if the payload is larger than {@link Capabilities#maxPayloadBytes()}
     *     or an option is not supported; nothing is written
     * @throws TransientBackendException if the database cannot be reached
     */
    long enqueue(QueueName queue, Message message);

    /**
     * Enqueue a batch in one transaction: all are written or none.
     *
     * @param queue the queue to enqueue on
     * @param messages the messages, in the order they are given ids
     * @return the ids, in the order of {@code messages}; a message whose deduplication key was seen
     *     within the window (also earlier in the same batch) gets the first message's id and is not enqueued
     */
    List<Long> enqueueAll(QueueName queue, List<Message> messages);

    /**
     * Enqueue a batch in one transaction, as {@link #enqueueAll}, and say for each message whether its
     * {@link Message#deduplicationKey()} made it a duplicate.
     *
     * @param queue the queue to enqueue on
     * @param messages the messages, in the order they are given ids
     * @return one result per message, in the order of {@code messages}: a message whose key was seen within
     *     the window (also earlier in the same batch) has the first message's id and {@code duplicate()}
     *     true, and nothing was enqueued for it; every other message was enqueued, {@code duplicate()} false
     * @throws InvalidInputException as {@link #enqueueAll}; nothing is written
     * @throws TransientBackendException if the database cannot be reached
     */
    List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages);

    /**
     * Enqueue inside the caller's open transaction, on the caller's connection: the message becomes
     * visible when the caller commits and disappears if the caller rolls back. Does not commit, close
     * or change the auto-commit mode of {@code connection}.
     *
     * @param connection the caller's connection, in an open transaction; left open, not committed
     * @param queue the queue to enqueue on
     * @param message the message to enqueue
     * @return the message's id
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#TRANSACTIONAL_ENQUEUE}
     */
    long enqueue(Connection connection, QueueName queue, Message message);

    /**
     * Enqueue one message and commit, saying whether its {@link Message#deduplicationKey()} made it a
     * duplicate: the key was enqueued on {@code queue} within {@link QueueConfig#deduplicationWindow()}
     * (counted on the database clock from the first enqueue), so nothing was written and the first
     * message's id is returned. A message without a key is never a duplicate. The check is the database's
     * (a unique key): concurrent enqueues of one key, from any process, leave one message.
     *
     * @param queue the queue to enqueue on
     * @param message the message, with or without a deduplication key
     * @return the id, and whether the message was a duplicate (then the id is the first message's)
     * @throws UnsupportedCapabilityException if the message has a key and the backend lacks
     *     {@link Capability#DEDUPLICATION}
     */
    default EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        if (message != null && message.deduplicationKey() != null) {
            throw new UnsupportedCapabilityException(Capability.DEDUPLICATION, getClass().getSimpleName());
        }
        return new EnqueueResult(enqueue(queue, message), false);
    }

    /**
     * {@link #enqueueDeduplicated(QueueName, Message)} inside the caller's open transaction, as
     * {@link #enqueue(Connection, QueueName, Message)}. The key is taken when the caller commits: a
     * concurrent transaction enqueuing the same key waits for this one, then returns this message's id
     * as a duplicate if this one commits, or enqueues its own message if this one rolls back.
     *
     * @param connection the caller's connection, in an open transaction; left open, not committed
     * @param queue the queue to enqueue on
     * @param message the message, with or without a deduplication key
     * @return the id, and whether the message was a duplicate (then the id is the first message's)
     * @throws UnsupportedCapabilityException as {@link #enqueue(Connection, QueueName, Message)}, or if the
     *     message has a key and the backend lacks {@link Capability#DEDUPLICATION}
     */
    default EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        if (message != null && message.deduplicationKey() != null) {
            throw new UnsupportedCapabilityException(Capability.DEDUPLICATION, getClass().getSimpleName());
        }
        return new EnqueueResult(enqueue(connection, queue, message), false);
    }
}
