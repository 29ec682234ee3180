package dev.sqlqueue.spring;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs every {@link QueueWorker} (beans and {@link SqlQueueHandler} methods) in a {@link WorkerPool}
 * from the context's start to its stop. Stop is graceful: claiming stops, running handlers get
 * {@code sqlqueue.worker.shutdown-grace}, claimed messages not started are released. Runs in the last
 * start phase, so it stops first, while the DataSource and the beans handlers use are still there.
 */
public class SqlQueueWorkers implements SmartLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(SqlQueueWorkers.class);

    private final SqlQueue queue;
    private final SqlQueueProperties.Worker settings;
    private final Map<String, SqlQueueProperties.Handler> handlerSettings;
    private final Supplier<List<QueueWorker>> workers;
    private final List<MessageHandlerDecorator> decorators;
    private final List<WorkerPool> pools = new ArrayList<>();
    private volatile boolean running;

    /**
     * Workers with the same settings for every queue.
     *
     * @param queue the queue client the pools consume from
     * @param settings {@code sqlqueue.worker.*}
     * @param workers read at {@link #start()}, when every bean (and so every annotated method) exists
     * @param decorators the handler decorators, applied in order, the first innermost
     */
    public SqlQueueWorkers(SqlQueue queue, SqlQueueProperties.Worker settings, Supplier<List<QueueWorker>> workers,
                           List<MessageHandlerDecorator> decorators) {
        this(queue, settings, Map.of(), workers, decorators);
    }

    /**
     * Workers with settings by queue.
     *
     * @param queue the queue client the pools consume from
     * @param settings {@code sqlqueue.worker.*}
     * @param handlerSettings {@code sqlqueue.handlers.*}: settings by queue name over {@code settings}
     * @param workers read at {@link #start()}, when every bean (and so every annotated method) exists
     * @param decorators the handler decorators, applied in order, the first innermost
     * @throws dev.sqlqueue.InvalidInputException naming the rule a setting breaks
     */
    public SqlQueueWorkers(SqlQueue queue, SqlQueueProperties.Worker settings, Map<String, SqlQueueProperties.Handler> handlerSettings,
                           Supplier<List<QueueWorker>> workers, List<MessageHandlerDecorator> decorators) {
        this.queue = queue;
        this.settings = settings;
        this.handlerSettings = Map.copyOf(handlerSettings);
        // a value out of range fails the context's start here, naming the rule, not at the first pool
        WorkerOptions defaults = options(settings);
        this.handlerSettings.values().forEach(h -> options(defaults, h));
        this.workers = workers;
        this.decorators = List.copyOf(decorators);
    }

    /**
     * The worker options {@code sqlqueue.worker.*} gives.
     *
     * @param s the {@code sqlqueue.worker.*} settings
     * @return the options: lease claims, the settings' threads, batch size, lease, poll wait, retry, grace and
     *     transaction warning age
     * @throws dev.sqlqueue.InvalidInputException naming the rule a value breaks (for example
     *     {@code retry.multiplier})
     */
    public static WorkerOptions options(SqlQueueProperties.Worker s) {
        SqlQueueProperties.Backoff b = s.getBackoff();
        return new WorkerOptions(s.getThreads(), s.getBatchSize(), s.getLease(), ClaimMode.LEASE, s.getPollWait(),
                new RetryPolicy(s.getMaxAttempts(), b.getInitial(), b.getMax(), b.getMultiplier(), b.getJitter()),
                s.getShutdownGrace(), false, 0, s.getTransactionWarnAge());
    }

    /**
     * {@code defaults} with the settings of {@code sqlqueue.handlers.<queue>.*} that are given.
     *
     * @param defaults the options of {@code sqlqueue.worker.*}
     * @param h the queue's settings, or null for none
     * @return {@code defaults} with each setting {@code h} gives
     * @throws dev.sqlqueue.InvalidInputException naming the rule a given value breaks
     */
    public static WorkerOptions options(WorkerOptions defaults, SqlQueueProperties.Handler h) {
        if (h == null) {
            return defaults;
        }
        WorkerOptions o = defaults;
        if (h.getThreads() != null) {
            o = o.withThreads(h.getThreads());
        }
        if (h.getBatchSize() != null) {
            o = o.withBatchSize(h.getBatchSize());
        }
        if (h.getLease() != null) {
            o = o.withLease(h.getLease());
        }
        RetryPolicy r = o.retry();
        SqlQueueProperties.HandlerBackoff b = h.getBackoff();
        RetryPolicy retry = new RetryPolicy(h.getMaxAttempts() != null ? h.getMaxAttempts() : r.maxAttempts(),
                b.getInitial() != null ? b.getInitial() : r.initialBackoff(), b.getMax() != null ? b.getMax() : r.maxBackoff(),
                b.getMultiplier() != null ? b.getMultiplier() : r.multiplier(), b.getJitter() != null ? b.getJitter() : r.jitter());
        return o.withRetry(retry);
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        WorkerOptions defaults = options(settings);
        try {
            for (QueueWorker w : workers.get()) {
                queue.createQueue(w.queue());
                MessageHandler h = w.handler();
                for (MessageHandlerDecorator d : decorators) {
                    h = d.decorate(queue, w.queue(), h);
                }
                WorkerOptions o = w.options().apply(options(defaults, handlerSettings.get(w.queue().value())));
                pools.add(WorkerPool.start(queue, w.queue(), h, o, null));
                LOG.info("sqlqueue: {} worker thread(s) on queue '{}'", o.threads(), w.queue());
            }
        } catch (RuntimeException e) {
            stop(); // the pools already started do not outlive a failed start
            throw e;
        }
        running = true;
    }

    @Override
    public synchronized void stop() {
        pools.forEach(WorkerPool::stopClaiming);
        pools.forEach(WorkerPool::close);
        pools.clear();
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Last to start, first to stop. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    /**
     * How many worker pools run.
     *
     * @return how many worker pools run: 0 before start and after stop, one per worker while running
     */
    public synchronized int pools() {
        return pools.size();
    }
}
