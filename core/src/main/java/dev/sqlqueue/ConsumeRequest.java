package dev.sqlqueue;

import java.time.Duration;

/**
 * What a consume call asks for.
 *
 * @param maxMessages 1..{@link Capabilities#maxClaimBatch()}; the claim returns at most this many
 * @param lease lease length (visibility timeout), 1 ms..24 h; used in {@link ClaimMode#LEASE}
 * @param maxWait how long to wait for a message when none is visible (long poll); zero returns at once
 * @param mode the claim mode; must be one the backend lists in {@link Capabilities#claimModes()}
 */
public record ConsumeRequest(int maxMessages, Duration lease, Duration maxWait, ClaimMode mode) {
    public static final Duration MAX_LEASE = Duration.ofHours(24);

    public ConsumeRequest {
        if (maxMessages < 1) {
            throw new InvalidInputException("consume.max-messages", "maxMessages must be at least 1, was " + maxMessages);
        }
        if (lease == null || lease.isNegative() || lease.isZero() || lease.compareTo(MAX_LEASE) > 0) {
            throw new InvalidInputException("consume.lease", "lease must be between 1 ms and 24 h, was " + lease);
        }
        if (maxWait == null || maxWait.isNegative()) {
            throw new InvalidInputException("consume.wait", "wait must be zero or positive, was " + maxWait);
        }
        if (mode == null) {
            throw new InvalidInputException("consume.mode", "claim mode must be given");
        }
    }

    /** Up to {@code n} messages, 30 s lease, no wait, lease mode. */
    public static ConsumeRequest of(int n) {
        return new ConsumeRequest(n, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.LEASE);
    }

    public ConsumeRequest withLease(Duration l) {
        return new ConsumeRequest(maxMessages, l, maxWait, mode);
    }

    public ConsumeRequest withWait(Duration w) {
        return new ConsumeRequest(maxMessages, lease, w, mode);
    }

    public ConsumeRequest withMode(ClaimMode m) {
        return new ConsumeRequest(maxMessages, lease, maxWait, m);
    }
}
