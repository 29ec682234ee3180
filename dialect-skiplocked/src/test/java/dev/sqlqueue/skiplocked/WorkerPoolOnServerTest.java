package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The worker runtime on real databases (H2, PostgreSQL, MariaDB): transactional claims kept alive while
 * handlers run, listener events that report only what the database committed, and a pool that refuses
 * a connection budget it would exhaust.
 */
class WorkerPoolOnServerTest {
    static Stream<ConformanceTarget> backends() {
        return Stream.of(H2ConformanceTest.TARGET, PostgresConformanceTest.TARGET, MariaDbConformanceTest.TARGET);
    }

    private interface Body {
        void run(SqlQueue queue, QueueConfig config) throws Exception;
    }

    private static void on(ConformanceTarget target, Body body) throws Exception {
        String prefix = "wp" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        QueueConfig config = target.config(prefix).toBuilder().poolSize(10).build();
        try (SqlQueue queue = SqlQueue.open(config)) {
            body.run(queue, config);
        } finally {
            target.cleanUp(prefix);
        }
    }

    /** Per message id: how often the listener reported each event. */
    static class Events implements WorkerListener {
        final Map<Long, AtomicInteger> acked = new ConcurrentHashMap<>();
        final Map<Long, AtomicInteger> lost = new ConcurrentHashMap<>();

        @Override
        public void acked(Delivery d, long handlerNanos) {
            acked.computeIfAbsent(d.id(), k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public void leaseLost(Delivery d) {
            lost.computeIfAbsent(d.id(), k -> new AtomicInteger()).incrementAndGet();
        }

        Map<Long, Integer> ackedCounts() {
            Map<Long, Integer> m = new HashMap<>();
            acked.forEach((k, v) -> m.put(k, v.get()));
            return m;
        }
    }

    private static List<Long> enqueue(SqlQueue queue, QueueName q, int n) {
        queue.createQueue(q);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(queue.enqueue(q, Message.ofText("m" + i)));
        }
        return ids;
    }

    private static Map<Long, Integer> once(List<Long> ids) {
        Map<Long, Integer> m = new HashMap<>();
        ids.forEach(id -> m.put(id, 1));
        return m;
    }

