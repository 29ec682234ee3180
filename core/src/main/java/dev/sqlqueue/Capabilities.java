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
    /**
     * Copies the sets and map; drops an absence reason of a declared feature.
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
     * @throws NullPointerException if {@code claimModes} or {@code features} is null
     */
    public Capabilities {
        claimModes = claimModes.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(claimModes));
        features = features.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(features));
        Map<Capability, String> reasons = new EnumMap<>(Capability.class);
        reasons.putAll(absentReasons == null ? Map.of() : absentReasons);
        reasons.keySet().removeAll(features);
        absentReasons = Map.copyOf(reasons);
    }

    /**
     * Capabilities without explained absences.
     *
     * @param backend the provider name
     * @param claimModes the claim modes offered
     * @param features the optional features offered
     * @param ordering the ordering promise
     * @param maxPayloadBytes the largest payload accepted, in bytes
     * @param maxClaimBatch the largest {@link ConsumeRequest#maxMessages()} accepted
     */
    public Capabilities(String backend, Set<ClaimMode> claimModes, Set<Capability> features,
                        Ordering ordering, int maxPayloadBytes, int maxClaimBatch) {
        this(backend, claimModes, features, ordering, maxPayloadBytes, maxClaimBatch, Map.of());
    }

    /**
     * A copy that explains why {@code c} is absent (ignored when {@code c} is declared).
     *
     * @param c the feature not offered
     * @param reason why, in a few words
     * @return a new instance; this one is unchanged
     */
    public Capabilities withAbsentReason(Capability c, String reason) {
        Map<Capability, String> reasons = new EnumMap<>(Capability.class);
        reasons.putAll(absentReasons);
        reasons.put(c, reason);
        return new Capabilities(backend, claimModes, features, ordering, maxPayloadBytes, maxClaimBatch, reasons);
    }

    /**
     * Why {@code c} is missing: the backend's reason, else "missing capability: ..."; empty text never.
     *
     * @param c the feature asked about
     * @return {@code missing capability: }, the feature's description and, in parentheses, the backend's reason if it gave one
     */
    public String whyAbsent(Capability c) {
        String reason = absentReasons.get(c);
        return "missing capability: " + c.describe() + (reason == null ? "" : " (" + reason + ")");
    }

    /**
     * Whether the backend offers an optional feature.
     *
     * @param c the feature
     * @return true when {@code c} is among {@link #features()}
     */
    public boolean has(Capability c) {
        return features.contains(c);
    }

    /**
     * Whether the backend offers a claim mode.
     *
     * @param m the claim mode
     * @return true when {@code m} is among {@link #claimModes()}
     */
    public boolean supports(ClaimMode m) {
        return claimModes.contains(m);
    }
}
