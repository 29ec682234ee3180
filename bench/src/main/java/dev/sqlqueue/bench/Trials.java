package dev.sqlqueue.bench;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One timed trial of each scenario, on the library or on the baseline; each returns msg/s. Filling the
 * queue before a consume trial is not timed; the clock stops when the last message's ack has committed.
 */
final class Trials {
    static final Duration LEASE = Duration.ofSeconds(30);
    private static final long TIMEOUT_S = 600;

    private final Target t;
    private final Baseline base;
    private final RawLoops raw;
    private String lastCpu = "";
    final byte[] payload;

    Trials(Target t, int payloadBytes) {
        this.t = t;
        this.base = new Baseline(t.baseline, t.sql, t.db.dialect());
        this.raw = new RawLoops(t.raw, t.db.dialect(), t.prefix);
        this.payload = new byte[payloadBytes];
        for (int i = 0; i < payloadBytes; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
    }

    private static double rate(int messages, long startNanos) {
        return messages / ((System.nanoTime() - startNanos) / 1e9);
    }

    /** Run {@code threads} copies of {@code body} at once; rethrow the first failure. */
    private static void parallel(int threads, ThrowingRunnable body) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread th = new Thread(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-" + i);
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            try {
                th.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("trial failed: " + failure.get(), failure.get());
        }
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- enqueue ---------------------------------------------------------------------------------

    /** {@code threads} producers, enqueueAll of {@code batch} messages per call. */
    double enqueueLibrary(int messages, int batch, int threads) {
        QueueName q = t.newQueue();
        List<Message> msgs = new ArrayList<>(batch);
        for (int i = 0; i < batch; i++) {
            msgs.add(Message.of(payload));
        }
        AtomicInteger left = new AtomicInteger(messages / batch);
        long start = System.nanoTime();
        parallel(threads, () -> {
            while (left.getAndDecrement() > 0) {
                t.lib.enqueueAll(q, msgs);
            }
        });
        double r = rate(messages / batch * batch, start);
        t.lib.purge(q);
        return r;
    }

    double enqueueBaseline(int messages, int batch, int threads) {
        QueueName q = t.newQueue();
        AtomicInteger left = new AtomicInteger(messages / batch);
        long start = System.nanoTime();
        parallel(threads, () -> {
            while (left.getAndDecrement() > 0) {
                if (base.enqueue(q.value(), batch, payload) != batch) {
                    throw new IllegalStateException("generated ids missing");
                }
            }
        });
        double r = rate(messages / batch * batch, start);
        t.lib.purge(q);
        return r;
    }

    /** {@code threads} producers of the minimal raw enqueue loop (RawLoops.enqueue). */
    double enqueueRaw(int messages, int batch, int threads) {
        QueueName q = t.newQueue();
        AtomicInteger left = new AtomicInteger(messages / batch);
        long start = System.nanoTime();
        parallel(threads, () -> {
            while (left.getAndDecrement() > 0) {
                if (raw.enqueue(q.value(), batch, payload) != batch) {
                    throw new IllegalStateException("rows missing");
                }
            }
        });
        double r = rate(messages / batch * batch, start);
        t.lib.purge(q);
        return r;
    }

    // ---- claim + ack, one thread -----------------------------------------------------------------

    double claimAckLibrary(int messages, int batch) {
        QueueName q = t.newQueue();
        t.fill(q, messages, payload);
        ConsumeRequest req = ConsumeRequest.of(batch).withLease(LEASE);
        int done = 0;
        long start = System.nanoTime();
        while (done < messages) {
            List<Delivery> got = t.lib.consume(q, req);
            if (got.isEmpty()) {
                throw new IllegalStateException("queue empty after " + done + " of " + messages);
            }
            List<Receipt> receipts = new ArrayList<>(got.size());
            for (Delivery d : got) {
                receipts.add(d.receipt());
            }
            Set<Receipt> lost = t.lib.ackAll(receipts);
            if (!lost.isEmpty()) {
                throw new IllegalStateException(lost.size() + " leases lost");
            }
            done += got.size();
        }
        return rate(messages, start);
    }

    double claimAckBaseline(int messages, int batch) throws SQLException {
        QueueName q = t.newQueue();
        t.fill(q, messages, payload);
        int done = 0;
        long start = System.nanoTime();
        while (done < messages) {
            Baseline.Claim c = base.claim(q.value(), batch, LEASE.toMillis());
            if (c.size() == 0) {
                throw new IllegalStateException("queue empty after " + done + " of " + messages);
            }
            if (base.ack(c) != c.size()) {
                throw new IllegalStateException("leases lost");
            }
            done += c.size();
        }
        return rate(messages, start);
    }

    // ---- end to end ------------------------------------------------------------------------------

    /** WorkerPool of {@code workers} threads, claims of {@code batch}; the handler only counts. */
    double endToEndLibrary(int messages, int workers, int batch) throws InterruptedException {
        return endToEndLibrary(messages, WorkerOptions.defaults().withThreads(workers).withBatchSize(batch).withLease(LEASE)
                .withMode(ClaimMode.LEASE).withPollWait(Duration.ofMillis(100)).withShutdownGrace(Duration.ofSeconds(5)));
    }

    /** WorkerPool with these options; the handler only counts. */
    double endToEndLibrary(int messages, WorkerOptions opts) throws InterruptedException {
        int workers = opts.threads();
        int batch = opts.batchSize();
        QueueName q = t.newQueue();
        t.fill(q, messages, payload);
        AtomicLong handled = new AtomicLong();
        AtomicInteger acked = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(1);
        AtomicLong end = new AtomicLong();
        WorkerListener listener = new WorkerListener() {
            @Override
            public void acked(Delivery delivery, long handlerNanos) {
                if (acked.incrementAndGet() == messages) {
                    end.set(System.nanoTime());
                    all.countDown();
                }
            }

            @Override
            public void leaseLost(Delivery delivery) {
                lost.incrementAndGet();
            }
        };
        CpuSplit cpu = CpuSplit.start();
        long start = System.nanoTime();
        WorkerPool pool = WorkerPool.start(t.lib, q, d -> {
            handled.incrementAndGet();
            return Outcome.ack();
        }, opts, listener);
        boolean ok = all.await(TIMEOUT_S, TimeUnit.SECONDS);
        lastCpu = cpu.per1000(messages);
        pool.close();
        if (!ok) {
            throw new IllegalStateException("library end-to-end: " + acked.get() + " of " + messages
                    + " acked, " + lost.get() + " leases lost");
        }
        if (lost.get() > 0) {
            // every message was acked; the WorkerPool's lease renewer reported leases lost for deliveries it
            // raced with their ack (see docs/benchmarks.md)
            System.out.printf("   note: %d of %d messages acked and %d lease-lost reports (workers %d, batch %d)%n",
                    acked.get(), messages, lost.get(), workers, batch);
        }
        return messages / ((end.get() - start) / 1e9);
    }

    /** {@code workers} raw threads: claim transaction, then ack transaction, until every message is acked. */
    double endToEndBaseline(int messages, int workers, int batch) {
        QueueName q = t.newQueue();
        t.fill(q, messages, payload);
        AtomicInteger acked = new AtomicInteger();
        AtomicLong end = new AtomicLong();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        long start = System.nanoTime();
        parallel(workers, () -> {
            while (acked.get() < messages) {
                Baseline.Claim c = base.claim(q.value(), batch, LEASE.toMillis());
                if (c.size() == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("baseline end-to-end timed out");
                    }
                    Thread.sleep(1);
                    continue;
                }
                int gone = base.ack(c);
                if (gone != c.size()) {
                    throw new IllegalStateException("leases lost");
                }
                if (acked.addAndGet(gone) == messages) {
                    end.set(System.nanoTime());
                }
            }
        });
        return messages / ((end.get() - start) / 1e9);
    }

    // ---- the minimal raw loops (RawLoops) --------------------------------------------------------

    /** {@code workers} threads of the minimal lease loop: claim transaction, ack transaction. */
    double rawLease(int messages, int workers, int batch) {
        return rawDrain(messages, workers, q -> {
            long[] ids = raw.leaseClaim(q, batch, LEASE.toMillis());
            if (ids.length == 0) {
                return 0;
            }
            int gone = raw.ack(ids);
            if (gone != ids.length) {
                throw new IllegalStateException("raw ack deleted " + gone + " of " + ids.length);
            }
            return gone;
        });
    }

    /** {@code workers} threads of the minimal transactional loop: delete-and-return transaction. */
    double rawTransactional(int messages, int workers, int batch) {
        return rawDrain(messages, workers, q -> raw.transactionalClaim(q, batch));
    }

    @FunctionalInterface
    private interface Step {
        int run(String queue) throws Exception;
    }

    private double rawDrain(int messages, int workers, Step step) {
        QueueName q = t.newQueue();
        t.fill(q, messages, payload);
        CpuSplit cpu = CpuSplit.start();
        AtomicInteger done = new AtomicInteger();
        AtomicLong end = new AtomicLong();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        long start = System.nanoTime();
        parallel(workers, () -> {
            while (done.get() < messages) {
                int n = step.run(q.value());
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("raw drain timed out");
                    }
                    Thread.sleep(1);
                    continue;
                }
                if (done.addAndGet(n) == messages) {
                    end.set(System.nanoTime());
                }
            }
        });
        lastCpu = cpu.per1000(messages);
        return messages / ((end.get() - start) / 1e9);
    }

    /** The CPU split ({@link CpuSplit}) of the last drain trial, fill excluded. */
    String lastCpu() {
        return lastCpu;
    }
}
