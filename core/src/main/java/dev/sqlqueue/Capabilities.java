package dev.sqlqueue;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
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
 * @param absentReasons why a feature is not offered, for features the backend explains (reports and
 *     the conformance suite's skips quote it); may be empty, never holds a declared feature
 */
public record Capabilities(String backend, Set<ClaimMode> claimModes, Set<Capability> features,
                           Ordering ordering, int maxPayloadBytes, int maxClaimBatch,
                           Map<Capability, String> absentReasons) {
    public Capabilities {
        claimModes = claimModes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(claimModes));
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
        Map<Capability, String> reasons = new EnumMap<>(Capability.class);
        reasons.putAll(absentReasons == null ? Map.of() : absentReasons);
        reasons.keySet().removeAll(features);
        absentReasons = Map.copyOf(reasons);
    }

    /** Capabilities without explained absences. */
    public Capabilities(String backend, Set<ClaimMode> claimModes, Set<Capability> features,
                        Ordering ordering, int maxPayloadBytes, int maxClaimBatch) {
        this(backend, claimModes, features, ordering, maxPayloadBytes, maxClaimBatch, Map.of());
    }

    /** A copy that explains why {@code c} is absent (ignored when {@code c} is declared). */
    public Capabilities withAbsentReason(Capability c, String reason) {
        Map<Capability, String> reasons = new EnumMap<>(Capability.class);
        reasons.putAll(absentReasons);
        reasons.put(c, reason);
        return new Capabilities(backend, claimModes, features, ordering, maxPayloadBytes, maxClaimBatch, reasons);
    }

    /** Why {@code c} is missing: the backend's reason, else "missing capability: ..."; empty text never. */
    public String whyAbsent(Capability c) {
        String reason = absentReasons.get(c);
        return "missing capability: " + c.describe() + (reason == null ? "" : " (" + reason + ")");
    }

    public boolean has(Capability c) {
        return features.contains(c);
    }

    public boolean supports(ClaimMode m) {
        return claimModes.contains(m);
    }
}
