package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueName;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Cases about what comes out of a queue: C01, C07, C08, C09, C11, C14. */
public interface DeliveryCases extends SuiteContext {

    /**
     * C01: Enqueue, consume, ack; payloads of 0 bytes, all 256 byte values and the backend's maximum size
     * come back identical; headers of Basic Multilingual Plane text (characters of Unicode 6.0 and earlier)
     * intact (text outside the BMP is C23's, which a backend may refuse); the queue is empty after.
     *
     * <p>Guards against bytes mangled by a text column or a driver's charset conversion (e.g. {@code 0x00},
     * invalid UTF-8), truncation at a size limit the backend claims to support, an ack that does not delete.
     */
    @Test
    @DisplayName("C01 round trip: enqueue, consume, ack")
    default void c01RoundTrip() {
        QueueName q = newQueue("c01");
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        byte[] max = new byte[queue().capabilities().maxPayloadBytes()];
        ThreadLocalRandom.current().nextBytes(max);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("grüße", "日本語 ✓"); // Basic Multilingual Plane text; text outside it is C23's, which a backend may refuse
        headers.put("k=v", "line\nbreak\\slash=eq");
        for (byte[] payload : List.of(new byte[0], all, max)) {
            queue().enqueue(q, Message.builder(payload).headers(headers).build());
            Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
            assertArrayEquals(payload, d.payload(), "payload bytes identical for " + payload.length + " bytes");
            assertEquals(headers, d.headers(), "unicode headers intact");
            assertEquals(1, d.attempt(), "first delivery is attempt 1");
            queue().ack(d.receipt());
        }
        assertEquals(0, queue().stats(q).depth(), "queue empty after the acks");
        assertTrue(queue().consume(q, claim(1)).isEmpty(), "nothing left to consume");
    }

    /**
     * C07: Invisible before its time, visible after.
     *
     * <p>Guards against scheduled jobs running early (JVM and database clocks apart, wrong time zone).
     */
    @Test
    @DisplayName("C07 delayed delivery")
    default void c07DelayedDelivery() {
        requires(Capability.DELAYED_DELIVERY);
        QueueName q = newQueue("c07");
        long start = System.nanoTime();
        queue().enqueue(q, Message.builder(new byte[] {7}).delay(Duration.ofMillis(1500)).build());
        // An early check that finds the message fails only if it ended before the delay could have passed: the
        // database's time at the check is at most the time elapsed since before the enqueue after the enqueue's own.
        // (On a loaded machine a check may come after the delay; then it says nothing.)
        Delivery d = early(queue().consume(q, claim(1)), start, 1500, "invisible right after enqueue");
        if (d == null) {
            long delayed = queue().stats(q).delayed();
            assertTrue(delayed == 1 || elapsedMs(start) >= 1500, "counted as delayed");
            pause(500);
            d = early(queue().consume(q, claim(1)), start, 1500, "still invisible before its time");
        }
        if (d == null) {
            d = consumeOne(queue(), q, Duration.ofSeconds(10));
        }
        long elapsedMs = elapsedMs(start);
        assertTrue(elapsedMs >= 1500, "delivered after " + elapsedMs + " ms, before the 1500 ms delay");
        queue().ack(d.receipt());
    }

    /**
     * What an early check got: null when nothing; a delivery only if at least {@code delayMs} had passed since
     * {@code startNanos} when the check returned, else the case fails with {@code what}.
     *
     * @param got what the check consumed (0 or 1 deliveries)
     * @param startNanos {@link System#nanoTime()} at the enqueue
     * @param delayMs the message's delay, in milliseconds
     * @param what the failure message if it came too early
     * @return the delivery, or null when nothing came
     */
    static Delivery early(List<Delivery> got, long startNanos, long delayMs, String what) {
        if (got.isEmpty()) {
            return null;
        }
        long ms = elapsedMs(startNanos);
        assertTrue(ms >= delayMs, what + ": delivered " + ms + " ms after, before the " + delayMs + " ms delay");
        return got.get(0);
    }

