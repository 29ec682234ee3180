package dev.sqlqueue;

import java.util.EnumSet;
import java.util.Set;

/**
 * What one backend can do. Immutable.
 *
 * @param backend the provider name ({@code h2}, {@code postgresql}, ...)
 * @param claimModes the claim modes offered
 * @param features the optional features offered
 * @param ordering the ordering promise
 * @param maxPayloadBytes the largest payload accepted, in bytes; one byte more is rejected with
 *     {@link InvalidInputException} before anything is written
 * @param maxClaimBatch the largest {@link ConsumeRequest#maxMessages()} accepted
 */
public record Capabilities(String backend, Set<ClaimMode> claimModes, Set<Capability> features,
                           Ordering ordering, int maxPayloadBytes, int maxClaimBatch) {
    public Capabilities {
        claimModes = claimModes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(claimModes));
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
    }

    public boolean has(Capability c) {
        return features.contains(c);
    }

    public boolean supports(ClaimMode m) {
        return claimModes.contains(m);
    }
}
