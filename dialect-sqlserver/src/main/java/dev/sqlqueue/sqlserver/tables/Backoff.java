package dev.sqlqueue.sqlserver.tables;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Jittered exponential back-off between retries of a deadlock victim (1205) or lock time-out (1222):
 * before retry {@code n} (1-based) it waits a uniformly random time in [0, min(1000, 10 * 2^n)] ms
 * ("full jitter"), so that the transactions that deadlocked do not collide again in step.
 * Thread-safe.
 */
public interface Backoff {
    /**
     * Wait before retry number {@code retry} (1-based).
     *
     * @param retry the 1-based number of the retry about to run
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    void pause(int retry) throws InterruptedException;

    /**
     * The upper bound of the wait before retry {@code retry}, in ms.
     *
     * @param retry the 1-based number of the retry about to run
     * @return the upper bound of the wait before retry {@code retry}, in ms
     */
    static long capMillis(int retry) {
        return Math.min(1000L, 10L << Math.min(retry, 20));
    }

    /** Sleeps with full jitter. */
    Backoff JITTERED = retry -> Thread.sleep(ThreadLocalRandom.current().nextLong(capMillis(retry) + 1));
}