    /**
     * Milliseconds since {@code startNanos} ({@link System#nanoTime}).
     *
     * @param startNanos a {@link System#nanoTime()} reading
     * @return milliseconds since then
     */
    static long elapsedMs(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /**
     * C08: Of two visible messages the higher priority comes first.
     *
     * <p>Guards against a claim index or {@code ORDER BY} that ignores priority.
     */
    @Test
    @DisplayName("C08 priority")
    default void c08Priority() {
        requires(Capability.PRIORITY);
        QueueName q = newQueue("c08");
        queue().enqueue(q, Message.builder("low".getBytes()).priority(0).build());
        queue().enqueue(q, Message.builder("high".getBytes()).priority(5).build());
        Delivery first = consumeOne(queue(), q, Duration.ofSeconds(5));
        assertEquals("high", first.text(), "the higher priority comes first");
        assertEquals(5, first.priority());
        Delivery second = consumeOne(queue(), q, Duration.ofSeconds(5));
        assertEquals("low", second.text());
        queue().ack(first.receipt());
        queue().ack(second.receipt());
    }

    /**
     * C09: One consumer receives 1,000 messages in enqueue order where the backend promises FIFO; skipped
     * with the declared promise otherwise.
     *
     * <p>Guards against a FIFO promise in the docs that the claim order does not keep.
     */
    @Test
    @DisplayName("C09 order")
    default void c09Order() {
        Ordering ordering = queue().capabilities().ordering();
        assumeTrue(ordering == Ordering.FIFO_APPROXIMATE,
                () -> "missing capability: FIFO order (the backend promises " + ordering + ")");
        QueueName q = newQueue("c09");
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            batch.add(Message.of(ByteBuffer.allocate(4).putInt(i).array()));
            if (batch.size() == 100) {
                queue().enqueueAll(q, batch);
                batch.clear();
            }
        }
        int expected = 0;
        while (expected < 1000) {
            List<Delivery> got = queue().consume(q, claim(50).withWait(Duration.ofSeconds(5)));
            assertTrue(!got.isEmpty(), "messages still to come after " + expected);
            for (Delivery d : got) {
                assertEquals(expected, ByteBuffer.wrap(d.payload()).getInt(), "enqueue order");
                expected++;
            }
            queue().ackAll(got.stream().map(Delivery::receipt).toList());
        }
        assertEquals(0, queue().stats(q).depth());
    }

    /**
     * C11: Claim(n) returns at most n distinct messages, and every row it changed is one it returned.
     *
     * <p>Guards against a batch {@code UPDATE} that marks more rows than it returns; those rows are invisible
     * until their lease ends, or are lost.
     */
    @Test
    @DisplayName("C11 batch claim")
    default void c11BatchClaim() {
        QueueName q = newQueue("c11");
        List<Message> ms = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ms.add(Message.of(new byte[] {(byte) i}));
        }
        queue().enqueueAll(q, ms);
        List<Delivery> first = queue().consume(q, claim(10).withWait(Duration.ofSeconds(5)));
        assertTrue(first.size() >= 1 && first.size() <= 10, "at most 10, got " + first.size());
        Set<Long> ids = new HashSet<>();
        first.forEach(d -> ids.add(d.id()));
        assertEquals(first.size(), ids.size(), "distinct messages");
        // every row the claim changed is one it returned: all others are still claimable by someone else
        List<Delivery> rest = openAnother().consume(q, claim(100));
        assertEquals(25 - first.size(), rest.size(), "the other messages are untouched and claimable");
        rest.forEach(d -> assertTrue(ids.add(d.id()), "no message in both claims"));
        assertEquals(25, ids.size());
    }

    /**
     * C14: Invisible until the caller commits; gone if the caller rolls back.
     *
     * <p>Guards against the outbox promise broken: jobs run for business data that was rolled back.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C14 enqueue in the caller's transaction")
    default void c14EnqueueInCallersTransaction() throws Exception {
        requires(Capability.TRANSACTIONAL_ENQUEUE);
        QueueName q = newQueue("c14");
        try (Connection c = hooks().openConnection(config())) {
            c.setAutoCommit(false);
            queue().enqueue(c, q, Message.ofText("committed"));
            assertTrue(queue().consume(q, claim(1)).isEmpty(), "invisible until the caller commits");
            c.commit();
            Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
            assertEquals("committed", d.text());
            queue().ack(d.receipt());
            queue().enqueue(c, q, Message.ofText("rolled back"));
            c.rollback();
            assertTrue(c.getAutoCommit() == false, "the caller's auto-commit mode is untouched");
        }
        assertTrue(queue().consume(q, claim(1).withWait(Duration.ofMillis(300))).isEmpty(), "gone after the rollback");
        assertEquals(0, queue().stats(q).depth());
    }
}
