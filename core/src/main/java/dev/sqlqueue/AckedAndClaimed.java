package dev.sqlqueue;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link QueueClient#ackAllAndConsume} did: the acks, then the claim.
 *
 * @param lost the receipts whose lease was lost (their messages were not removed by this call), a subset of
 *     the receipts given; every other receipt was acked
 * @param claimed the new claim: 0..maxMessages distinct deliveries, as {@link Consumer#consume} returns them
 */
public record AckedAndClaimed(Set<Receipt> lost, List<Delivery> claimed) {
    /**
     * Copies both collections.
     *
     * @param lost the receipts whose lease was lost (their messages were not removed by this call), a subset of
     *     the receipts given; every other receipt was acked
     * @param claimed the new claim: 0..maxMessages distinct deliveries, as {@link Consumer#consume} returns them
     * @throws NullPointerException if either is null
     */
    public AckedAndClaimed {
        lost = Set.copyOf(Objects.requireNonNull(lost, "lost"));
        claimed = List.copyOf(Objects.requireNonNull(claimed, "claimed"));
    }
}
