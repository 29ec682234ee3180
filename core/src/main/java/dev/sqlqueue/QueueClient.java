package dev.sqlqueue;

/**
 * All the driving ports of one backend, as one object. Thread-safe. Obtain one from
 * {@link SqlQueue#open(QueueConfig)}.
 */
public interface QueueClient extends Producer, Consumer, Acknowledger, QueueAdmin, AutoCloseable {
    /** What this backend can do. */
    Capabilities capabilities();

    /** Release pools and background threads. Open transactional claims are rolled back. */
    @Override
    void close();
}
