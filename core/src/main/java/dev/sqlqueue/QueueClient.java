package dev.sqlqueue;

/**
 * All the driving ports of one backend, as one object. Thread-safe. Obtain one from
 * {@link SqlQueue#open(QueueConfig)}.
 */
public interface QueueClient extends Producer, Consumer, Acknowledger, QueueAdmin, AutoCloseable {
    /** What this backend can do. */
    Capabilities capabilities();

    /**
     * Remove every object this backend created under its {@link QueueConfig#tablePrefix()} (tables,
     * indexes, migration history, broker objects): all queues of that prefix and their data. Other
     * prefixes and other objects are untouched. Used by the conformance kit to leave a server as it
     * found it.
     *
     * @throws UnsupportedCapabilityException if the backend cannot remove its objects itself
     */
    default void dropSchema() {
        throw new UnsupportedCapabilityException(Capability.DROP_SCHEMA, capabilities().backend());
    }

    /**
     * How many connections the backend's own pool can hand out at once, or empty when unknown (the
     * config brought a {@code DataSource}). {@link dev.sqlqueue.runtime.WorkerPool} uses it to refuse a
     * transactional pool that would run out of connections.
     */
    default java.util.OptionalInt ownPoolSize() {
        return java.util.OptionalInt.empty();
    }

    /** Release pools and background threads. Open transactional claims are rolled back. */
    @Override
    void close();
}
