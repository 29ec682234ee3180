package dev.sqlqueue;

import java.util.List;

/**
 * Driving port: claim messages. Implementations are thread-safe.
 */
public interface Consumer {
    /**
     * Claim up to {@code request.maxMessages()} visible messages, highest priority first, then oldest.
     * In {@link ClaimMode#LEASE} the claim is committed before this returns; in
     * {@link ClaimMode#TRANSACTIONAL} a transaction stays open until every returned delivery is settled.
     * Waits up to {@code request.maxWait()} when the queue has nothing visible.
     *
     * @param queue the queue to claim from
     * @param request how many, the lease, the wait and the claim mode
     * @return 0..maxMessages distinct deliveries; empty when nothing became visible within the wait
     * @throws InvalidInputException if the mode is not offered or the batch is larger than allowed
     * @throws TransientBackendException if the database cannot be reached
     */
    List<Delivery> consume(QueueName queue, ConsumeRequest request);
}
