package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys (C24..C26): an enqueue whose {@link Message#deduplicationKey()} was taken on the
 * same queue within the window enqueues nothing and returns the first message's id, enforced by the
 * database. Runs only where {@link Capability#DEDUPLICATION} is declared.
 */
public interface DeduplicationCases extends SuiteContext {
    /** C24's enqueueing threads, shared between two clients. */
    int DEDUPE_THREADS = 8;
    /** C24's distinct deduplication keys. */
    int DEDUPE_KEYS = 100;
    /** How many times C24 enqueues each key (in shuffled order). */
    int DEDUPE_REPEATS = 10;

    private static Message keyed(String key, String text) {
        return Message.builder(text.getBytes(StandardCharsets.UTF_8)).deduplicationKey(key).build();
    }

    /** Consume and ack until {@code expected} deliveries came (or 30 s passed), then check nothing more comes. */
    private List<Delivery> drain(SqlQueue client, QueueName q, int expected) {
        List<Delivery> all = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (all.size() < expected && System.nanoTime() < deadline) {
            List<Delivery> got = client.consume(q, claim(50).withWait(Duration.ofMillis(500)));
            all.addAll(got);
            client.ackAll(got.stream().map(Delivery::receipt).toList());
        }
        List<Delivery> more = client.consume(q, claim(50).withWait(Duration.ofMillis(500)));
        all.addAll(more);
        client.ackAll(more.stream().map(Delivery::receipt).toList());
        return all;
    }

    /**
     * C24: 8 threads, on two clients with pools of their own, enqueue the same 100 keys 10 times each in
     * shuffled order: exactly one enqueue per key is not a duplicate, every enqueue of a key returned the
     * same id, the queue holds 100 messages and exactly those 100 are delivered, each once.
     *
     * <p>Guards against a check-then-insert race that lets a retried producer enqueue a job twice.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C24 deduplication under concurrency")
    default void c24DeduplicationUnderConcurrency() throws Exception {
        requires(Capability.DEDUPLICATION);
        QueueName q = newQueue("c24");
        // two clients, each with its own pool: the keys are the database's, not one process's
        SqlQueue other = openAnother();
        Map<String, Set<Long>> idsOfKey = new ConcurrentHashMap<>();
        AtomicInteger fresh = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(DEDUPE_THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < DEDUPE_THREADS; t++) {
                SqlQueue client = t % 2 == 0 ? queue() : other;
                int thread = t;
                done.add(pool.submit(() -> {
                    List<Integer> order = new ArrayList<>();
                    for (int r = 0; r < DEDUPE_REPEATS; r++) {
                        for (int k = 0; k < DEDUPE_KEYS; k++) {
                            order.add(k);
                        }
                    }
                    Collections.shuffle(order, new java.util.Random(thread));
                    start.await();
                    for (int k : order) {
                        String key = "key-" + k;
                        EnqueueResult r = client.enqueueDeduplicated(q, keyed(key, key));
                        idsOfKey.computeIfAbsent(key, x -> ConcurrentHashMap.newKeySet()).add(r.id());
                        if (!r.duplicate()) {
                            fresh.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(DEDUPE_KEYS, idsOfKey.size());
        idsOfKey.forEach((key, ids) -> assertEquals(1, ids.size(), "every enqueue of " + key + " returned the same id: " + ids));
        assertEquals(DEDUPE_KEYS, fresh.get(), "exactly one enqueue per key was not a duplicate");
        assertEquals(DEDUPE_KEYS, queue().stats(q).depth(), "one message per key in the queue");

        List<Delivery> got = drain(queue(), q, DEDUPE_KEYS);
        assertEquals(DEDUPE_KEYS, got.size(), "exactly " + DEDUPE_KEYS + " messages delivered");
        Map<String, Long> delivered = new HashMap<>();
        for (Delivery d : got) {
            assertEquals(null, delivered.put(d.text(), d.id()), "delivered once: " + d.text());
            assertEquals(Set.of(d.id()), idsOfKey.get(d.text()), "the delivered message is the one whose id the enqueues returned");
        }
    }

    /**
     * C25: Two open transactions enqueue one key: when both commit, one message stands and the second was
     * told it was a duplicate of the first's id; when the first rolls back, the second's message stands;
     * afterwards the key is taken.
     *
     * <p>Guards against an outbox that loses a job (the key held by a rolled-back transaction) or runs it twice
     * (two transactions each seeing no key).
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C25 deduplication in the caller's transaction")
    default void c25DeduplicationInCallersTransaction() throws Exception {
        requires(Capability.DEDUPLICATION);
        requires(Capability.TRANSACTIONAL_ENQUEUE);
        QueueName q = newQueue("c25");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Connection first = hooks().openConnection(config()); Connection second = hooks().openConnection(config())) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);

            // both commit: one message, the second enqueue is told it was a duplicate of the first
            EnqueueResult a = queue().enqueueDeduplicated(first, q, keyed("order-1", "first"));
            assertFalse(a.duplicate(), "the first enqueue of a key is not a duplicate");
            Future<EnqueueResult> b = pool.submit(() -> queue().enqueueDeduplicated(second, q, keyed("order-1", "second")));
            pause(300);
            first.commit();
            EnqueueResult rb = b.get(30, TimeUnit.SECONDS);
            second.commit();
            assertTrue(rb.duplicate(), "the second transaction's enqueue of a committed key is a duplicate");
            assertEquals(a.id(), rb.id(), "and returns the first message's id");

            // the first rolls back: the second's message stands
            EnqueueResult c = queue().enqueueDeduplicated(first, q, keyed("order-2", "rolled back"));
            assertFalse(c.duplicate());
            Future<EnqueueResult> d = pool.submit(() -> queue().enqueueDeduplicated(second, q, keyed("order-2", "stands")));
            pause(300);
            first.rollback();
            EnqueueResult rd = d.get(30, TimeUnit.SECONDS);
            second.commit();
            assertFalse(rd.duplicate(), "a key whose first transaction rolled back is free again");
            assertNotEquals(c.id(), rd.id());
        } finally {
            pool.shutdownNow();
        }
        List<Delivery> got = drain(queue(), q, 2);
        assertEquals(List.of("first", "stands"), got.stream().map(Delivery::text).sorted().toList(),
                "one message per key: the committed first, and the second where the first rolled back");
        assertTrue(queue().enqueueDeduplicated(q, keyed("order-2", "again")).duplicate(),
                "the key of the message that stands is taken");
        assertTrue(queue().consume(q, claim(1)).isEmpty(), "the duplicate enqueued nothing");
    }

    /**
     * C26: With a 2 s window a repeat is a duplicate and a plain {@code enqueue} returns the first id; after
     * the window the key is free again; keys are per queue and compared exactly ({@code job}, {@code Job},
     * {@code job } are three keys); a key repeated inside one {@code enqueueAll} is enqueued once; {@code
     * enqueueAllDeduplicated} marks as duplicates a batch's message whose key was taken before it and one
     * that repeats a key of the batch.
     *
     * <p>Guards against keys that never expire, or that merge keys differing in case or trailing spaces (a PAD
     * SPACE collation).
     */
    @Test
    @DisplayName("C26 deduplication window, per queue, exact keys")
    default void c26DeduplicationWindow() {
        requires(Capability.DEDUPLICATION);
        QueueName q = newQueue("c26");
        QueueName other = newQueue("c26b");
        SqlQueue shortWindow = openAnother(config().toBuilder().deduplicationWindow(Duration.ofSeconds(2)).build());

        EnqueueResult first = shortWindow.enqueueDeduplicated(q, keyed("job", "1"));
        assertFalse(first.duplicate());
        EnqueueResult again = shortWindow.enqueueDeduplicated(q, keyed("job", "2"));
        assertTrue(again.duplicate(), "within the window: a duplicate");
        assertEquals(first.id(), again.id());
        assertEquals(first.id(), shortWindow.enqueue(q, keyed("job", "3")), "plain enqueue returns the first id too");
        // keys are per queue and compared exactly
        assertFalse(shortWindow.enqueueDeduplicated(other, keyed("job", "other queue")).duplicate(), "another queue");
        assertFalse(shortWindow.enqueueDeduplicated(q, keyed("Job", "case")).duplicate(), "case counts");
        assertFalse(shortWindow.enqueueDeduplicated(q, keyed("job ", "space")).duplicate(), "a trailing space counts");
        // a batch: a key repeated inside it is enqueued once, both get its id
        List<Long> ids = shortWindow.enqueueAll(q, List.of(keyed("batch", "b1"), keyed("batch", "b2"), Message.ofText("plain")));
        assertEquals(ids.get(0), ids.get(1), "a key repeated in one batch gets the first message's id");
        assertNotEquals(ids.get(0), ids.get(2));
        // enqueueAllDeduplicated says which: a key seen before the batch, a key repeated in it
        List<EnqueueResult> rs = shortWindow.enqueueAllDeduplicated(q, List.of(keyed("job", "5"), keyed("batch2", "c1"),
                keyed("batch2", "c2"), Message.ofText("plain2")));
        assertEquals(List.of(true, false, true, false), rs.stream().map(EnqueueResult::duplicate).toList(),
                "duplicate flags of a batch: " + rs);
        assertEquals(first.id(), rs.get(0).id(), "a key seen before the batch: the first message's id");
        assertEquals(rs.get(1).id(), rs.get(2).id(), "a key repeated in the batch: its first message's id");
        assertEquals(List.of(), shortWindow.enqueueAllDeduplicated(q, List.of()));

        pause(2500);
        EnqueueResult after = shortWindow.enqueueDeduplicated(q, keyed("job", "4"));
        assertFalse(after.duplicate(), "after the window (2 s, database clock) the key is free again");
        assertNotEquals(first.id(), after.id());

        List<Delivery> got = drain(queue(), q, 8);
        assertEquals(List.of("1", "4", "b1", "c1", "case", "plain", "plain2", "space"),
                got.stream().map(Delivery::text).sorted().toList());
        assertEquals(1, drain(queue(), other, 1).size());
    }
}
