package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Cases about holding and settling a message: C02, C03, C04, C05, C06, C12, C13, C27. */
public interface LeaseCases extends SuiteContext {

    /**
     * C02: While one consumer holds a lease, no other consumer receives the message.
     *
     * <p>Guards against a claim without {@code SKIP LOCKED}/{@code READPAST}/{@code UPDLOCK} semantics that lets
     * two workers read the same row as free (double processing).
     */
    @Test
    @DisplayName("C02 lease exclusivity")
    default void c02LeaseExclusivity() {
        QueueName q = newQueue("c02");
        queue().enqueue(q, Message.ofText("one"));
        Delivery held = consumeOne(queue(), q, Duration.ofSeconds(5));
        SqlQueue other = openAnother();
        for (int i = 0; i < 5; i++) {
            assertTrue(other.consume(q, claim(10)).isEmpty(), "no other consumer receives a held message");
            pause(100);
        }
        queue().ack(held.receipt());
        assertTrue(other.consume(q, claim(10)).isEmpty(), "nothing after the ack");
    }

    /**
     * C03: An unacked message comes back once after its lease, as attempt 2; the first holder's late ack
     * fails with {@code LeaseLostException} and removes nothing.
     *
     * <p>Guards against a lost message after a worker crash, or a late ack from a "zombie" worker deleting the
     * message another worker now owns (no fencing token).
     */
    @Test
    @DisplayName("C03 lease expiry")
    default void c03LeaseExpiry() {
        requiresMode(ClaimMode.LEASE, "lease expiry belongs to lease mode; transactional claims recover by rollback (C12)");
        QueueName q = newQueue("c03");
        queue().enqueue(q, Message.ofText("expiring"));
        Delivery first = queue().consume(q, claim(1).withLease(Duration.ofMillis(600))).get(0);
        SqlQueue other = openAnother();
        Delivery second = consumeOne(other, q, Duration.ofSeconds(10));
        assertEquals(first.id(), second.id(), "the same message comes back");
        assertEquals(2, second.attempt(), "attempt 2 after the lease expired");
        assertTrue(openAnother().consume(q, claim(10)).isEmpty(), "it comes back once");
        assertThrows(LeaseLostException.class, () -> queue().ack(first.receipt()), "late ack of the first holder fails");
        assertEquals(1, queue().stats(q).depth(), "the failed late ack removed nothing");
        other.ack(second.receipt());
        assertEquals(0, queue().stats(q).depth());
    }

    /**
     * C04: An extended lease keeps the message hidden past its first expiry.
     *
     * <p>Guards against long jobs redelivered while still running because the extension updated nothing or used
     * the JVM clock.
     */
    @Test
    @DisplayName("C04 lease extension")
    default void c04LeaseExtension() {
        requires(Capability.LEASE_EXTENSION);
        QueueName q = newQueue("c04");
        queue().enqueue(q, Message.ofText("extended"));
        SqlQueue other = openAnother();
        Delivery d = queue().consume(q, claim(1).withLease(Duration.ofMillis(1500))).get(0);
        pause(500);
        long extended = System.nanoTime();
        queue().extend(d.receipt(), Duration.ofSeconds(10));
        pause(2500);
        // a check that finds the message fails unless the extended lease could have ended by then (a slow server)
        List<Delivery> seen = other.consume(q, claim(1));
        if (!seen.isEmpty()) {
            DeliveryCases.early(seen, extended, 10_000, "hidden past its first expiry");
            return;
        }
        queue().ack(d.receipt());
        assertEquals(0, queue().stats(q).depth());
    }

    /**
     * C05: Redelivered no earlier than the delay, attempt count raised.
     *
     * <p>Guards against retry storms (a nack that makes the message visible at once) and attempts not counted,
     * so poison messages never reach the dead-letter store.
     */
    @Test
    @DisplayName("C05 nack with delay")
    default void c05NackWithDelay() {
        requires(Capability.NACK_DELAY);
        QueueName q = newQueue("c05");
        queue().enqueue(q, Message.ofText("retry me"));
        Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
        long start = System.nanoTime();
        queue().nack(d.receipt(), Duration.ofMillis(1200), "boom");
        // an early check that finds the message fails only if it ended before the delay could have passed (see C07)
        Delivery again = DeliveryCases.early(queue().consume(q, claim(1)), start, 1200, "not redelivered at once");
        if (again == null) {
            pause(600);
            again = DeliveryCases.early(queue().consume(q, claim(1)), start, 1200, "not redelivered before the delay");
        }
        if (again == null) {
            again = consumeOne(queue(), q, Duration.ofSeconds(10));
        }
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(elapsedMs >= 1200, "redelivered after " + elapsedMs + " ms, before the 1200 ms delay");
        assertEquals(2, again.attempt(), "attempt raised");
        queue().ack(again.receipt());
    }