    /**
     * The reproduction: transactional mode, batch 5, lease 1 s, one thread, 10 messages, a 600 ms
     * handler. A batch takes 3 s, three leases: the claim must be kept alive, so each message is
     * delivered once and the queue drains (before, the reaper rolled every batch back: 25 deliveries of 5
     * messages in 15 s, nothing ever acked).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aTransactionalBatchOutlivingItsLeaseIsNotRolledBackWhileTheHandlersRun(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("slow");
            List<Long> ids = enqueue(queue, q, 10);
            List<Long> delivered = Collections.synchronizedList(new ArrayList<>());
            Events events = new Events();
            WorkerOptions options = WorkerOptions.defaults().withMode(ClaimMode.TRANSACTIONAL).withBatchSize(5)
                    .withLease(Duration.ofSeconds(1)).withThreads(1).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            try (WorkerPool pool = WorkerPool.start(queue, q, d -> {
                delivered.add(d.id());
                Thread.sleep(600);
                return Outcome.ack();
            }, options, events)) {
                assertTrue(pool.awaitTermination(Duration.ofSeconds(45)),
                        "the pool drains the queue; deliveries so far: " + delivered.size() + " of " + Set.copyOf(delivered).size()
                                + " messages, depth " + queue.stats(q).depth());
            }
            assertEquals(10, delivered.size(), "each message delivered once: " + delivered);
            assertEquals(Set.copyOf(ids), Set.copyOf(delivered));
            assertEquals(0, queue.stats(q).depth());
            assertEquals(once(ids), events.ackedCounts(), "acked reported once per message");
        });
    }

    /** A client whose ack of {@code failId} fails once, without reaching the database. */
    private static QueueClient failingAckOnce(SqlQueue real, AtomicBoolean armed, long failId, RuntimeException failure) {
        return (QueueClient) Proxy.newProxyInstance(QueueClient.class.getClassLoader(), new Class<?>[] {QueueClient.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("ack") && args[0] instanceof Receipt r && r.messageId() == failId
                            && armed.compareAndSet(true, false)) {
                        throw failure;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /**
     * Transactional batch of two: the first ack runs in the claim's transaction, the second fails, so
     * the transaction never commits and both messages come back. The listener reports no ack for that
     * batch, and the first message as lost (before: it was reported acked although it was rolled back),
     * then each message acked exactly once when it is really committed. The pool's first claim takes one
     * message (claims grow while they come back full), so the batch of two is the second claim.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aTransactionalBatchWhoseCommitFailedReportsNoAck(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("uncommitted");
            List<Long> ids = enqueue(queue, q, 3);
            AtomicBoolean armed = new AtomicBoolean(true);
            QueueClient client = failingAckOnce(queue, armed, ids.get(2),
                    new TransientBackendException("injected: the connection broke at the commit", null));
            Events events = new Events();
            List<Long> delivered = Collections.synchronizedList(new ArrayList<>());
            WorkerOptions options = WorkerOptions.defaults().withMode(ClaimMode.TRANSACTIONAL).withBatchSize(2)
                    .withLease(Duration.ofSeconds(1)).withThreads(1).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            try (WorkerPool pool = WorkerPool.start(client, q, d -> {
                delivered.add(d.id());
                return Outcome.ack();
            }, options, events)) {
                assertTrue(pool.awaitTermination(Duration.ofSeconds(45)), "the pool drains the queue: " + delivered);
            }
            assertFalse(armed.get(), "the failure was injected");
            assertEquals(List.of(ids.get(0), ids.get(1), ids.get(2), ids.get(1), ids.get(2)), delivered,
                    "a claim of one, then the batch of two, which was rolled back and came back whole");
            assertEquals(0, queue.stats(q).depth());
            assertEquals(once(ids), events.ackedCounts(), "acked reported once per message, only after its commit");
            assertEquals(1, lostCounts(events).getOrDefault(ids.get(1), 0),
                    "the first message's ack was rolled back with its batch: reported lost " + lostCounts(events));
        });
    }

    private static Map<Long, Integer> lostCounts(Events e) {
        Map<Long, Integer> m = new HashMap<>();
        e.lost.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    /** Lease mode, {@code Outcome.ack("detail")}: an ack that failed is reported lost, never also acked. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aFailedAckWithDetailIsNotReportedAcked(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("detail");
            List<Long> ids = enqueue(queue, q, 1);
            AtomicBoolean armed = new AtomicBoolean(true);
            QueueClient client = failingAckOnce(queue, armed, ids.get(0), new LeaseLostException(ids.get(0), "injected: lease lost"));
            Events events = new Events();
            AtomicInteger deliveries = new AtomicInteger();
            WorkerOptions options = WorkerOptions.defaults().withLease(Duration.ofSeconds(1)).withThreads(1)
                    .withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            try (WorkerPool pool = WorkerPool.start(client, q, d -> {
                deliveries.incrementAndGet();
                return Outcome.ack("done");
            }, options, events)) {
                assertTrue(pool.awaitTermination(Duration.ofSeconds(45)), "the pool drains the queue");
            }
            assertEquals(2, deliveries.get(), "the message whose ack failed came back after its lease");
            assertEquals(once(ids), events.ackedCounts(), "acked once: the failed ack is not reported acked");
            assertEquals(once(ids), lostCounts(events));
        });
    }

    /**
     * Shutdown past its grace period on an H2 file database: the pool interrupts the handler still running, and
     * must not leave that interrupt on the thread for its own statements. An interrupted thread closes H2's
     * {@code FileChannel} and with it the database (error 90098), so the acks of the handlers that had returned,
     * the nack of the interrupted one and the releases of the rest all failed: three acked messages stayed in
     * the table and six stayed leased until their lease ran out.
     */
    @org.junit.jupiter.api.Test
    void aShutdownPastItsGraceOnAnH2FileDatabaseLosesNoAck(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        QueueConfig config = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath())
                .user("sa").password("").poolSize(4).build();
        try (SqlQueue queue = SqlQueue.open(config)) {
            QueueName q = QueueName.of("grace");
            List<Long> ids = enqueue(queue, q, 10);
            AtomicInteger started = new AtomicInteger();
            java.util.concurrent.CountDownLatch slow = new java.util.concurrent.CountDownLatch(1);
            WorkerOptions options = WorkerOptions.defaults().withThreads(1).withBatchSize(10)
                    .withLease(Duration.ofMinutes(5)).withShutdownGrace(Duration.ofMillis(200));
            Events events = new Events();
            WorkerPool pool = WorkerPool.start(queue, q, d -> {
                if (started.incrementAndGet() == 5) {
                    slow.countDown();
                    Thread.sleep(10_000);
                }
                return Outcome.ack();
            }, options, events);
            assertTrue(slow.await(20, java.util.concurrent.TimeUnit.SECONDS), "the fifth handler runs");
            pool.close();

            assertEquals(once(ids.subList(0, 4)), events.ackedCounts(), "the four that returned are acked");
            dev.sqlqueue.QueueStats st = queue.stats(q);
            assertEquals(6, st.depth(), "the four acked rows are gone: " + st);
            assertEquals(0, st.inFlight(), "none left leased: the interrupted one retried, the five not started released");
            List<Delivery> back = queue.consume(q, dev.sqlqueue.ConsumeRequest.of(10));
            assertEquals(5, back.size(), "the five not started are ready again (the interrupted one waits out its back-off)");
        }
    }

    /**
     * A database outage shorter than the lease costs no redelivery: the acks of a batch that could not be written
     * with the next claim are kept and written once the database answers again (before, they were tried once on
     * their own, failed as well, and were dropped: every message of the batch came back after its lease).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void acksThatFailInAnOutageShorterThanTheLeaseAreWrittenAfterIt(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("outage");
            List<Long> ids = enqueue(queue, q, 50);
            java.util.concurrent.atomic.AtomicLong outageUntil = new java.util.concurrent.atomic.AtomicLong();
            QueueClient client = (QueueClient) Proxy.newProxyInstance(QueueClient.class.getClassLoader(),
                    new Class<?>[] {QueueClient.class}, (proxy, method, args) -> {
                        if (Set.of("consume", "ackAll", "ackAllAndConsume", "ack").contains(method.getName())
                                && System.nanoTime() - outageUntil.get() < 0) {
                            throw new TransientBackendException("injected: the database is unreachable", null);
                        }
                        try {
                            return method.invoke(queue, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
            Map<Long, Integer> handled = new ConcurrentHashMap<>();
            WorkerOptions options = WorkerOptions.defaults().withLease(Duration.ofSeconds(20)).withThreads(1)
                    .withBatchSize(10).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            Events events = new Events();
            try (WorkerPool pool = WorkerPool.start(client, q, d -> {
                if (handled.merge(d.id(), 1, Integer::sum) == 1 && handled.size() == 20) {
                    outageUntil.set(System.nanoTime() + Duration.ofMillis(1_500).toNanos());
                }
                return Outcome.ack();
            }, options, events)) {
                assertTrue(pool.awaitTermination(Duration.ofSeconds(15)),
                        "the pool drains the queue (dropped acks would wait out their 20 s lease)");
            }
            assertEquals(once(ids), handled, "each message handled once");
            assertEquals(once(ids), events.ackedCounts());
            assertEquals(0, queue.stats(q).depth());
        });
    }

    /**
     * A listener that throws changes nothing the pool does: in lease mode the acks of a batch are reported after
     * the call that also claimed the next batch, and a throwing {@code acked} once made the pool drop that batch
     * as if the claim had failed (its messages came back after their lease, on their second attempt).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aListenerThatThrowsCostsNoDeliveryItsAttempt(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("noisy");
            List<Long> ids = enqueue(queue, q, 200);
            AtomicInteger calls = new AtomicInteger();
            Events events = new Events() {
                @Override
                public void acked(Delivery d, long handlerNanos) {
                    super.acked(d, handlerNanos);
                    if (calls.incrementAndGet() <= 3) {
                        throw new IllegalStateException("injected: listener bug");
                    }
                }
            };
            Map<Long, Integer> handled = new ConcurrentHashMap<>();
            List<Integer> laterAttempts = Collections.synchronizedList(new ArrayList<>());
            WorkerOptions options = WorkerOptions.defaults().withLease(Duration.ofSeconds(30)).withThreads(1)
                    .withBatchSize(10).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            try (WorkerPool pool = WorkerPool.start(queue, q, d -> {
                handled.merge(d.id(), 1, Integer::sum);
                if (d.attempt() != 1) {
                    laterAttempts.add(d.attempt());
                }
                return Outcome.ack();
            }, options, events)) {
                assertTrue(pool.awaitTermination(Duration.ofSeconds(20)),
                        "the pool drains the queue (a dropped batch would wait out its 30 s lease)");
            }
            assertEquals(once(ids), handled, "each message handled once");
            assertEquals(List.of(), laterAttempts, "no message came back for a second attempt");
            assertEquals(once(ids), events.ackedCounts(), "every ack reported, also after the listener threw");
            assertEquals(0, queue.stats(q).depth());
        });
    }

    /**
     * Transactional workers hold a connection each for their batch's whole run: a pool that cannot also
     * serve the handlers' own connections and one more is refused at start, naming the numbers; a pool
     * of the size named works, with handlers that enqueue on the same client outside their transaction.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aTransactionalPoolTooSmallForItsWorkersIsRefusedAndTheNamedSizeWorks(ConformanceTarget target) throws Exception {
        on(target, (queue, config) -> {
            QueueName q = QueueName.of("outbox");
            QueueName out = QueueName.of("outbox_next");
            queue.createQueue(out);
            List<Long> ids = enqueue(queue, q, 40);
            WorkerOptions options = WorkerOptions.defaults().withMode(ClaimMode.TRANSACTIONAL).withThreads(10)
                    .withHandlerConnections(1).withBatchSize(1).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
            InvalidInputException refused = assertThrows(InvalidInputException.class,
                    () -> WorkerPool.start(queue, q, d -> Outcome.ack(), options, null));
            assertEquals("workers.pool-size", refused.rule());
            assertTrue(refused.getMessage().contains("has 10 connections but 10 worker threads need 21"), refused.getMessage());
            assertEquals(40, queue.stats(q).depth(), "nothing was claimed");

            try (SqlQueue sized = SqlQueue.open(config.toBuilder().poolSize(WorkerPool.connectionsNeeded(options)).migrate(false).build())) {
                Events events = new Events();
                try (WorkerPool pool = WorkerPool.start(sized, q, d -> {
                    sized.enqueue(out, Message.ofText("follow-up of " + d.id()));
                    Thread.sleep(20);
                    return Outcome.ack();
                }, options, events)) {
                    assertTrue(pool.awaitTermination(Duration.ofSeconds(60)), "the pool drains the queue");
                }
                assertEquals(once(ids), events.ackedCounts());
                assertEquals(40, sized.stats(out).depth(), "every handler's own enqueue went through");
            }
        });
    }
}
