package dev.sqlqueue.micrometer;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.QueueBackend;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Micrometer metrics for sqlqueue. Meters a backend by decoration (no change to a dialect): every
 * enqueue, claim and settlement that goes through the returned {@link SqlQueue} is counted and timed,
 * and the depth of each queue is sampled from {@code stats()} on a background thread every
 * {@link #statsInterval()}; the gauges read that sample, so a scrape never runs a query.
 *
 * <pre>{@code
 * SqlQueueMetrics metrics = SqlQueueMetrics.of(registry).withStatsInterval(Duration.ofSeconds(15));
 * try (SqlQueue q = metrics.open(QueueConfig.ofUrl(url));
 *      WorkerPool pool = WorkerPool.start(q, jobs, metrics.timed(q, jobs, handler), options, null)) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Meter names are the constants of {@link SqlQueueMeters}; docs/observability.md lists them with their
 * tags. Closing the {@link SqlQueue} stops its sampler and removes its gauges. Immutable and thread-safe.
 */
public final class SqlQueueMetrics {
    /** The default pause between two samples of {@code stats()}: 15 s. */
    public static final Duration DEFAULT_STATS_INTERVAL = Duration.ofSeconds(15);

    private final MeterRegistry registry;
    private final Duration statsInterval;
    private final List<QueueName> queues;
    private final TransactionCommitHook commitHook;

    private SqlQueueMetrics(MeterRegistry registry, Duration statsInterval, List<QueueName> queues, TransactionCommitHook commitHook) {
        this.registry = registry;
        this.statsInterval = statsInterval;
        this.queues = queues;
        this.commitHook = commitHook;
    }

    /**
     * Meters registered in {@code registry}; gauges sampled every 15 s for every queue that exists.
     *
     * @param registry where the meters are registered
     * @return the metrics, with no queue list and no commit hook
     */
    public static SqlQueueMetrics of(MeterRegistry registry) {
        return new SqlQueueMetrics(Objects.requireNonNull(registry, "registry"), DEFAULT_STATS_INTERVAL, List.of(), null);
    }

    /**
     * @param interval pause between two samples of {@code stats()}, 10 ms..1 h; each sample runs one
     *     {@code stats()} per queue (plus one {@code queues()} unless {@link #withQueues} fixed the list)
     * @return a copy with that interval
     * @throws InvalidInputException (rule {@code metrics.stats-interval}) outside that range
     */
    public SqlQueueMetrics withStatsInterval(Duration interval) {
        if (interval == null || interval.toMillis() < 10 || interval.compareTo(Duration.ofHours(1)) > 0) {
            throw new InvalidInputException("metrics.stats-interval", "stats interval must be 10 ms..1 h, was " + interval);
        }
        return new SqlQueueMetrics(registry, interval, queues, commitHook);
    }

    /**
     * Sample only these queues (empty: every queue {@code queues()} lists at each sample, the default).
     *
     * @param only the queues to sample
     * @return a copy sampling those queues
     */
    public SqlQueueMetrics withQueues(List<QueueName> only) {
        return new SqlQueueMetrics(registry, statsInterval, List.copyOf(only), commitHook);
    }

    /**
     * Count an enqueue on the caller's connection when {@code hook} says its transaction committed, not
     * when its insert succeeded (see {@link TransactionCommitHook}); {@code null} for none (the default).
     *
     * @param hook the commit hook, or null
     * @return a copy with that hook
     */
    public SqlQueueMetrics withCommitHook(TransactionCommitHook hook) {
        return new SqlQueueMetrics(registry, statsInterval, queues, hook);
    }

    /**
     * The pause between two samples of {@code stats()}.
     *
     * @return the interval
     */
    public Duration statsInterval() {
        return statsInterval;
    }

    /**
     * Where the meters are registered.
     *
     * @return the registry
     */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Open the backend {@code config} selects (as {@link SqlQueue#open} does), metered.
     *
     * @param config what to open
     * @return the open, metered queue client
     * @throws InvalidInputException if no backend matches the config
     */
    public SqlQueue open(QueueConfig config) {
        QueueBackend backend = BackendDiscovery.find(config).open(config);
        return SqlQueue.wrap(instrument(backend), config);
    }

    /**
     * Meter a backend and start sampling its stats; pass the result to {@link SqlQueue#wrap}. Closing the
     * returned backend stops the sampler, removes the gauges and closes {@code backend}.
     *
     * @param backend the backend to meter
     * @return the metered backend
     */
    public QueueBackend instrument(QueueBackend backend) {
        MeteredBackend metered = new MeteredBackend(backend, registry, backend.capabilities().backend(), commitHook);
        metered.startSampling(statsInterval, queues);
        return metered;
    }

    /**
     * Time {@code handler} into {@value SqlQueueMeters#HANDLER_DURATION}, tagged with the outcome:
     * {@code ack}, {@code retry}, {@code dead_letter}, or {@code error} when it threw.
     *
     * @param client the client the handler's pool consumes from (gives the backend tag)
     * @param queue the queue the handler consumes (the queue tag)
     * @param handler the handler to time
     * @return the timed handler
     */
    public MessageHandler timed(QueueClient client, QueueName queue, MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        Tags tags = Tags.of(SqlQueueMeters.TAG_QUEUE, queue.value(), SqlQueueMeters.TAG_BACKEND, client.capabilities().backend());
        Timer ack = handlerTimer(tags, "ack");
        Timer retry = handlerTimer(tags, "retry");
        Timer dead = handlerTimer(tags, "dead_letter");
        Timer error = handlerTimer(tags, "error");
        return (Delivery d) -> {
            long start = System.nanoTime();
            Timer which = error;
            try {
                Outcome o = handler.handle(d);
                which = o instanceof Outcome.Ack ? ack : o instanceof Outcome.DeadLetter ? dead : retry;
                return o;
            } finally {
                which.record(Duration.ofNanos(System.nanoTime() - start));
            }
        };
    }

    private Timer handlerTimer(Tags tags, String outcome) {
        return Timer.builder(SqlQueueMeters.HANDLER_DURATION)
                .description("Run time of the message handler, per outcome")
                .tags(tags).tag(SqlQueueMeters.TAG_OUTCOME, outcome)
                .register(registry);
    }
}