    /**
     * C06: After the maximum attempts the message is in the dead-letter store with bytes and reason; requeue
     * delivers it again with attempts reset.
     *
     * <p>Guards against poison messages retried forever, or dead-lettered without their payload or reason.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C06 dead letter")
    @SuppressWarnings("try") // the worker pool is held for its close only, which stops its workers
    default void c06DeadLetter() throws Exception {
        QueueName q = newQueue("c06");
        byte[] payload = {0, 1, 2, (byte) 0xff, 'x'};
        queue().enqueue(q, Message.builder(payload).header("h", "v").build());
        RetryPolicy retry = new RetryPolicy(3, Duration.ZERO, Duration.ZERO, 1.0, 0.0);
        WorkerOptions options = WorkerOptions.defaults().withThreads(1).withBatchSize(1).withMode(claimMode())
                .withRetry(retry).withPollWait(Duration.ofMillis(100));
        try (WorkerPool pool = WorkerPool.start(queue(), q, d -> Outcome.retry("always fails: attempt " + d.attempt()), options, null)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (queue().stats(q).dead() == 0 && System.nanoTime() < deadline) {
                pause(50);
            }
        }
        List<DeadLetter> dead = queue().deadLetters(q, 10);
        assertEquals(1, dead.size(), "in the dead-letter store after the maximum attempts");
        DeadLetter dl = dead.get(0);
        assertArrayEquals(payload, dl.payload(), "bytes intact");
        assertEquals(3, dl.attempts(), "three attempts");
        assertTrue(dl.reason().contains("always fails: attempt 3"), "the reason is kept: " + dl.reason());
        assertEquals("v", dl.headers().get("h"));
        // listings read summaries: the payload's first bytes and its length (issue 31)
        List<dev.sqlqueue.DeadLetterSummary> summaries = queue().deadLetterSummaries(q, 10);
        assertEquals(1, summaries.size(), "the summary listing agrees");
        assertEquals(dl.messageId(), summaries.get(0).messageId());
        assertArrayEquals(payload, summaries.get(0).payloadPreview(), "a short payload is its own preview");
        assertEquals(payload.length, summaries.get(0).payloadBytes());
        assertEquals(dl.reason(), summaries.get(0).reason());
        assertEquals(List.of(dl.messageId()), queue().deadLetterSummaries(q, List.of(dl.messageId(), dl.messageId() + 1_000_000))
                .stream().map(dev.sqlqueue.DeadLetterSummary::messageId).toList(), "by id: ids of no dead letter are left out");
        assertEquals(0, queue().stats(q).depth(), "no longer on the queue");
        assertEquals(1, queue().requeueDeadLetters(q, List.of()));
        Delivery back = consumeOne(queue(), q, Duration.ofSeconds(5));
        assertArrayEquals(payload, back.payload(), "requeued intact");
        assertEquals(1, back.attempt(), "attempts start again");
        queue().ack(back.receipt());
        assertEquals(0, queue().stats(q).dead());
    }

    /**
     * C12: (transactional mode) rollback puts the message back without counting an attempt; commit removes
     * it; a killed or closed connection puts it back.
     *
     * <p>Guards against messages stuck or lost when a transaction-holding worker dies.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C12 transactional claim")
    default void c12TransactionalClaim() throws Exception {
        requiresMode(ClaimMode.TRANSACTIONAL, "applies to transactional claims; lease mode recovers by expiry (C03, C13)");
        QueueName q = newQueue("c12");
        queue().enqueue(q, Message.ofText("tx"));
        Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
        queue().release(d.receipt());
        Delivery again = consumeOne(queue(), q, Duration.ofSeconds(5));
        assertEquals(d.id(), again.id(), "rollback puts the message back");
        assertEquals(d.attempt(), again.attempt(), "a rollback does not count an attempt");
        queue().ack(again.receipt());
        assertTrue(queue().consume(q, claim(1).withWait(Duration.ofMillis(300))).isEmpty(), "commit removes it");

        queue().enqueue(q, Message.ofText("dropped connection"));
        SqlQueue crashing = openAnother();
        Delivery held = consumeOne(crashing, q, Duration.ofSeconds(5));
        assertTrue(queue().consume(q, claim(1)).isEmpty(), "held while the transaction is open");
        if (hooks().killSessionsUnavailable().isEmpty()) {
            hooks().killSessions(config());
        } else {
            crashing.close();
        }
        Delivery back = consumeOne(queue(), q, Duration.ofSeconds(30));
        assertEquals(held.id(), back.id(), "a closed connection puts it back");
        queue().ack(back.receipt());
    }

    /**
     * C13: (lease mode) a consumer whose sessions are killed mid-handler loses the message to another
     * consumer after the lease, exactly once, as attempt 2; its late ack fails.
     *
     * <p>Guards against a crash that loses the message, or delivers it twice at the same time.
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C13 crash in lease mode")
    default void c13CrashInLeaseMode() throws Exception {
        requiresMode(ClaimMode.LEASE, "lease mode only; a transactional claim's crash is C12");
        requiresHook(hooks().killSessionsUnavailable());
        QueueName q = newQueue("c13");
        queue().enqueue(q, Message.ofText("crash"));
        SqlQueue crashing = openAnother();
        long claimed = System.nanoTime();
        Delivery held = crashing.consume(q, claim(1).withLease(Duration.ofMillis(1500)).withWait(Duration.ofSeconds(5))).get(0);
        int killed = hooks().killSessions(config());
        assertTrue(killed >= 1, "the hook killed the consumer's sessions");
        // found at once only if the kill took longer than the lease (a slow server): judged by the time that passed
        Delivery taken = DeliveryCases.early(queue().consume(q, claim(1)), claimed, 1500, "not visible before the lease ends");
        if (taken == null) {
            taken = consumeOne(queue(), q, Duration.ofSeconds(30));
        }
        assertEquals(held.id(), taken.id(), "another consumer gets it after the lease");
        assertEquals(2, taken.attempt());
        assertTrue(openAnother().consume(q, claim(1).withWait(Duration.ofMillis(500))).isEmpty(), "once");
        assertThrows(LeaseLostException.class, () -> crashing.ack(held.receipt()), "the crashed consumer's late ack fails");
        queue().ack(taken.receipt());
        assertEquals(0, queue().stats(q).depth());
    }

    /**
     * C27: {@code ackAllAndConsume}: 6 messages, 3 claimed; receipts naming another queue than the call's, of
     * a transactional claim or repeated, a receipt naming the call's queue for a message claimed from another
     * queue, a transactional request and a null one, are refused ({@code receipt.queue}, {@code
     * receipt.mode}, {@code receipt.duplicate}, {@code consume.mode}, {@code consume.null}) with nothing
     * acked or claimed; then the 3 are acked and the other 3 claimed in one call, none of the acked ones
     * among them; a call whose claim finds nothing returns at once though its request allows a 60 s wait; a
     * receipt whose lease ran out and was retaken is reported lost and its message stays with the new holder;
     * where groups are declared, the call that acks a group's head claims the group's next message.
     *
     * <p>Guards against a worker whose batch acks and next claim in one round trip acks nothing, acks twice,
     * loses a lost-lease report, or claims a message it just acked.
     */
    @Test
    @DisplayName("C27 ack and claim in one call")
    default void c27AckAndClaimInOneCall() {
        requiresMode(ClaimMode.LEASE, "ackAllAndConsume settles lease-mode receipts");
        QueueName q = newQueue("c27");
        for (int i = 0; i < 6; i++) {
            queue().enqueue(q, Message.ofText("m" + i));
        }
        List<Delivery> first = queue().consume(q, claim(3).withWait(Duration.ofSeconds(5)));
        assertEquals(3, first.size());
        java.util.Set<Long> firstIds = new java.util.HashSet<>();
        first.forEach(d -> firstIds.add(d.id()));
        List<Receipt> firstReceipts = first.stream().map(Delivery::receipt).toList();

        // bad input is refused before anything runs: nothing acked, nothing claimed
        QueueName other = newQueue("c27-other");
        InvalidInputException wrongQueue = assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(firstReceipts, other, claim(10)));
        assertEquals("receipt.queue", wrongQueue.rule());
        Receipt transactional = new Receipt(q, first.get(0).id(), first.get(0).receipt().token(), ClaimMode.TRANSACTIONAL);
        assertEquals("receipt.mode", assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(List.of(transactional), q, claim(10))).rule());
        assertEquals("consume.mode", assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(firstReceipts, q, claim(10).withMode(ClaimMode.TRANSACTIONAL))).rule());
        assertEquals("consume.null", assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(firstReceipts, q, null)).rule());
        assertEquals("receipt.duplicate", assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(List.of(firstReceipts.get(0), firstReceipts.get(0)), q, claim(10))).rule());
        // a receipt that names this queue for a message claimed from another (its claim's token, the wrong queue)
        queue().enqueue(other, Message.ofText("elsewhere"));
        Delivery elsewhere = consumeOne(queue(), other, Duration.ofSeconds(10));
        Receipt misnamed = new Receipt(q, elsewhere.id(), elsewhere.receipt().token(), ClaimMode.LEASE);
        assertEquals("receipt.queue", assertThrows(InvalidInputException.class,
                () -> queue().ackAllAndConsume(List.of(misnamed), q, claim(10))).rule());
        assertEquals(1, queue().stats(other).inFlight(), "the misnamed receipt's message is still held by its claim");
        assertEquals(6, queue().stats(q).depth(), "the refused calls acked nothing");
        assertEquals(3, queue().stats(q).inFlight(), "the refused calls claimed nothing");
        queue().ack(elsewhere.receipt());

        // the acks are done and the next claim holds other messages only
        AckedAndClaimed next = queue().ackAllAndConsume(firstReceipts, q, claim(10));
        assertEquals(java.util.Set.of(), next.lost(), "no lease was lost");
        assertEquals(3, next.claimed().size(), "the three messages left");
        next.claimed().forEach(d -> assertTrue(!firstIds.contains(d.id()), "an acked message came back: " + d.text()));
        assertEquals(3, queue().stats(q).depth(), "three acked");

        // the last acks with an empty claim: it does not wait for messages (the acks' outcome comes back at once)
        AckedAndClaimed last = queue().ackAllAndConsume(next.claimed().stream().map(Delivery::receipt).toList(), q,
                claim(10).withWait(Duration.ofSeconds(60)));
        assertEquals(java.util.Set.of(), last.lost());
        assertEquals(List.of(), last.claimed(), "nothing left to claim");
        assertEquals(0, queue().stats(q).depth());

        // a lost lease is reported to the caller, and the message stays with its new holder
        queue().enqueue(q, Message.ofText("late"));
        Delivery expiring = queue().consume(q, claim(1).withLease(Duration.ofMillis(600)).withWait(Duration.ofSeconds(5))).get(0);
        Delivery retaken = consumeOne(openAnother(), q, Duration.ofSeconds(10));
        assertEquals(expiring.id(), retaken.id(), "the message whose lease ran out");
        AckedAndClaimed afterLoss = queue().ackAllAndConsume(List.of(expiring.receipt()), q, claim(10));
        assertEquals(java.util.Set.of(expiring.receipt()), afterLoss.lost(), "exactly the lost lease is reported");
        assertEquals(List.of(), afterLoss.claimed(), "the retaken message is not claimed again");
        assertEquals(1, queue().stats(q).depth(), "the late ack removed nothing");
        queue().ack(retaken.receipt());

        // the claim sees the acks of the same call: a group's next message comes with its predecessor's ack
        if (queue().capabilities().has(Capability.MESSAGE_GROUPS)) {
            queue().enqueue(q, Message.builder("g:0".getBytes(java.nio.charset.StandardCharsets.UTF_8)).group("g").build());
            queue().enqueue(q, Message.builder("g:1".getBytes(java.nio.charset.StandardCharsets.UTF_8)).group("g").build());
            Delivery head = consumeOne(queue(), q, Duration.ofSeconds(10));
            assertEquals("g:0", head.text());
            AckedAndClaimed successor = queue().ackAllAndConsume(List.of(head.receipt()), q, claim(10));
            assertEquals(List.of("g:1"), successor.claimed().stream().map(Delivery::text).toList(),
                    "the group's next message, claimable once its predecessor is acked");
            queue().ack(successor.claimed().get(0).receipt());
        }
        assertEquals(0, queue().stats(q).depth());
    }
}
