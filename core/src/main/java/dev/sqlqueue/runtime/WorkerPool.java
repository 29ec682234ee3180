package dev.sqlqueue.runtime;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.Receipt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * N consumer threads over one queue: claim a batch, run the handler on each delivery, turn the outcome
 * into ack, nack (with the retry policy's back-off) or dead-letter, and renew leases while handlers
 * run. Survives database outages: a failing claim is retried with exponential back-off and the threads
 * live on.
 *
 * <p>Shutdown ({@link #close()}) stops claiming at once, lets running handlers finish for up to the grace
 * period (then interrupts them), releases claimed deliveries that were not started, and only then stops
 * renewing leases. Thread-safe.
 *
 * <p><b>Claims and acks.</b> Each thread sizes its claims (at most {@link WorkerOptions#batchSize()}):
 * after a claim that came back full (a deep backlog) it asks for the most, and takes what came back, down to one
 * message, when they come back short (low load keeps the latency of single claims), and never claims
 * more than about 100 ms of work by the recent mean handler time (a quarter of the lease if that is
 * less), so slow handlers are fed one message at a time and no message waits in a thread's batch. In
 * lease mode the acks of a batch are written when the batch is done, together with the thread's next claim
 * ({@link QueueClient#ackAllAndConsume}: one round trip and one commit for both on PostgreSQL); earlier, on
 * their own, when a handler took more than a quarter of the lease, and at shutdown. When that call fails with a
 * {@link TransientBackendException} (the database unreachable), the acks are tried again with the next claim
 * after the back-off, until three quarters of their lease have passed, so a short outage redelivers nothing. Acks written on their
 * own by a thread with fewer than 32 share one transaction with the acks other threads are writing at that
 * moment (a group commit), larger sets commit on their own. {@code acked} is reported only after the
 * transaction holding the delivery committed, and a lost lease to the delivery it belongs to.
 *
 * <p><b>Transactional mode.</b> A claimed batch is one database transaction that commits when its last
 * delivery is settled. While handlers run, the pool renews the claim every third of the lease (where the
 * backend has {@link Capability#LEASE_EXTENSION}), so a backend that rolls back claims older than their
 * lease never undoes a batch the pool is still working on. The listener hears {@code acked},
 * {@code retried} and {@code deadLettered} for a transactional batch only once its commit succeeded;
 * when the commit (or any settle of the batch) failed, the whole batch was rolled back and every delivery
 * of it is reported as {@code leaseLost}: it comes back to the queue.
 *
 * <p><b>Connections.</b> In transactional mode each worker thread holds one connection of the backend's
 * pool for its batch's whole run, so the pool needs at least
 * {@code threads x (1 + handlerConnections) + 1} connections: one per claimed batch, the handlers' own
 * ({@link WorkerOptions#handlerConnections()}), and one for everything else (claims of the next batch,
 * statistics). In lease mode no connection is held while a handler runs; with handler connections the
 * pool needs {@code threads x handlerConnections + 1}. {@link #start} refuses a smaller
 * {@link QueueClient#poolSize()} with an {@link InvalidInputException} (rule
 * {@code workers.pool-size}) that names the numbers: the backend's own pool, or a caller's {@code DataSource}
 * whose size the backend can read (a HikariCP pool, on the SKIP LOCKED backends). A handler that needs a
 * connection of its own either declares it with {@link WorkerOptions#withHandlerConnections(int)} (and the pool
 * is sized for it), or, better, writes in the delivery's own transaction where the backend offers it, or takes
 * it from a {@code DataSource} of its own. When the size of a caller's {@code DataSource} cannot be read, the
 * first start that needs connections logs a WARN (once per process): give it that number of connections.
 *
 * <p><b>Transactions held open elsewhere.</b> On backends with {@link Capability#OLDEST_TRANSACTIONS} (PostgreSQL,
 * MariaDB) a daemon thread of the pool reads {@link QueueClient#oldestTransactions} every half
 * {@link WorkerOptions#transactionWarnAge()} (1 s..30 s; one query on the server's activity views, never on a claim's
 * path) and logs a WARN naming the oldest session whose transaction has been open that long: its id, user,
 * application, client, state, age and the start of its query. Such a transaction keeps the server from cleaning up
 * the row versions claims leave behind, and every claim slows down (issue 31). The same session is named again every
 * 10 minutes while it stays open; an INFO says when none is left. Each pool checks on its own.
 */
public final class WorkerPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
    private static final long MAX_ERROR_BACKOFF_MS = 5_000;

    private final QueueClient client;
    private final QueueName queue;
    private final MessageHandler handler;
    private final WorkerOptions options;
    private final WorkerListener listener;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final List<HandlerCalls> handlerCalls = new ArrayList<>();
    private final CountDownLatch finished;
    private final Map<Receipt, Delivery> inFlight = new ConcurrentHashMap<>();
    /** When each in-flight lease was claimed or last renewed (System.nanoTime). */
    private final Map<Receipt, Long> renewedAt = new ConcurrentHashMap<>();
    private final ScheduledExecutorService renewer;
    /** Checks for transactions held open elsewhere (null when off or the backend cannot tell). */
    private final ScheduledExecutorService watcher;
    private final AckGroupCommit acks;

    private WorkerPool(QueueClient client, QueueName queue, MessageHandler handler, WorkerOptions options,
                       WorkerListener listener) {
        this.client = client;
        this.queue = queue;
        this.handler = handler;
        this.options = options;
        this.listener = new GuardedListener(listener == null ? new WorkerListener() { } : listener);
        this.finished = new CountDownLatch(options.threads());
        this.acks = new AckGroupCommit(client);
        // transactional claims are renewed too: a backend may roll back a claim older than its lease
        boolean renew = client.capabilities().has(Capability.LEASE_EXTENSION);
        this.renewer = renew ? Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "sqlqueue-lease-renewer-" + queue)) : null;
        boolean watch = !options.transactionWarnAge().isZero() && client.capabilities().has(Capability.OLDEST_TRANSACTIONS);
        this.watcher = watch ? Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "sqlqueue-transaction-watch-" + queue)) : null;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Start {@code options.threads()} consumer threads on {@code queue}, with no listener: as
     * {@link #start(QueueClient, QueueName, MessageHandler, WorkerOptions, WorkerListener)} with a listener that
     * ignores every event.
     *
     * @param client the queue client the threads claim and ack through (a {@link dev.sqlqueue.SqlQueue})
     * @param queue the queue to consume
     * @param handler called once per delivery, on a worker thread; its outcome becomes an ack, a retry or a dead letter
     * @param options threads, batch size, lease, claim mode, retry policy...
     * @return the running pool; close it to stop
     * @throws dev.sqlqueue.InvalidInputException if the client's pool has fewer connections than the options need
     */
    public static WorkerPool start(QueueClient client, QueueName queue, MessageHandler handler, WorkerOptions options) {
        return start(client, queue, handler, options, null);
    }

    /**
     * Start {@code options.threads()} consumer threads on {@code queue}.
     *
     * @param client the queue client the threads claim and ack through (a {@link dev.sqlqueue.SqlQueue})
     * @param queue the queue to consume
     * @param handler called once per delivery, on a worker thread; its outcome becomes an ack, a retry or a dead letter
     * @param options threads, batch size, lease, claim mode, retry policy...
     * @param listener told of each delivery's fate ({@code acked}, {@code retried}, {@code deadLettered},
     *     {@code leaseLost}...) on the worker threads; its exceptions are logged and ignored; null for none
     * @return the running pool; close it to stop
     * @throws dev.sqlqueue.InvalidInputException if the client's pool has fewer connections than the options need
     */
    public static WorkerPool start(QueueClient client, QueueName queue, MessageHandler handler,
                                   WorkerOptions options, WorkerListener listener) {
        checkPoolSize(client, options);
        WorkerPool pool = new WorkerPool(client, queue, handler, options, listener);
        pool.begin();
        return pool;
    }

    /**
     * Connections the backend's pool needs for {@code options}: see the class comment.
     *
     * @param options the pool's options (threads, mode, handler connections)
     * @return the minimum pool size, or 0 when any size works
     */
    public static int connectionsNeeded(WorkerOptions options) {
        if (options.mode() == ClaimMode.TRANSACTIONAL) {
            return options.threads() * (1 + options.handlerConnections()) + 1;
        }
        return options.handlerConnections() == 0 ? 0 : options.threads() * options.handlerConnections() + 1;
    }

    /** Whether the WARN of a pool whose size is unknown was logged (once per process). */
    private static final java.util.concurrent.atomic.AtomicBoolean UNKNOWN_SIZE_LOGGED = new java.util.concurrent.atomic.AtomicBoolean();

    private static void checkPoolSize(QueueClient client, WorkerOptions options) {
        int needed = connectionsNeeded(options);
        OptionalInt poolSize = client.poolSize();
        if (poolSize.isEmpty() && needed > 0 && UNKNOWN_SIZE_LOGGED.compareAndSet(false, true)) {
            LOG.warn("{} worker threads{} need a pool of at least {} connections, but the size of the DataSource the queue"
                    + " was opened with cannot be read (only a HikariCP pool's can): give it that many, or the handlers'"
                    + " connections wait for those the claims hold (pool time-outs); logged once",
                    options.threads(), options.mode() == ClaimMode.TRANSACTIONAL ? " in transactional mode" : "", needed);
        }
        if (poolSize.isPresent() && poolSize.getAsInt() < needed) {
            boolean own = client.ownPoolSize().isPresent();
            String why = options.mode() == ClaimMode.TRANSACTIONAL
                    ? "in transactional mode each of the " + options.threads() + " worker threads holds one connection for its"
                      + " batch's whole run" + (options.handlerConnections() > 0 ? ", each handler holds "
                      + options.handlerConnections() + " more" : "") + ", and one more is needed for claims and statistics"
                    : "each of the " + options.threads() + " handlers holds " + options.handlerConnections()
                      + " connection(s), and one more is needed for claims and acks";
            throw new InvalidInputException("workers.pool-size", (own ? "the backend's pool has " + poolSize.getAsInt()
                    + " connections" : "the DataSource the queue was opened with (a HikariCP pool) leaves the workers "
                    + poolSize.getAsInt() + " connections (its maximumPoolSize less those the backend holds for itself)")
                    + " but " + options.threads() + " worker threads need " + needed + ": " + why + "; raise "
                    + (own ? "poolSize to at least " + needed : "its maximumPoolSize by at least " + (needed - poolSize.getAsInt()))
                    + " or lower the worker threads");
        }
    }

    private void begin() {
        if (renewer != null) {
            long every = Math.max(50, options.lease().toMillis() / 3);
            renewer.scheduleWithFixedDelay(this::renewLeases, every, every, TimeUnit.MILLISECONDS);
        }
        if (watcher != null) {
            TransactionWatch w = new TransactionWatch(client, queue, options.transactionWarnAge());
            long every = TransactionWatch.interval(options.transactionWarnAge());
            watcher.scheduleWithFixedDelay(() -> {
                try {
                    w.check();
                } catch (RuntimeException e) {
                    LOG.debug("the check for transactions held open failed: {}", e.toString());
                }
            }, 0, every, TimeUnit.MILLISECONDS);
        }
        for (int i = 0; i < options.threads(); i++) {
            HandlerCalls calls = new HandlerCalls();
            Thread t = new Thread(() -> loop(calls), "sqlqueue-worker-" + queue + "-" + i);
            calls.thread = t;
            threads.add(t);
            handlerCalls.add(calls);
            t.start();
        }
    }

    /**
     * Whether the pool is still claiming.
     *
     * @return true until the pool stops claiming (closed, or drained in stop-when-empty mode)
     */
    public boolean isRunning() {
        return running.get();
    }

    /**
     * Block until every worker thread has ended (after {@link #close()} or an empty queue in drain mode).
     *
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    public void awaitTermination() throws InterruptedException {
        finished.await();
    }

    /**
     * Like {@link #awaitTermination()}, bounded.
     *
     * @param max the longest wait (millisecond resolution)
     * @return true if all threads ended, false if {@code max} passed first
     * @throws InterruptedException if the calling thread is interrupted while it waits
     */
    public boolean awaitTermination(Duration max) throws InterruptedException {
        return finished.await(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * How many worker threads are alive: all of them until shutdown, whatever the database did.
     *
     * @return the count, 0 once every worker thread has ended
     */
    public int aliveThreads() {
        return (int) threads.stream().filter(Thread::isAlive).count();
    }

    /** Stop claiming; running handlers go on. {@link #close()} also waits and cleans up. */
    public void stopClaiming() {
        running.set(false);
    }

    @Override
    public void close() {
        running.set(false);
        try {
            if (!finished.await(options.shutdownGrace().toMillis() + options.pollWait().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("handlers still running after the {} ms grace period; interrupting them", options.shutdownGrace().toMillis());
                handlerCalls.forEach(HandlerCalls::interrupt);
                finished.await(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (renewer != null) {
                renewer.shutdownNow();
            }
            if (watcher != null) {
                // no interrupt: a check in flight finishes its one query (an interrupt inside JDBC can break more)
                watcher.shutdown();
            }
        }
    }

    private void renewLeases() {
        long due = System.nanoTime() - options.lease().toNanos() / 3;
        for (Map.Entry<Receipt, Delivery> e : inFlight.entrySet()) {
            Long last = renewedAt.get(e.getKey());
            if (last != null && last - due > 0) {
                continue; // claimed or renewed within the last third of a lease
            }
            try {
                client.extend(e.getKey(), options.lease());
                renewedAt.replace(e.getKey(), System.nanoTime());
            } catch (LeaseLostException lost) {
                // a delivery being settled is no longer in the map: only a lease still held counts as lost
                if (inFlight.remove(e.getKey()) != null) {
                    renewedAt.remove(e.getKey());
                    listener.leaseLost(e.getValue());
                }
            } catch (RuntimeException ex) {
                LOG.debug("lease renewal failed for message {}: {}", e.getKey().messageId(), ex.toString());
            }
        }
    }

    /**
     * A worker thread's handler calls, for shutdown: {@link #close()} interrupts a worker only while its handler
     * runs, and the interrupt is taken back before the worker's next statement. A thread interrupted inside a
     * JDBC call can break more than that call: H2's file store runs on a {@code FileChannel}, which an interrupt
     * closes ({@code java.nio.channels.ClosedByInterruptException}), and H2 then closes the whole database
     * (error 90098) for every connection of the process; HikariCP refuses to hand a connection to an interrupted
     * thread. The acks, nacks and releases of the shutdown itself then failed and were lost.
     */
    private static final class HandlerCalls {
        private Thread thread;
        private boolean inHandler;
        private boolean interrupted;

        synchronized void enter() {
            inHandler = true;
        }

        /** After the handler returned or threw: any interrupt is cleared here and remembered. */
        synchronized void leave() {
            inHandler = false;
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }

        synchronized void interrupt() {
            interrupted = true;
            if (inHandler) {
                thread.interrupt();
            }
        }

        synchronized boolean interrupted() {
            return interrupted;
        }
    }

    private void loop(HandlerCalls calls) {
        long errorBackoff = 0;
        try {
            ClaimSizer sizer = new ClaimSizer(options.batchSize(), options.lease().toMillis());
            List<Delivery> pendingAcks = List.of();
            long pendingSince = 0; // when the batch of pendingAcks was claimed (its leases began then or later)
            while (running.get()) {
                List<Delivery> batch;
                int size = sizer.next();
                ConsumeRequest request = new ConsumeRequest(size, options.lease(), options.pollWait(), options.mode());
                try {
                    if (pendingAcks.isEmpty()) {
                        batch = client.consume(queue, request);
                    } else {
                        List<Delivery> acking = pendingAcks;
                        pendingAcks = List.of();
                        try {
                            batch = ackAndClaim(acking, request);
                        } catch (TransientBackendException e) {
                            // not written: kept for the next claim after the back-off, while their leases last
                            pendingAcks = stillLeased(acking, pendingSince);
                            throw e;
                        }
                    }
                    sizer.claimed(size, batch.size());
                    errorBackoff = 0;
                } catch (RuntimeException e) {
                    errorBackoff = errorBackoff == 0 ? 100 : Math.min(errorBackoff * 2, MAX_ERROR_BACKOFF_MS);
                    long sleep = errorBackoff / 2 + ThreadLocalRandom.current().nextLong(errorBackoff / 2 + 1);
                    listener.backendError(e, Duration.ofMillis(sleep));
                    LOG.warn("consume from '{}' failed ({}); backing off {} ms", queue, e.toString(), sleep);
                    sleepQuietly(sleep);
                    continue;
                }
                if (batch.isEmpty()) {
                    if (options.stopWhenEmpty() && queueIsEmpty()) {
                        running.set(false);
                    }
                    continue;
                }
                pendingSince = System.nanoTime();
                pendingAcks = processBatch(batch, sizer, calls);
            }
            flushAcks(pendingAcks);
        } finally {
            finished.countDown();
        }
    }

    private boolean queueIsEmpty() {
        try {
            return client.stats(queue).depth() == 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Listener events of one batch. In transactional mode they wait for the batch's commit, which happens
     * in its last settle: they are fired when that settle succeeded, and turned into {@code leaseLost}
     * when it failed (the batch was rolled back).
     */
    private final class BatchEvents {
        private final boolean deferred = options.mode() == ClaimMode.TRANSACTIONAL;
        private final List<Map.Entry<Delivery, Runnable>> pending = new ArrayList<>();
        private boolean lastSettleOk = true;

        void settled(boolean ok) {
            lastSettleOk = ok;
        }

        void report(Delivery d, Runnable event) {
            if (deferred) {
                pending.add(Map.entry(d, event));
            } else {
                event.run();
            }
        }

        void batchDone() {
            for (Map.Entry<Delivery, Runnable> e : pending) {
                if (lastSettleOk) {
                    e.getValue().run();
                } else {
                    listener.leaseLost(e.getKey());
                }
            }
            pending.clear();
        }
    }

    /**
     * The acks of the last batch and the next claim in one call ({@link QueueClient#ackAllAndConsume}: one
     * round trip and one commit on PostgreSQL). When it throws, its acks were not committed (the one-round-trip
     * form commits both or nothing; the fallback returns the acks' outcome when only its claim failed). After a
     * {@link TransientBackendException} (the database unreachable, a time-out) the caller keeps them for its next
     * claim, after the back-off, so an outage shorter than the lease redelivers nothing; after any other
     * failure they are written on their own. Either way the failure goes on to the claim's back-off.
     */
    private List<Delivery> ackAndClaim(List<Delivery> toAck, ConsumeRequest request) {
        List<Receipt> receipts = toAck.stream().map(Delivery::receipt).toList();
        // out of the renewer's sight before the ack, so a renewal racing the ack reports no lost lease
        receipts.forEach(this::forget);
        AckedAndClaimed result;
        try {
            result = client.ackAllAndConsume(receipts, queue, request);
        } catch (TransientBackendException e) {
            throw e;
        } catch (RuntimeException e) {
            flushAcks(toAck);
            throw e;
        }
        reportAcks(toAck, result.lost());
        return result.claimed();
    }

    /** @return the lease-mode acks of the batch still to be written (with the next claim) */
    private List<Delivery> processBatch(List<Delivery> batch, ClaimSizer sizer, HandlerCalls calls) {
        long claimedAt = System.nanoTime();
        batch.forEach(d -> {
            renewedAt.put(d.receipt(), claimedAt);
            inFlight.put(d.receipt(), d);
        });
        BatchEvents events = new BatchEvents();
        try {
            return processBatch(batch, events, sizer, calls);
        } finally {
            events.batchDone();
        }
    }

    private List<Delivery> processBatch(List<Delivery> batch, BatchEvents events, ClaimSizer sizer, HandlerCalls calls) {
        List<Delivery> toAck = new ArrayList<>();
        for (Delivery d : batch) {
            if (!running.get() || calls.interrupted()) {
                events.settled(settle(d, () -> client.release(d.receipt())));
                continue;
            }
            long start = System.nanoTime();
            Outcome outcome;
            calls.enter();
            try {
                outcome = handler.handle(d);
                if (outcome == null) {
                    outcome = Outcome.retry("handler returned no outcome");
                }
            } catch (InterruptedException e) {
                // remembered by calls.leave(); the settle below runs with the interrupt cleared
                outcome = Outcome.retry("interrupted by shutdown");
            } catch (Exception | Error e) {
                outcome = Outcome.retry(e.toString());
            } finally {
                calls.leave();
            }
            long took = System.nanoTime() - start;
            sizer.handled(took);
            if (outcome instanceof Outcome.Ack ack) {
                if (ack.detail() == null && options.mode() == ClaimMode.LEASE) {
                    toAck.add(d);
                    continue;
                }
                boolean ok = settle(d, () -> client.ack(d.receipt(), ack.detail()));
                events.settled(ok);
                if (ok) {
                    events.report(d, () -> listener.acked(d, took));
                }
            } else if (outcome instanceof Outcome.Retry retry) {
                handleFailure(d, retry, events);
            } else if (outcome instanceof Outcome.DeadLetter dl) {
                boolean ok = settle(d, () -> client.deadLetter(d.receipt(), dl.reason()));
                events.settled(ok);
                if (ok) {
                    events.report(d, () -> listener.deadLettered(d, dl.reason()));
                }
            }
            if (!toAck.isEmpty() && took > options.lease().toMillis() * 1_000_000L / 4) {
                flushAcks(toAck);
            }
        }
        if (running.get() && !calls.interrupted()) {
            return toAck; // written with the next claim
        }
        flushAcks(toAck);
        return List.of();
    }

    /**
     * Acks not written yet, kept while a quarter of their lease is left (their batch was claimed at {@code
     * claimedAt}, {@link System#nanoTime()}; a renewal only lengthens a lease): past that an ack is as likely to
     * find the message with another consumer, so they are given up and come back after their lease, as any
     * unacked delivery does.
     */
    private List<Delivery> stillLeased(List<Delivery> acks, long claimedAt) {
        if (System.nanoTime() - claimedAt < options.lease().toNanos() * 3 / 4) {
            return acks;
        }
        LOG.warn("{} acks on '{}' could not be written within three quarters of their lease; they will be redelivered",
                acks.size(), queue);
        return List.of();
    }

    private void flushAcks(List<Delivery> toAck) {
        if (toAck.isEmpty()) {
            return;
        }
        List<Receipt> receipts = toAck.stream().map(Delivery::receipt).toList();
        // out of the renewer's sight before the ack, so a renewal racing the ack reports no lost lease
        receipts.forEach(this::forget);
        try {
            reportAcks(toAck, acks.ackAll(receipts));
        } catch (RuntimeException e) {
            LOG.warn("ack of {} messages on '{}' failed ({}); they will be redelivered after their lease", toAck.size(), queue, e.toString());
        }
        toAck.clear();
    }

    private void reportAcks(List<Delivery> acked, Set<Receipt> lost) {
        for (Delivery d : acked) {
            if (lost.contains(d.receipt())) {
                listener.leaseLost(d);
            } else {
                listener.acked(d, 0);
            }
        }
    }

    private void handleFailure(Delivery d, Outcome.Retry retry, BatchEvents events) {
        String error = retry.error() == null ? "failed" : retry.error();
        if (options.retry().exhausted(d.attempt())) {
            String reason = "attempt " + d.attempt() + " of " + options.retry().maxAttempts() + " failed: " + error;
            boolean ok = settle(d, () -> client.deadLetter(d.receipt(), reason));
            events.settled(ok);
            if (ok) {
                events.report(d, () -> listener.deadLettered(d, reason));
            }
            return;
        }
        Duration delay = retry.delay() != null ? retry.delay() : options.retry().backoff(d.attempt());
        if (!client.capabilities().has(Capability.NACK_DELAY)) {
            delay = Duration.ZERO;
        }
        Duration finalDelay = delay;
        boolean ok = settle(d, () -> client.nack(d.receipt(), finalDelay, error));
        events.settled(ok);
        if (ok) {
            events.report(d, () -> listener.retried(d, error, finalDelay));
        }
    }

    /** Run one settle call; false (and logged) if the lease was lost or the backend failed. */
    private boolean settle(Delivery d, Runnable call) {
        forget(d.receipt());
        try {
            call.run();
            return true;
        } catch (LeaseLostException e) {
            listener.leaseLost(d);
            return false;
        } catch (RuntimeException e) {
            LOG.warn("settling message {} on '{}' failed ({}); it will be redelivered", d.id(), queue, e.toString());
            return false;
        }
    }

    private void forget(Receipt r) {
        inFlight.remove(r);
        renewedAt.remove(r);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
