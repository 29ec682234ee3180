package dev.sqlqueue.cli;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue demo}: a self-contained run on a temporary embedded H2 database (deleted afterwards).
 * A producer thread enqueues N messages in batches while M workers consume them; the summary gives
 * throughput, enqueue-to-ack latency (p50, p99, max; measured on this JVM's monotonic clock from the
 * time stamped in each payload just before its batch was enqueued to the ack), and the lost and
 * duplicated counts. A message is lost when it was enqueued (its batch committed) but never acked and
 * is no longer in the queue. Exits with {@link ExitCodes#INCOMPLETE} if a message was lost or the run
 * did not finish (stopped by a signal, or no progress for a minute).
 *
 * <p>With an explicit {@code --url} the demo runs on that database in a new queue {@code demo-<random>},
 * dropped at the end.
 */
@Command(name = "demo", sortOptions = false,
        description = "Enqueue and process N messages on a temporary embedded H2 database and report "
                + "throughput, latency, lost and duplicated messages.")
public final class DemoCommand implements Callable<Integer> {
    private static final int ENQUEUE_BATCH = 1_000;
    private static final Duration STALL = Duration.ofSeconds(60);

    @Spec
    CommandSpec spec;

    @Option(names = {"-m", "--messages"}, paramLabel = "N", defaultValue = "100000",
            description = "Messages to enqueue and process, 1 to 10000000. Default: ${DEFAULT-VALUE}.")
    int messages;

    @Option(names = {"-P", "--jobs", "--workers"}, paramLabel = "N", defaultValue = "8",
            description = "Worker threads, 1 to 1024. Default: ${DEFAULT-VALUE}.")
    int workers;

    /** The old name of {@code -P}: still accepted for one release, with a warning on standard error. */
    @Option(names = "-n", paramLabel = "N", hidden = true, description = "Deprecated: use -P/--jobs.")
    void deprecatedWorkers(int n) {
        workers = n;
        spec.commandLine().getErr().println("sqlqueue: warning: -n is deprecated; use -P/--jobs (-n will be removed in the next release)");
    }

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "100",
            description = "Messages per claim, 1 to 1000. Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "lease",
            description = "Claim mode: lease or transactional. Default: ${DEFAULT-VALUE}.")
    ClaimMode mode;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    HistoryOption history;

    @Override
    public Integer call() throws Exception {
        if (messages < 1 || messages > 10_000_000) {
            throw new CliException(ExitCodes.USAGE, "--messages must be 1..10000000, was " + messages + " [rule: messages.range]");
        }
        WorkerOptions options = WorkerOptions.defaults().withThreads(workers).withBatchSize(batchSize)
                .withMode(mode).withPollWait(Duration.ofMillis(200)).withShutdownGrace(Duration.ofSeconds(5));
        boolean ownUrl = spec.commandLine().getParseResult().hasMatchedOption("--url");
        QueueName queue = QueueName.of("demo-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16));
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DemoTracker tracker = new DemoTracker(messages);
        AtomicReference<WorkerPool> running = new AtomicReference<>();
        Run run = new Run();
        long lost;
        int signalCode;
        // closed in reverse order: the database, then the temporary directory, then the signal guard
        try (ShutdownGuard guard = new ShutdownGuard(() -> run.stop(running.get()), Duration.ofSeconds(30));
             DemoDatabase db = ownUrl ? DemoDatabase.of(connection.effectiveUrl()) : DemoDatabase.createTemporary();
             SqlQueue client = SqlQueue.open(connection.config(db.url(), history.orDefault(true), workers, 3))) {
            client.createQueue(queue);
            out.printf("demo: %,d messages, %d workers, batch %d, %s mode, backend %s (%s)%s%n", messages, workers,
                    batchSize, mode.name().toLowerCase(), client.capabilities().backend(), client.serverVersion(),
                    db.isTemporary() ? ", temporary database" : ", queue " + queue);
            out.flush();
            try {
                try (WorkerPool pool = WorkerPool.start(client, queue, d -> {
                    tracker.handled(d);
                    return Outcome.ack();
                }, options, tracker)) {
                    running.set(pool);
                    Thread producer = new Thread(() -> run.produce(client, queue), "sqlqueue-demo-producer");
                    producer.start();
                    waitForAcks(tracker, producer, run, guard, err);
                    run.stop(null);
                    producer.join();
                }
                QueueStats left = client.stats(queue);
                lost = summary(out, tracker, run, left);
            } finally {
                if (!db.isTemporary()) {
                    client.dropQueue(queue);
                }
            }
            if (run.error.get() != null) {
                throw run.error.get();
            }
            signalCode = guard.exitCode(0);
        }
        boolean complete = run.enqueued.get() == messages && tracker.distinctAcked() == messages;
        if (signalCode != 0) {
            return signalCode;
        }
        return lost > 0 || !complete ? ExitCodes.INCOMPLETE : ExitCodes.OK;
    }

    private void waitForAcks(DemoTracker tracker, Thread producer, Run run, ShutdownGuard guard, PrintWriter err)
            throws InterruptedException {
        Progress progress = new Progress(err, "demo", messages, tracker::distinctAcked, System.console() != null, 5_000);
        long lastCount = -1;
        long lastChange = System.nanoTime();
        while (tracker.distinctAcked() < messages && !guard.signalled() && run.error.get() == null) {
            Thread.sleep(50);
            progress.tick();
            long n = tracker.distinctAcked();
            if (n != lastCount) {
                lastCount = n;
                lastChange = System.nanoTime();
            } else if (!producer.isAlive() && System.nanoTime() - lastChange > STALL.toNanos()) {
                err.println();
                err.println("sqlqueue: demo: no ack for " + DurationConverter.format(STALL) + "; giving up");
                break;
            }
        }
        progress.finish();
    }

    /** Prints the summary; returns the number of messages lost (enqueued, never acked, not in the queue). */
    private long summary(PrintWriter out, DemoTracker t, Run run, QueueStats left) {
        long start = run.start;
        double enqSecs = Math.max(1e-9, (run.enqueueEnd.get() - start) / 1e9);
        double procSecs = Math.max(1e-9, (Math.max(t.lastAckNanos(), start) - start) / 1e9);
        long unacked = t.lost(run.enqueued.get());
        double[] lat = t.latencyMillis();
        out.printf("enqueued    %,d in %.2f s (%,.0f msg/s, batches of %,d, alongside the workers)%n",
                run.enqueued.get(), enqSecs, run.enqueued.get() / enqSecs, ENQUEUE_BATCH);
        out.printf("processed   %,d in %.2f s (%,.0f msg/s, first enqueue to last ack)%n",
                t.distinctAcked(), procSecs, t.distinctAcked() / procSecs);
        out.printf("latency     enqueue to ack: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", lat[0], lat[1], lat[2]);
        // the producer runs alongside the workers: while it enqueues faster than they ack, a message's latency is
        // mostly its wait behind the messages enqueued before it, not one claim-and-ack round trip
        out.printf("            time from enqueue to ack, waiting behind the backlog included: enqueued at %,.0f msg/s,"
                + " acked at %,.0f msg/s%n", run.enqueued.get() / enqSecs, t.distinctAcked() / procSecs);
        if (run.enqueued.get() < messages) {
            out.printf("stopped     after %,d of %,d messages were enqueued%n", run.enqueued.get(), messages);
        }
        long waiting = Math.min(unacked, left.depth() + left.dead());
        if (waiting > 0) {
            out.printf("unfinished  %,d (still in the queue: %,d; dead-lettered: %,d)%n", waiting, left.depth(), left.dead());
        }
        out.printf("lost        %,d%n", unacked - waiting);
        out.printf("duplicated  %,d%n", t.duplicated());
        out.flush();
        return unacked - waiting;
    }

    /** The producer side of one run, and how to stop it. */
    private final class Run {
        /** When the producer began (after the database was opened and the workers started). */
        volatile long start = System.nanoTime();
        final AtomicLong enqueued = new AtomicLong();
        final AtomicLong enqueueEnd = new AtomicLong(start);
        final AtomicReference<Exception> error = new AtomicReference<>();
        volatile boolean stopped;

        void produce(SqlQueue client, QueueName queue) {
            start = System.nanoTime();
            enqueueEnd.set(start);
            try {
                for (int from = 0; from < messages && !stopped; from += ENQUEUE_BATCH) {
                    int to = Math.min(messages, from + ENQUEUE_BATCH);
                    List<Message> batch = new ArrayList<>(to - from);
                    for (int seq = from; seq < to; seq++) {
                        batch.add(Message.of(DemoTracker.payload(seq)));
                    }
                    client.enqueueAll(queue, batch);
                    enqueued.addAndGet(batch.size());
                    enqueueEnd.set(System.nanoTime());
                }
            } catch (RuntimeException e) {
                error.set(e);
            }
        }

        void stop(WorkerPool pool) {
            stopped = true;
            if (pool != null) {
                pool.close();
            }
        }
    }
}
