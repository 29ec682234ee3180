package dev.sqlqueue.bench;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backlog of {@code messages} (enqueueAll in batches of 500, 4 producer threads) drained by a WorkerPool
 * of 8 threads claiming 100 at a time. Heap used (MemoryMXBean) is sampled every 100 ms; the peak and a
 * per-tenth profile of the drain are printed, the samples written beside the results CSV.
 */
final class MemoryBench {
    private MemoryBench() {
    }

    private static final MemoryMXBean MEM = ManagementFactory.getMemoryMXBean();

    static void run(Target t, int messages, Results results, Path timeline) throws Exception {
        Trials trials = new Trials(t, 100);
        QueueName q = t.newQueue();
        double xmxMb = Runtime.getRuntime().maxMemory() / 1048576.0;
        List<long[]> samples = new ArrayList<>(); // elapsed ms, phase (0 enqueue, 1 drain), used bytes
        AtomicInteger phase = new AtomicInteger();
        long t0 = System.nanoTime();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "bench-heap-sampler");
            th.setDaemon(true);
            return th;
        });
        sampler.scheduleAtFixedRate(() -> {
            synchronized (samples) {
                samples.add(new long[] {(System.nanoTime() - t0) / 1_000_000, phase.get(), MEM.getHeapMemoryUsage().getUsed()});
            }
        }, 0, 100, TimeUnit.MILLISECONDS);

        // backlog
        List<Message> batch = new ArrayList<>(500);
        for (int i = 0; i < 500; i++) {
            batch.add(Message.of(trials.payload));
        }
        AtomicInteger left = new AtomicInteger(messages / 500);
        long enqStart = System.nanoTime();
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            Thread th = new Thread(() -> {
                while (left.getAndDecrement() > 0) {
                    t.lib.enqueueAll(q, batch);
                }
            }, "bench-producer-" + p);
            producers.add(th);
            th.start();
        }
        for (Thread th : producers) {
            th.join();
        }
        int total = messages / 500 * 500;
        double enqRate = total / ((System.nanoTime() - enqStart) / 1e9);
        System.out.printf(Locale.ROOT, "memory %s: backlog of %d messages enqueued at %.0f msg/s%n", t.db.name(), total, enqRate);

        // drain
        phase.set(1);
        AtomicInteger acked = new AtomicInteger();
        AtomicLong end = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        WorkerOptions opts = WorkerOptions.defaults().withThreads(8).withBatchSize(100).withLease(Trials.LEASE)
                .withMode(ClaimMode.LEASE).withPollWait(Duration.ofMillis(100));
        long drainStart = System.nanoTime();
        WorkerPool pool = WorkerPool.start(t.lib, q, d -> Outcome.ack(), opts, new WorkerListener() {
            @Override
            public void acked(Delivery delivery, long handlerNanos) {
                if (acked.incrementAndGet() == total) {
                    end.set(System.nanoTime());
                    all.countDown();
                }
            }
        });
        boolean ok = all.await(30, TimeUnit.MINUTES);
        pool.close();
        phase.set(2);
        sampler.shutdown();
        sampler.awaitTermination(1, TimeUnit.SECONDS);
        if (!ok) {
            throw new IllegalStateException("drain incomplete: " + acked.get() + " of " + total);
        }
        double drainRate = total / ((end.get() - drainStart) / 1e9);

        long peakEnq = 0;
        long peakDrain = 0;
        List<long[]> drain = new ArrayList<>();
        synchronized (samples) {
            for (long[] s : samples) {
                if (s[1] == 0) {
                    peakEnq = Math.max(peakEnq, s[2]);
                } else if (s[1] == 1) {
                    peakDrain = Math.max(peakDrain, s[2]);
                    drain.add(s);
                }
            }
        }
        System.out.printf(Locale.ROOT, "memory %s: drained by 8 workers (batch 100) at %.0f msg/s; -Xmx %.0f MB; "
                        + "peak heap used %.1f MB while enqueueing, %.1f MB while draining (%d samples)%n",
                t.db.name(), drainRate, xmxMb, peakEnq / 1048576.0, peakDrain / 1048576.0, drain.size());
        StringBuilder tenths = new StringBuilder("memory " + t.db.name() + ": peak heap used per tenth of the drain (MB):");
        for (int k = 0; k < 10 && !drain.isEmpty(); k++) {
            long peak = 0;
            for (int i = k * drain.size() / 10; i < (k + 1) * drain.size() / 10; i++) {
                peak = Math.max(peak, drain.get(i)[2]);
            }
            tenths.append(String.format(Locale.ROOT, " %.0f", peak / 1048576.0));
        }
        System.out.println(tenths);
        results.memory(t.db.name(), 8, 100, total, drainRate, Math.max(peakEnq, peakDrain) / 1048576.0, xmxMb);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(timeline, StandardCharsets.UTF_8))) {
            w.println("elapsed_ms,phase,heap_used_bytes");
            synchronized (samples) {
                for (long[] s : samples) {
                    w.printf(Locale.ROOT, "%d,%s,%d%n", s[0], s[1] == 0 ? "enqueue" : s[1] == 1 ? "drain" : "done", s[2]);
                }
            }
        } catch (IOException e) {
            System.out.println("could not write " + timeline + ": " + e.getMessage());
        }
    }
}
