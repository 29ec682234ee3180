package dev.sqlqueue.runtime;

import dev.sqlqueue.InvalidInputException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter and a maximum number of attempts. Immutable, thread-safe.
 *
 * <p>After failed attempt {@code a} (1-based) the message is retried after
 * {@code min(maxBackoff, initialBackoff * multiplier^(a-1))}, scaled by a random factor in
 * {@code [1 - jitter, 1 + jitter]}. When attempt {@code a} reaches {@code maxAttempts} it is
 * dead-lettered instead.
 *
 * @param maxAttempts 1..1000 deliveries before dead-lettering
 * @param initialBackoff the delay after the first failure, 0..1 day
 * @param maxBackoff the cap, at least {@code initialBackoff}
 * @param multiplier 1.0..10.0
 * @param jitter 0.0..1.0, the fraction by which a delay may vary either way
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier, double jitter) {
    /**
     * Checks every component.
     *
     * @param maxAttempts 1..1000 deliveries before dead-lettering
     * @param initialBackoff the delay after the first failure, 0..1 day
     * @param maxBackoff the cap, at least {@code initialBackoff}
     * @param multiplier 1.0..10.0
     * @param jitter 0.0..1.0, the fraction by which a delay may vary either way
     * @throws InvalidInputException naming the rule broken: {@code retry.max-attempts}, {@code retry.backoff},
     *     {@code retry.multiplier} or {@code retry.jitter}
     */
    public RetryPolicy {
        if (maxAttempts < 1 || maxAttempts > 1000) {
            throw new InvalidInputException("retry.max-attempts", "max attempts must be 1..1000, was " + maxAttempts);
        }
        if (initialBackoff == null || initialBackoff.isNegative() || initialBackoff.compareTo(Duration.ofDays(1)) > 0) {
            throw new InvalidInputException("retry.backoff", "initial back-off must be 0..1 day, was " + initialBackoff);
        }
        if (maxBackoff == null || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new InvalidInputException("retry.backoff", "maximum back-off must be at least the initial back-off");
        }
        if (multiplier < 1.0 || multiplier > 10.0) {
            throw new InvalidInputException("retry.multiplier", "multiplier must be 1.0..10.0, was " + multiplier);
        }
        if (jitter < 0.0 || jitter > 1.0) {
            throw new InvalidInputException("retry.jitter", "jitter must be 0.0..1.0, was " + jitter);
        }
    }

    /**
     * 5 attempts, 1 s doubling to at most 5 min, 20 % jitter.
     *
     * @return the default policy
     */
    public static RetryPolicy defaults() {
        return new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofMinutes(5), 2.0, 0.2);
    }

    /**
     * With this many attempts.
     *
     * @param n deliveries before dead-lettering, 1..1000
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code retry.max-attempts}) outside 1..1000
     */
    public RetryPolicy withMaxAttempts(int n) {
        return new RetryPolicy(n, initialBackoff, maxBackoff, multiplier, jitter);
    }

    /**
     * With these delays.
     *
     * @param initial the delay after the first failure, 0..1 day
     * @param max the cap, at least {@code initial}
     * @return a copy with these settings
     * @throws InvalidInputException (rule {@code retry.backoff}) for null, an initial delay outside 0..1 day or a cap below it
     */
    public RetryPolicy withBackoff(Duration initial, Duration max) {
        return new RetryPolicy(maxAttempts, initial, max, multiplier, jitter);
    }

    /**
     * Whether a failure of delivery {@code attempt} uses up the last attempt.
     *
     * @param attempt the 1-based number of the delivery that failed
     * @return true when the message is to be dead-lettered rather than retried
     */
    public boolean exhausted(int attempt) {
        return attempt >= maxAttempts;
    }

    /**
     * The delay before retrying after failed attempt {@code attempt} (1-based).
     *
     * @param attempt the 1-based number of the delivery that failed
     * @return the delay, zero or more; random within the jitter, so two calls may differ
     */
    public Duration backoff(int attempt) {
        double base = initialBackoff.toMillis() * Math.pow(multiplier, Math.max(0, attempt - 1));
        double capped = Math.min(base, maxBackoff.toMillis());
        double factor = jitter == 0 ? 1.0 : 1.0 - jitter + ThreadLocalRandom.current().nextDouble() * 2 * jitter;
        return Duration.ofMillis(Math.max(0, Math.round(capped * factor)));
    }
}
