package dev.sqlqueue.micrometer;

import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_BACKEND;
import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_OUTCOME;
import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_QUEUE;

import dev.sqlqueue.Capability;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.spi.QueueBackend;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One daemon thread that reads {@code stats()} of each queue every interval and keeps the last result;
 * the gauges read that result, so a scrape never reaches the database. A queue that disappears loses
 * its gauges; a failed sample keeps the previous values and is counted in the sample timer. On backends with
 * {@link Capability#OLDEST_TRANSACTIONS} each sample also reads the oldest open transaction of the database, behind
 * {@value SqlQueueMeters#OLDEST_TRANSACTION_AGE}, at most once a second.
 */
final class StatsSampler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StatsSampler.class);

    private final QueueBackend backend;
    private final MeterRegistry registry;
    private final String backendName;
    private final Duration interval;
    private final List<QueueName> fixedQueues;
    private final Runnable housekeeping;
    private final Map<QueueName, QueueGauges> gauges = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor;
    /** The age in ms of the oldest open transaction at the last good read (NaN before it), when the backend tells. */
    private volatile double oldestTransactionMillis = Double.NaN;
    /** The gauge reading {@link #oldestTransactionMillis}, registered at the first sample; null when the backend cannot tell. */
    private volatile Meter oldestTransactionGauge;
    /** System.nanoTime of the last read of the oldest transaction; reads are at least {@link #TRANSACTION_READ_EVERY} apart. */
    private long transactionReadAt;
    private boolean transactionRead;
    /**
     * 1 s. MariaDB's INNODB_TRX is a server-wide cache that a read refreshes only when the previous read (anyone's) was
     * 0.1 s or more before, so a sampler reading it every 50 ms kept a committed transaction in it for everyone.
     */
    static final long TRANSACTION_READ_EVERY = TimeUnit.SECONDS.toNanos(1);

    /** The last sample of one queue and the gauges reading it. */
    private static final class QueueGauges {
        volatile QueueStats last;
        final List<Meter> meters = new ArrayList<>();
    }

    StatsSampler(QueueBackend backend, MeterRegistry registry, String backendName, Duration interval,
                 List<QueueName> fixedQueues, Runnable housekeeping) {
        this.backend = backend;
        this.registry = registry;
        this.backendName = backendName;
        this.interval = interval;
        this.fixedQueues = fixedQueues;
        this.housekeeping = housekeeping;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-stats-sampler-" + backendName);
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        executor.scheduleWithFixedDelay(this::sampleQuietly, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Sample once more now (after a queue was created), besides the interval's samples. */
    void sampleSoon() {
        try {
            executor.execute(this::sampleQuietly);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed: nothing to sample
        }
    }

    private void sampleQuietly() {
        try {
            sample();
            housekeeping.run();
        } catch (RuntimeException e) {
            LOG.debug("stats sample failed: {}", e.toString());
        }
    }

    void sample() {
        long start = System.nanoTime();
        String outcome = "success";
        try {
            List<QueueName> queues = fixedQueues.isEmpty() ? backend.queues() : fixedQueues;
            Set<QueueName> seen = new HashSet<>(queues);
            for (QueueName q : queues) {
                QueueStats s;
                try {
                    s = backend.stats(q);
                } catch (dev.sqlqueue.InvalidInputException e) {
                    if (!"queue.exists".equals(e.rule())) {
                        throw e;
                    }
                    // dropped since it was listed, or a fixed queue not created yet: no sample of it
                    seen.remove(q);
                    continue;
                }
                gauges.computeIfAbsent(q, this::register).last = s;
            }
            for (QueueName gone : new ArrayList<>(gauges.keySet())) {
                if (!seen.contains(gone)) {
                    unregister(gauges.remove(gone));
                }
            }
            sampleOldestTransaction();
        } catch (RuntimeException e) {
            outcome = "error";
            throw e;
        } finally {
            Timer.builder(SqlQueueMeters.STATS_SAMPLE)
                    .description("One sample of stats() for every metered queue")
                    .tag(TAG_BACKEND, backendName).tag(TAG_OUTCOME, outcome)
                    .register(registry).record(Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /**
     * The age of the oldest open transaction, one query per sample on backends with
     * {@link Capability#OLDEST_TRANSACTIONS}; a failed read (a user without the privilege to see other sessions, say)
     * keeps the previous value and does not fail the queues' sample.
     */
    private void sampleOldestTransaction() {
        if (!backend.capabilities().has(Capability.OLDEST_TRANSACTIONS)) {
            return;
        }
        long now = System.nanoTime();
        if (transactionRead && now - transactionReadAt < TRANSACTION_READ_EVERY) {
            return;
        }
        transactionRead = true;
        transactionReadAt = now;
        try {
            List<OpenTransaction> oldest = backend.oldestTransactions(1);
            oldestTransactionMillis = oldest.isEmpty() ? 0 : oldest.get(0).ageMillis();
        } catch (RuntimeException e) {
            LOG.debug("reading the oldest open transaction failed: {}", e.toString());
        }
        if (oldestTransactionGauge == null) {
            oldestTransactionGauge = TimeGauge.builder(SqlQueueMeters.OLDEST_TRANSACTION_AGE, this, TimeUnit.MILLISECONDS,
                            x -> x.oldestTransactionMillis)
                    .description("How long the oldest transaction open on the database (another session's) has been open,"
                            + " database clock; 0 when none. It holds back the clean-up of the queue's tables")
                    .tags(Tags.of(TAG_BACKEND, backendName)).strongReference(true).register(registry);
        }
    }

    private QueueGauges register(QueueName queue) {
        QueueGauges g = new QueueGauges();
        Tags tags = Tags.of(TAG_QUEUE, queue.value(), TAG_BACKEND, backendName);
        // the queue's counters too, at 0, so that a rate or an alert has a series before the first event
        MeteredBackend.COUNTERS.forEach((name, description) ->
                g.meters.add(io.micrometer.core.instrument.Counter.builder(name).description(description).tags(tags).register(registry)));
        g.meters.add(gauge(SqlQueueMeters.READY, "Messages visible now and not leased", tags, g, QueueStats::ready));
        g.meters.add(gauge(SqlQueueMeters.DELAYED, "Messages not yet visible (delayed enqueue or nack delay)", tags, g, QueueStats::delayed));
        g.meters.add(gauge(SqlQueueMeters.IN_FLIGHT, "Messages under an unexpired lease", tags, g, QueueStats::inFlight));
        g.meters.add(gauge(SqlQueueMeters.DEAD_LETTERS, "Messages in the dead-letter store", tags, g, QueueStats::dead));
        g.meters.add(TimeGauge.builder(SqlQueueMeters.OLDEST_READY_AGE, g, TimeUnit.MILLISECONDS,
                        x -> x.last == null ? Double.NaN : x.last.oldestReadyAgeMillis())
                .description("Age of the oldest ready message (database clock), 0 when none is ready")
                .tags(tags).strongReference(true).register(registry));
        return g;
    }

    private Gauge gauge(String name, String description, Tags tags, QueueGauges g, ToDoubleFunction<QueueStats> f) {
        return Gauge.builder(name, g, x -> x.last == null ? Double.NaN : f.applyAsDouble(x.last))
                .description(description).baseUnit("messages").tags(tags).strongReference(true).register(registry);
    }

    private void unregister(QueueGauges g) {
        if (g != null) {
            g.meters.forEach(registry::remove);
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
        gauges.values().forEach(this::unregister);
        gauges.clear();
        if (oldestTransactionGauge != null) {
            registry.remove(oldestTransactionGauge);
        }
    }
}
