package dev.sqlqueue.cli;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue work}: a durable, retrying {@code xargs -P}. N worker threads ({@link WorkerPool})
 * claim messages and run each as a shell command ({@link ShellCommand}); exit 0 acks, anything else is
 * retried with exponential back-off and dead-lettered after {@code --max-attempts}. Ctrl-C (SIGINT) or
 * SIGTERM stops claiming, lets running commands finish within {@code --grace} and releases claimed
 * messages not started. Prints a summary at the end.
 */
@Command(name = "work", sortOptions = false,
        description = {
            "Run every message of a queue as a shell command, N at a time, with retries.",
            "CMD runs as: /bin/sh -c CMD sqlqueue MESSAGE, where each {} in CMD is replaced by $${1+\"$1\"} "
                + "(the message as one word, also inside double quotes; never parsed as shell syntax); the message is also on standard input. "
                + "Exit 0 acks; anything else retries with back-off, then dead-letters."
        })
public final class WorkCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--queue"}, required = true, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Queue to work on.")
    QueueName queue;

    @Option(names = {"-e", "--exec"}, required = true, paramLabel = "CMD",
            description = "Shell command per message; {} stands for the message.")
    String exec;

    @Option(names = {"-P", "--jobs", "--workers"}, paramLabel = "N", defaultValue = "4",
            description = "Commands run at once (worker threads), 1 to 1024, as xargs -P and GNU parallel -j. Default: ${DEFAULT-VALUE}.")
    int workers;

    /** The old name of {@code -P}: still accepted for one release, with a warning on standard error. */
    @Option(names = "-n", paramLabel = "N", hidden = true, description = "Deprecated: use -P/--jobs.")
    void deprecatedWorkers(int n) {
        workers = n;
        spec.commandLine().getErr().println("sqlqueue: warning: -n is deprecated; use -P/--jobs (-n will be removed in the next release)");
    }

    @Option(names = "--batch-size", paramLabel = "N|auto", defaultValue = "auto",
            description = "Most messages one worker claims at a time, 1 to 1000, or auto (" + AUTO_MAX_BATCH + "). A claim "
                    + "takes about 100 ms of work by the recent run time of a command: 1 at first and while commands "
                    + "are slow, up to this many while they take milliseconds. Default: ${DEFAULT-VALUE}.")
    String batchSize;

    /** The largest claim of --batch-size auto: the library's default (WorkerOptions.defaults()), as the starter's. */
    static final int AUTO_MAX_BATCH = 100;

    @Option(names = "--drain", description = "Exit once the queue has nothing ready, delayed or in flight.")
    boolean drain;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Kill a command (and its child processes) running longer than this; counts as a failure.")
    Duration timeout;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "5",
            description = "Deliveries before a failing message is dead-lettered, 1 to 1000. Default: ${DEFAULT-VALUE}.")
    int maxAttempts;

    @Option(names = "--backoff", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "Delay before the first retry, doubled for each further one (with 20%% jitter). Default: ${DEFAULT-VALUE}.")
    Duration backoff;

    @Option(names = "--max-backoff", paramLabel = "DURATION", defaultValue = "5m", converter = DurationConverter.class,
            description = "Longest delay between retries. Default: ${DEFAULT-VALUE}.")
    Duration maxBackoff;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "Lease of a claimed message, renewed while its command runs. Default: ${DEFAULT-VALUE}.")
    Duration lease;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "lease",
            description = "Claim mode: lease or transactional. Default: ${DEFAULT-VALUE}.")
    ClaimMode mode;

    @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "On Ctrl-C, how long running commands may finish before they are killed. Default: ${DEFAULT-VALUE}.")
    Duration grace;

    @Option(names = "--poll", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "Longest wait of one claim for a new message. Default: ${DEFAULT-VALUE}.")
    Duration poll;

    @Option(names = "--history-max-age", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Retention: delete history rows of the queue that finished longer ago than this "
                    + "(at start, every minute, at the end), e.g. 30d.")
    Duration historyMaxAge;

    @Option(names = "--history-max-rows", paramLabel = "N",
            description = "Retention: keep at most the newest N history rows of the queue (pruned at start, every minute, at the end).")
    Long historyMaxRows;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    HistoryOption history;

    /** Longest claim wait with --drain. */
    static final Duration DRAIN_POLL = Duration.ofMillis(100);

    private volatile ShellCommand command;

    @Override
    public Integer call() throws InterruptedException {
        if (exec.isBlank()) {
            throw new CliException(ExitCodes.USAGE, "--exec must not be empty [rule: exec.empty]");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new CliException(ExitCodes.USAGE, "--timeout must be positive, was " + TypedDurations.text(timeout)
                    + " [rule: timeout.positive]");
        }
        boolean autoBatch = "auto".equalsIgnoreCase(batchSize);
        int maxBatch;
        try {
            maxBatch = autoBatch ? AUTO_MAX_BATCH : Integer.parseInt(batchSize);
        } catch (NumberFormatException e) {
            throw new CliException(ExitCodes.USAGE, "--batch-size must be a number 1..1000 or auto, was '" + batchSize
                    + "' [rule: batch.range]");
        }
        HistoryRetention retention = historyMaxAge == null && historyMaxRows == null ? null
                : HistoryPruneCommand.retention(historyMaxAge, historyMaxRows, "--history-max-age", "--history-max-rows");
        RetryPolicy retry = RetryPolicy.defaults().withMaxAttempts(maxAttempts).withBackoff(backoff, maxBackoff);
        // --drain: a claim waits at most DRAIN_POLL, so the command ends soon after the last ack (a worker
        // that finds nothing ready while others still run long-polls before it checks again)
        Duration claimWait = drain && poll.compareTo(DRAIN_POLL) > 0 ? DRAIN_POLL : poll;
        WorkerOptions options = WorkerOptions.defaults().withThreads(workers).withBatchSize(maxBatch)
                .withLease(lease).withMode(mode).withPollWait(claimWait).withRetry(retry)
                .withShutdownGrace(grace).withStopWhenEmpty(drain);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ShellCommand command = new ShellCommand(exec, timeout, 4096);
        this.command = command;
        QueueConfig config = connection.config(connection.effectiveUrl(), history.orDefault(true), workers, 2);
        OrphanGuard orphans = OrphanGuard.forQueue(config.url(), config.tablePrefix(), queue.value(), err::println);
        ShellHandler handler = new ShellHandler(command, timeout, orphans, err::println);
        WorkCounters counters = new WorkCounters(err);
        long started = System.nanoTime();
        AtomicReference<WorkerPool> running = new AtomicReference<>();
        int code;
        // resources close in reverse order: the pool, then the database, then the guard lets a signal's exit go on
        try (ShutdownGuard guard = new ShutdownGuard(() -> stop(running.get(), err),
                () -> command.killAll("killed by a second signal"), grace.plusSeconds(15));
             SqlQueue client = SqlQueue.open(config)) {
            if (drain) {
                Queues.requireExisting(client, queue); // nothing to drain: most often a typo
            } else if (!client.queues().contains(queue)) {
                // workers may start before the producers; still, a typo must not pass unnoticed
                err.println("sqlqueue: warning: queue '" + queue + "' did not exist; created it empty, waiting for messages");
            }
            client.createQueue(queue);
            if (guard.signalled()) {
                return guard.exitCode(ExitCodes.FAILURE);
            }
            AtomicBoolean dropped = new AtomicBoolean();
            counters.onLeaseLost(() -> {
                try {
                    if (client.queues().contains(queue)) {
                        return false;
                    }
                } catch (RuntimeException e) {
                    return false; // cannot tell: the lease may have run out, as the message says
                }
                if (dropped.compareAndSet(false, true)) {
                    err.println("sqlqueue: queue '" + queue + "' was dropped while work ran; stopping");
                    WorkerPool pool = running.get();
                    if (pool != null) {
                        pool.stopClaiming();
                    }
                }
                return true;
            });
            ScheduledExecutorService pruner = retention == null ? null : Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sqlqueue-history-pruner");
                t.setDaemon(true);
                return t;
            });
            if (pruner != null) {
                pruner.scheduleWithFixedDelay(() -> prune(client, retention, err), 0, PRUNE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
            }
            // the pool sizes each claim (1 at first and while commands are slow, up to the batch size by about
            // 100 ms of work) and group-commits the acks of its threads: see WorkerPool
            try (WorkerPool pool = WorkerPool.start(client, queue, handler, options, counters)) {
                running.set(pool);
                if (guard.signalled()) {
                    pool.stopClaiming();
                }
                pool.awaitTermination();
            } finally {
                if (pruner != null) {
                    pruner.shutdownNow();
                    pruner.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
            if (retention != null) {
                prune(client, retention, err);
            }
            summary(out, counters, Duration.ofNanos(System.nanoTime() - started), guard.signalled());
            code = guard.exitCode(dropped.get() ? ExitCodes.FAILURE
                    : counters.deadLettered() > 0 ? ExitCodes.INCOMPLETE : ExitCodes.OK);
        }
        return code;
    }

    /**
     * Stop claiming, let running commands finish within the grace period, then kill those still running
     * (their handlers return and the pool nacks them) before the pool closes. The worker threads are
     * never interrupted on the way: an interrupted thread cannot settle on H2 (its file channel closes
     * on an interrupt) nor take a connection from the pool.
     */
    /** How often work applies --history-max-age / --history-max-rows while it runs. */
    static final Duration PRUNE_EVERY = Duration.ofMinutes(1);

    private void prune(SqlQueue client, HistoryRetention retention, PrintWriter err) {
        try {
            client.pruneHistory(queue, retention);
        } catch (RuntimeException e) {
            err.println("sqlqueue: history pruning failed (it is tried again): " + ErrorHandler.describe(e));
        }
    }

    private void stop(WorkerPool pool, PrintWriter err) {
        if (pool != null) {
            err.println("sqlqueue: stopping: no new claims; running commands may finish within "
                    + DurationConverter.format(grace) + " (a second Ctrl-C or SIGTERM exits at once)");
            pool.stopClaiming();
            try {
                if (!pool.awaitTermination(grace)) {
                    err.println("sqlqueue: grace period over; killing the commands still running");
                    command.killAll("killed at the end of the shutdown grace period");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            pool.close();
        }
    }

    private void summary(PrintWriter out, WorkCounters c, Duration took, boolean signalled) {
        out.printf("%s '%s' after %s: ok %d, retried %d, dead-lettered %d%s%n",
                signalled || !drain ? "stopped" : "drained", queue, DurationConverter.format(took),
                c.ok(), c.retried(), c.deadLettered(), c.leaseLost() > 0 ? ", lease lost " + c.leaseLost() : "");
        out.flush();
    }
}
