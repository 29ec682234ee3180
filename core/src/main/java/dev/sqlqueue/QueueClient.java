package dev.sqlqueue;

/**
 * All the driving ports of one backend, as one object. Thread-safe. Obtain one from
 * {@link SqlQueue#open(QueueConfig)}.
 */
public interface QueueClient extends Producer, Consumer, Acknowledger, QueueAdmin, AutoCloseable {
    /**
     * Ack {@code receipts} (as {@link #ackAll}) and then claim from {@code queue} (as {@link #consume}), in
     * one round trip and one commit where the backend can: PostgreSQL in lease mode without
     * history, when the receipts come from one claim (a worker's batch). Elsewhere, and by default, it is
     * {@code ackAll} followed by {@code consume}. A worker that settles a batch and claims the next one
     * saves a commit and a round trip per batch this way (issue 16, docs/benchmarks.md).
     *
     * <p>The claim does not wait: {@code request.maxWait()} is not used, so that the acks' outcome comes back
     * at once; after an empty claim, call {@code consume} to wait for messages. When it returns, the acks are
     * committed (they survive a crash of the process) and the claim is committed as {@code consume} commits
     * it. The claim sees these acks: a message of a {@linkplain Message#group() group} whose older message
     * is acked here can be claimed by the same call. Failures: the one-round-trip form commits the acks and
     * the claim together or not at all, so when it throws nothing changed (but for a connection lost after
     * the commit, as with any statement); the fallback commits the acks first, and when its claim then
     * fails with a {@link TransientBackendException} or another {@link SqlQueueException} it returns the acks'
     * outcome with no deliveries, and the claim's failure shows at the next {@code consume}.
     *
     * @param receipts distinct receipts of lease-mode claims on {@code queue}; may be empty (then this is
     *     {@code consume})
     * @param queue the queue to claim from
     * @param request what to claim, in lease mode (its wait is not used: the claim returns at once)
     * @return the receipts whose lease was lost and the new claim
     * @throws InvalidInputException as {@link #ackAll} and {@link #consume} do, and when a receipt names
     *     another queue than {@code queue} (rule {@code receipt.queue}) or was issued in transactional mode
     *     (rule {@code receipt.mode}), or when the request is not in lease mode (rule {@code consume.mode});
     *     nothing was changed
     * @throws TransientBackendException if the database cannot be reached
     */
    default AckedAndClaimed ackAllAndConsume(java.util.Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        ConsumeRequest once = request.withWait(java.time.Duration.ZERO);
        if (receipts.isEmpty()) {
            return new AckedAndClaimed(java.util.Set.of(), consume(queue, once));
        }
        java.util.Set<Receipt> lost = ackAll(receipts);
        try {
            return new AckedAndClaimed(lost, consume(queue, once));
        } catch (InvalidInputException | UnsupportedCapabilityException e) {
            throw e;
        } catch (SqlQueueException e) {
            // the acks are committed: their outcome is the answer; the claim's failure shows at the next consume
            return new AckedAndClaimed(lost, java.util.List.of());
        }
    }

    /**
     * What this backend can do.
     *
     * @return the backend's capabilities, fixed while it is open
     */
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
     *
     * @return the pool's size, or empty
     */
    default java.util.OptionalInt ownPoolSize() {
        return java.util.OptionalInt.empty();
    }

    /**
     * How many connections the pool the backend takes its connections from can hand out at once: its own
     * pool's size ({@link #ownPoolSize()}), or what a {@code DataSource} the caller brought leaves for claims and
     * handlers when the backend can read its size (the SKIP LOCKED backends read a HikariCP pool's
     * {@code maximumPoolSize} at the time of the call, less the PostgreSQL LISTEN connection they hold from it);
     * empty when unknown. {@link dev.sqlqueue.runtime.WorkerPool} refuses a pool that would run out
     * of connections by it.
     *
     * @return the pool's size, or empty
     */
    default java.util.OptionalInt poolSize() {
        return ownPoolSize();
    }

    /** Release pools and background threads. Open transactional claims are rolled back. */
    @Override
    void close();
}
