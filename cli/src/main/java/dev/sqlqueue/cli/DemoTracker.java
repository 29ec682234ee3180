package dev.sqlqueue.cli;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.runtime.WorkerListener;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Book-keeping of {@code sqlqueue demo}: each message's payload is {@code "<seq> <enqueue nanoTime>"};
 * the tracker counts how often each sequence number was handled and acked and records the
 * enqueue-to-ack latency of its first ack. Thread-safe.
 */
final class DemoTracker implements WorkerListener {
    private final int total;
    private final AtomicIntegerArray handled;
    private final AtomicIntegerArray acked;
    private final long[] latencyNanos;
    private final AtomicLong distinctAcked = new AtomicLong();
    private final AtomicLong lastAckNanos = new AtomicLong();

    DemoTracker(int total) {
        this.total = total;
        this.handled = new AtomicIntegerArray(total);
        this.acked = new AtomicIntegerArray(total);
        this.latencyNanos = new long[total];
    }

    /** The payload of message {@code seq}, stamped now. */
    static byte[] payload(int seq) {
        return (seq + " " + System.nanoTime()).getBytes(StandardCharsets.US_ASCII);
    }

    /** Called by the handler for every delivery. */
    void handled(Delivery d) {
        handled.incrementAndGet(seq(d));
    }

    @Override
    public void acked(Delivery d, long handlerNanos) {
        long now = System.nanoTime();
        String[] parts = d.text().split(" ");
        int seq = Integer.parseInt(parts[0]);
        if (acked.getAndIncrement(seq) == 0) {
            latencyNanos[seq] = now - Long.parseLong(parts[1]);
            distinctAcked.incrementAndGet();
        }
        lastAckNanos.accumulateAndGet(now, Math::max);
    }

    private static int seq(Delivery d) {
        String t = d.text();
        return Integer.parseInt(t.substring(0, t.indexOf(' ')));
    }

    long distinctAcked() {
        return distinctAcked.get();
    }

    long lastAckNanos() {
        return lastAckNanos.get();
    }

    /** Messages among the first {@code enqueued} (the ones whose batch was committed) never acked. */
    long lost(long enqueued) {
        long n = 0;
        for (int i = 0; i < Math.min(enqueued, total); i++) {
            if (acked.get(i) == 0) {
                n++;
            }
        }
        return n;
    }

    /** Messages handled or acked more than once. */
    long duplicated() {
        long n = 0;
        for (int i = 0; i < total; i++) {
            if (handled.get(i) > 1 || acked.get(i) > 1) {
                n++;
            }
        }
        return n;
    }

    /** Latency percentiles in ms of the acked messages: p50, p99, max; zeros when none. */
    synchronized double[] latencyMillis() {
        long[] got = new long[(int) distinctAcked.get()];
        int k = 0;
        for (int i = 0; i < total && k < got.length; i++) {
            if (acked.get(i) > 0) {
                got[k++] = latencyNanos[i];
            }
        }
        if (k == 0) {
            return new double[] {0, 0, 0};
        }
        long[] sorted = Arrays.copyOf(got, k);
        Arrays.sort(sorted);
        return new double[] {pct(sorted, 0.50), pct(sorted, 0.99), sorted[k - 1] / 1e6};
    }

    private static double pct(long[] sorted, double p) {
        int idx = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e6;
    }
}
