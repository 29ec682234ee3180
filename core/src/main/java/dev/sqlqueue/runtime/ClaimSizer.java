package dev.sqlqueue.runtime;

/**
 * The size of one worker thread's next claim, between 1 and {@link WorkerOptions#batchSize()}:
 *
 * <ul>
 *   <li><b>by the backlog</b>: a claim that came back full makes the next one as large as allowed (the
 *   backlog is at least as deep as what was asked; growing step by step instead cost a deep backlog one
 *   extra claim per doubling and thread, about a fifth more claims in a drain of 20,000 messages by 8
 *   threads, see docs/benchmarks.md); one that came back short sets the next to what it got, at least 1
 *   (the backlog is shallow: at low load a claim asks for one message, so latency stays that of single
 *   claims);</li>
 *   <li><b>by the handler's time</b>: at most {@link #TARGET_BATCH_MS} ms of work (a quarter of the lease
 *   if that is less) by the recent mean handler time, so with slow handlers a thread claims one message
 *   at a time and no message waits in its batch while other workers are idle or its lease runs on.</li>
 * </ul>
 * One per worker thread; not thread-safe.
 */
final class ClaimSizer {
    /** Milliseconds of handler work one claim aims at, at most. */
    static final long TARGET_BATCH_MS = 100;

    private final int max;
    private final double budgetNanos;
    private int next = 1;
    /** Exponentially weighted mean handler time, ns; negative until the first one. */
    private double meanNanos = -1;

    ClaimSizer(int max, long leaseMillis) {
        this.max = max;
        this.budgetNanos = Math.min(TARGET_BATCH_MS, leaseMillis / 4) * 1e6;
    }

    /** How many messages the next claim asks for. */
    int next() {
        if (meanNanos <= 0) {
            return next;
        }
        long byTime = (long) (budgetNanos / meanNanos);
        return (int) Math.max(1, Math.min(next, byTime));
    }

    /** A claim that asked for {@code asked} returned {@code got} messages. */
    void claimed(int asked, int got) {
        next = got >= asked ? max : Math.max(1, Math.min(max, got));
    }

    /** One handler ran for {@code nanos}. */
    void handled(long nanos) {
        meanNanos = meanNanos < 0 ? nanos : meanNanos * 0.9 + nanos * 0.1;
    }
}
