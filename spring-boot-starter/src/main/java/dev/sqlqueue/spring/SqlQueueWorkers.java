package dev.sqlqueue.spring;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.util.ArrayList;
import java.util.List;
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
    private final Supplier<List<QueueWorker>> workers;
    private final List<MessageHandlerDecorator> decorators;
    private final List<WorkerPool> pools = new ArrayList<>();
    private volatile boolean running;

    /**
     * @param workers read at {@link #start()}, when every bean (and so every annotated method) exists
     */
    public SqlQueueWorkers(SqlQueue queue, SqlQueueProperties.Worker settings, Supplier<List<QueueWorker>> workers,
                           List<MessageHandlerDecorator> decorators) {
        this.queue = queue;
        this.settings = settings;
        this.workers = workers;
        this.decorators = List.copyOf(decorators);
    }

    /** The worker options {@code sqlqueue.worker.*} gives. */
    public static WorkerOptions options(SqlQueueProperties.Worker s) {
        return new WorkerOptions(s.getThreads(), s.getBatchSize(), s.getLease(), ClaimMode.LEASE, s.getPollWait(),
                RetryPolicy.defaults().withMaxAttempts(s.getMaxAttempts()), s.getShutdownGrace(), false, 0,
                s.getTransactionWarnAge());
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
                WorkerOptions o = w.options().apply(defaults);
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

    /** How many worker pools run. */
    public synchronized int pools() {
        return pools.size();
    }
}
