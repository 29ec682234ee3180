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
     * @return the message id (64-bit, assigned by the database)
     * @throws InvalidInputException if the payload is larger than {@link Capabilities#maxPayloadBytes()}
     *     or an option is not supported; nothing is written
     * @throws TransientBackendException if the database cannot be reached
     */
    long enqueue(QueueName queue, Message message);

    /**
     * Enqueue a batch in one transaction: all are written or none.
     *
     * @return the ids, in the order of {@code messages}
     */
    List<Long> enqueueAll(QueueName queue, List<Message> messages);

    /**
     * Enqueue inside the caller's open transaction, on the caller's connection: the message becomes
     * visible when the caller commits and disappears if the caller rolls back. Does not commit, close
     * or change the auto-commit mode of {@code connection}.
     *
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#TRANSACTIONAL_ENQUEUE}
     */
    long enqueue(Connection connection, QueueName queue, Message message);
}
