package dev.sqlqueue;

import java.time.Duration;

/**
 * What a consume call asks for.
 *
 * @param maxMessages 1..{@link Capabilities#maxClaimBatch()}; the claim returns at most this many
 * @param lease lease length (visibility timeout), 1 ms..24 h (the database counts it in whole milliseconds);
 *     used in {@link ClaimMode#LEASE}
 * @param maxWait how long to wait for a message when none is visible (long poll), 0..{@link #MAX_WAIT}; zero
 *     returns at once
 * @param mode the claim mode; must be one the backend lists in {@link Capabilities#claimModes()}
 */
public record ConsumeRequest(int maxMessages, Duration lease, Duration maxWait, ClaimMode mode) {
    /**
     * The longest lease: 24 h (rule {@code consume.lease}).
     */
    public static final Duration MAX_LEASE = Duration.ofHours(24);
    /** The shortest lease: 1 ms, the unit the database clock counts a lease in. */
    public static final Duration MIN_LEASE = Duration.ofMillis(1);
    /** The longest wait of one consume call: 365 days (rule {@code consume.wait}). */
    public static final Duration MAX_WAIT = Duration.ofDays(365);

    /** @throws InvalidInputException (rule {@code consume.lease}) unless {@code lease} is 1 ms..24 h */
    static void checkLease(Duration lease) {
        if (lease == null || lease.compareTo(MIN_LEASE) < 0 || lease.compareTo(MAX_LEASE) > 0) {
            throw new InvalidInputException("consume.lease", "lease must be between 1 ms and 24 h, was " + lease);
        }
    }

    /**
     * Checks every component.
     *
     * @param maxMessages 1..{@link Capabilities#maxClaimBatch()}; the claim returns at most this many
     * @param lease lease length (visibility timeout), 1 ms..24 h (the database counts it in whole milliseconds);
     *     used in {@link ClaimMode#LEASE}
     * @param maxWait how long to wait for a message when none is visible (long poll), 0..{@link #MAX_WAIT}; zero
     *     returns at once
     * @param mode the claim mode; must be one the backend lists in {@link Capabilities#claimModes()}
     * @throws InvalidInputException naming the rule broken: {@code consume.max-messages} (below 1),
     *     {@code consume.lease}, {@code consume.wait} or {@code consume.mode}
     */
    public ConsumeRequest {
        if (maxMessages < 1) {
            throw new InvalidInputException("consume.max-messages", "maxMessages must be at least 1, was " + maxMessages);
        }
        checkLease(lease);
        if (maxWait == null || maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
            throw new InvalidInputException("consume.wait", "wait must be zero to " + MAX_WAIT.toDays() + " days, was " + maxWait);
        }
        if (mode == null) {
            throw new InvalidInputException("consume.mode", "claim mode must be given");
        }
    }

    /**
     * Up to {@code n} messages, 30 s lease, no wait, lease mode.
     *
     * @param n the most messages the claim takes, 1 or more (and at most the backend's {@link Capabilities#maxClaimBatch()})
     * @return the request
     * @throws InvalidInputException (rule {@code consume.max-messages}) if {@code n} is below 1
     */
    public static ConsumeRequest of(int n) {
        return new ConsumeRequest(n, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.LEASE);
    }

    /**
     * With this lease (lease mode).
     *
     * @param l the lease, 1 ms..24 h
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.lease}) for null or outside 1 ms..24 h
     */
    public ConsumeRequest withLease(Duration l) {
        return new ConsumeRequest(maxMessages, l, maxWait, mode);
    }

    /**
     * With this long-poll wait.
     *
     * @param w how long to wait for a message when none is visible, 0..{@link #MAX_WAIT}
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.wait}) for null, negative or over {@link #MAX_WAIT}
     */
    public ConsumeRequest withWait(Duration w) {
        return new ConsumeRequest(maxMessages, lease, w, mode);
    }

    /**
     * With this claim mode.
     *
     * @param m lease or transactional; one the backend offers
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.mode}) for null
     */
    public ConsumeRequest withMode(ClaimMode m) {
        return new ConsumeRequest(maxMessages, lease, maxWait, m);
    }
}
