package dev.sqlqueue.dashboard;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueAdmin;
import dev.sqlqueue.QueueName;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The charts' data, sampled in this process: one daemon thread reads, every interval, the newest
 * history rows of each queue ({@link QueueAdmin#history}) and files the rows it has not seen yet into
 * 10-second buckets by their finish time: how many were acked and dead-lettered (throughput), and the
 * enqueue-to-ack latency of the acked ones ({@code finishedAt - enqueuedAt}, both on the database clock). Buckets
 * older than one hour are dropped. Nothing is written to the database.
 *
 * <p>The charts therefore need the history ({@code QueueConfig.history()}; {@code sqlqueue work} keeps
 * it by default). The first sample files the history rows of the last hour already there. A sample
 * reads at most {@value #FETCH} rows per queue; when more were processed since the previous sample, the
 * difference of {@code stats().processed} is added to the newest bucket as throughput (without latency).
 * Thread-safe.
 */
final class ChartSampler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChartSampler.class);
    /** Width of one bucket in ms. */
    static final long BUCKET_MS = 10_000;
    /** Buckets of the last hour. */
    static final int BUCKETS = 360;
    static final int FETCH = 5000;
    /** Latencies kept per bucket for the percentiles (the count goes on beyond). */
    private static final int LATENCIES_PER_BUCKET = 2000;

    private final QueueAdmin admin;
    private final Duration interval;
    private final Map<QueueName, QueueSeries> series = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor;

    /** One 10-second bucket. */
    private static final class Bucket {
        long acked;
        long dead;
        long[] latencies = new long[16];
        int n;

        void latency(long ms) {
            if (n == LATENCIES_PER_BUCKET) {
                return;
            }
            if (n == latencies.length) {
                latencies = Arrays.copyOf(latencies, Math.min(LATENCIES_PER_BUCKET, n * 2));
            }
            latencies[n++] = ms;
        }
    }

    /** What has been seen of one queue. */
    private static final class QueueSeries {
        final TreeMap<Long, Bucket> buckets = new TreeMap<>();
        Instant newestFinish;
        final Set<Long> idsAtNewestFinish = new HashSet<>();
        long lastProcessed = -1;
        long newestBucket = Long.MIN_VALUE;
    }

    ChartSampler(QueueAdmin admin, Duration interval) {
        this.admin = admin;
        this.interval = interval;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-dashboard-sampler");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        executor.scheduleWithFixedDelay(this::sampleQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sampleQuietly() {
        try {
            sample();
        } catch (RuntimeException e) {
            LOG.debug("dashboard sample failed: {}", e.toString());
        }
    }

    /** One sample of every queue now (the thread does this every interval). */
    void sample() {
        List<QueueName> queues = admin.queues();
        series.keySet().retainAll(new HashSet<>(queues));
        for (QueueName q : queues) {
            try {
                sample(q);
            } catch (dev.sqlqueue.InvalidInputException e) {
                if (!"queue.exists".equals(e.rule())) {
                    throw e;
                }
                series.remove(q); // dropped since it was listed
            }
        }
    }

    private void sample(QueueName q) {
        long processed = admin.stats(q).processed();
        List<HistoryEntry> rows = admin.history(q, FETCH);
        QueueSeries s = series.computeIfAbsent(q, k -> new QueueSeries());
        synchronized (s) {
            Instant newest = s.newestFinish;
            List<HistoryEntry> fresh = new ArrayList<>();
            for (HistoryEntry h : rows) {
                if (h.finishedAt() == null) {
                    continue;
                }
                int cmp = newest == null ? 1 : h.finishedAt().compareTo(newest);
                if (cmp > 0 || (cmp == 0 && !s.idsAtNewestFinish.contains(h.messageId()))) {
                    fresh.add(h);
                }
            }
            for (HistoryEntry h : fresh) {
                long key = Math.floorDiv(h.finishedAt().toEpochMilli(), BUCKET_MS) * BUCKET_MS;
                Bucket b = s.buckets.computeIfAbsent(key, k -> new Bucket());
                if ("acked".equals(h.outcome())) {
                    b.acked++;
                    if (h.enqueuedAt() != null) {
                        b.latency(Math.max(0, h.finishedAt().toEpochMilli() - h.enqueuedAt().toEpochMilli()));
                    }
                } else {
                    b.dead++;
                }
                s.newestBucket = Math.max(s.newestBucket, key);
                if (s.newestFinish == null || h.finishedAt().isAfter(s.newestFinish)) {
                    s.newestFinish = h.finishedAt();
                    s.idsAtNewestFinish.clear();
                }
                if (h.finishedAt().equals(s.newestFinish)) {
                    s.idsAtNewestFinish.add(h.messageId());
                }
            }
            if (rows.size() == FETCH && fresh.size() == FETCH && s.lastProcessed >= 0) {
                long missed = processed - s.lastProcessed - fresh.size();
                if (missed > 0) {
                    s.buckets.get(s.newestBucket).acked += missed;
                }
            }
            s.lastProcessed = processed;
            long oldest = now(s) - BUCKETS * BUCKET_MS;
            s.buckets.headMap(oldest, false).clear();
        }
    }

    private static long now(QueueSeries s) {
        long now = System.currentTimeMillis();
        return s.newestFinish == null ? now : Math.max(now, s.newestFinish.toEpochMilli());
    }

    /**
     * The last hour of one queue as JSON: {@code t} (bucket start, epoch seconds), {@code acked} and
     * {@code dead} (messages per second), {@code p50} and {@code p95} (enqueue-to-ack latency in ms,
     * null for an empty bucket), and {@code sampled} (false before the first sample of the queue).
     */
    String seriesJson(QueueName q) {
        QueueSeries s = series.get(q);
        Json j = new Json().beginObject().member("bucketSeconds", BUCKET_MS / 1000);
        if (s == null) {
            return j.member("sampled", false).endObject().toString();
        }
        synchronized (s) {
            long last = Math.floorDiv(now(s), BUCKET_MS) * BUCKET_MS;
            long first = last - (BUCKETS - 1) * BUCKET_MS;
            j.member("sampled", true);
            j.name("t").beginArray();
            for (long t = first; t <= last; t += BUCKET_MS) {
                j.value(t / 1000);
            }
            j.endArray();
            array(j, "acked", s, first, last, b -> b == null ? 0.0 : b.acked * 1000.0 / BUCKET_MS);
            array(j, "dead", s, first, last, b -> b == null ? 0.0 : b.dead * 1000.0 / BUCKET_MS);
            array(j, "p50", s, first, last, b -> percentile(b, 0.50));
            array(j, "p95", s, first, last, b -> percentile(b, 0.95));
            long total = 0;
            for (Bucket b : s.buckets.tailMap(first, true).values()) {
                total += b.acked + b.dead;
            }
            j.member("processedLastHour", total);
        }
        return j.endObject().toString();
    }

    private static void array(Json j, String name, QueueSeries s, long first, long last,
                              java.util.function.Function<Bucket, Double> f) {
        j.name(name).beginArray();
        for (long t = first; t <= last; t += BUCKET_MS) {
            Double v = f.apply(s.buckets.get(t));
            if (v == null) {
                j.value((String) null);
            } else {
                j.value(v.doubleValue());
            }
        }
        j.endArray();
    }

    private static Double percentile(Bucket b, double p) {
        if (b == null || b.n == 0) {
            return null;
        }
        long[] sorted = Arrays.copyOf(b.latencies, b.n);
        Arrays.sort(sorted);
        int idx = (int) Math.ceil(p * sorted.length) - 1;
        return (double) sorted[Math.max(0, idx)];
    }

    /** Sample again soon (after an action changed the queue). */
    void sampleSoon() {
        try {
            executor.execute(this::sampleQuietly);
        } catch (RejectedExecutionException closed) {
            // closed: nothing to sample
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
