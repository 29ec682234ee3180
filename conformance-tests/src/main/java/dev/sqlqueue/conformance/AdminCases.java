package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Cases about bad input, bad rows and administration: C15, C16, C19, C20, C21. */
public interface AdminCases extends SuiteContext {

    private void rejected(String rule, Runnable call) {
        InvalidInputException e = assertThrows(InvalidInputException.class, call::run, "rule " + rule);
        assertEquals(rule, e.rule(), "the error names the rule: " + e.getMessage());
    }

    /**
     * C15: Bad queue names (empty, too long, quotes, {@code ;}, look-alikes), null and over-size payloads,
     * negative delays are rejected with an error naming the rule, and the store is unchanged.
     *
     * <p>Guards against SQL injection through queue names; half-written batches.
     */
    @Test
    @DisplayName("C15 bad input")
    default void c15BadInput() {
        QueueName q = newQueue("c15");
        queue().enqueue(q, Message.ofText("keep"));
        List<QueueName> before = queue().queues();
        QueueStats statsBefore = queue().stats(q);
        rejected("queue-name.empty", () -> QueueName.of(""));
        rejected("queue-name.max-length", () -> QueueName.of("q".repeat(QueueName.MAX_LENGTH + 1)));
        rejected("queue-name.pattern", () -> QueueName.of("it's"));
        rejected("queue-name.pattern", () -> QueueName.of("a\"b"));
        rejected("queue-name.pattern", () -> QueueName.of("jobs;drop table x"));
        rejected("queue-name.pattern", () -> QueueName.of("my jobs"));
        rejected("queue-name.pattern", () -> QueueName.of("j\u043Ebs")); // Cyrillic o
        rejected("payload.null", () -> Message.of(null));
        int max = queue().capabilities().maxPayloadBytes();
        rejected("payload.max-size", () -> queue().enqueue(q, Message.of(new byte[max + 1])));
        rejected("payload.max-size", () -> queue().enqueueAll(q, List.of(Message.ofText("ok"), Message.of(new byte[max + 1]))));
        rejected("delay.negative", () -> Message.builder(new byte[1]).delay(Duration.ofMillis(-1)));
        Delivery d = consumeOne(queue(), q, Duration.ofSeconds(5));
        rejected("delay.negative", () -> queue().nack(d.receipt(), Duration.ofSeconds(-5), "x"));
        queue().release(d.receipt());
        assertEquals(before, queue().queues(), "no queue created or removed");
        QueueStats after = queue().stats(q);
        assertEquals(statsBefore.depth(), after.depth(), "the store is unchanged");
        assertEquals(statsBefore.dead(), after.dead());
        Delivery kept = consumeOne(queue(), q, Duration.ofSeconds(5));
        assertEquals("keep", kept.text());
        assertEquals(d.attempt(), kept.attempt(), "the rejected nack counted nothing");
        queue().ack(kept.receipt());
        // reserved words in one database or another are ordinary queue names
        for (String word : List.of("select", "user", "order", "KEY", "Group", "end", "value", "rowid", "qualify")) {
            QueueName reserved = newQueue(word);
            queue().enqueue(reserved, Message.ofText(word));
            Delivery r = consumeOne(queue(), reserved, Duration.ofSeconds(5));
            assertEquals(word, r.text(), "queue '" + word + "' works");
            queue().ack(r.receipt());
        }
    }

    /**
     * C16: Rows written by raw SQL with broken headers go to the dead-letter store after one attempt, bytes
     * intact, and the consumer goes on.
     *
     * <p>Guards against one bad row wedging a queue forever (every consumer throws on it).
     *
     * @throws Exception from the backend or the case's own threads when they fail in a way the case
     *     does not expect; it fails the case (a failed check throws an {@link AssertionError} instead)
     */
    @Test
    @DisplayName("C16 garbage rows")
    default void c16GarbageRows() throws Exception {
        requiresHook(hooks().rawInsertUnavailable());
        QueueName q = newQueue("c16");
        byte[] bad1 = {1, 2, 3};
        byte[] bad2 = {(byte) 0xfe, 0};
        hooks().insertRawMessage(config(), q, bad1, "this line has no equals sign");
        hooks().insertRawMessage(config(), q, bad2, "k=v\nbroken\\escape=1");
        queue().enqueue(q, Message.ofText("good"));
        List<Delivery> got = queue().consume(q, claim(10).withWait(Duration.ofSeconds(5)));
        assertEquals(1, got.size(), "only the well-formed message is delivered");
        assertEquals("good", got.get(0).text());
        queue().ack(got.get(0).receipt());
        List<DeadLetter> dead = queue().deadLetters(q, 10);
        assertEquals(2, dead.size(), "both garbage rows are dead-lettered");
        for (DeadLetter dl : dead) {
            assertEquals(1, dl.attempts(), "after one attempt");
            assertTrue(dl.reason().contains("malformed headers"), dl.reason());
        }
        assertTrue(dead.stream().anyMatch(dl -> java.util.Arrays.equals(bad1, dl.payload())), "bytes intact");
        assertTrue(dead.stream().anyMatch(dl -> java.util.Arrays.equals(bad2, dl.payload())), "bytes intact");
        assertTrue(dead.stream().anyMatch(dl -> "this line has no equals sign".equals(dl.rawHeaders())), "raw headers kept");
        assertEquals(0, queue().stats(q).depth());
    }

    /**
     * C19: Depth, in flight, delayed, dead and oldest age exact after a scripted sequence.
     *
     * <p>Guards against dashboards and alerts on wrong numbers.
     */
    @Test
    @DisplayName("C19 statistics")
    default void c19Statistics() {
        QueueName q = newQueue("c19");
        for (int i = 0; i < 6; i++) {
            queue().enqueue(q, Message.ofText("m" + i));
        }
        boolean delays = queue().capabilities().has(Capability.DELAYED_DELIVERY);
        if (delays) {
            queue().enqueue(q, Message.builder(new byte[1]).delay(Duration.ofMinutes(10)).build());
            queue().enqueue(q, Message.builder(new byte[1]).delay(Duration.ofMinutes(10)).build());
        }
        pause(300);
        List<Delivery> claimed = queue().consume(q, claim(3).withLease(Duration.ofMinutes(5)));
        assertEquals(3, claimed.size());
        queue().deadLetter(claimed.get(0).receipt(), "scripted");
        queue().ack(claimed.get(1).receipt());
        boolean lease = claimMode() == ClaimMode.LEASE;
        if (!lease) {
            // a transactional claim commits when its last delivery is settled
            queue().release(claimed.get(2).receipt());
        }
        QueueStats s = queue().stats(q);
        assertEquals(lease ? 3 : 4, s.ready(), "ready");
        assertEquals(lease ? 1 : 0, s.inFlight(), "in flight");
        assertEquals(delays ? 2 : 0, s.delayed(), "delayed");
        assertEquals(1, s.dead(), "dead");
        assertTrue(s.oldestReadyAgeMillis() >= 250 && s.oldestReadyAgeMillis() < 120_000,
                "oldest ready age " + s.oldestReadyAgeMillis() + " ms");
        if (lease) {
            queue().ack(claimed.get(2).receipt());
            s = queue().stats(q);
            assertEquals(0, s.inFlight());
            assertEquals(3, s.ready());
        }
        assertEquals((lease ? 3 : 4) + (delays ? 2 : 0), s.depth(), "depth");
    }

    /**
     * C20: Purge empties one queue only; drop removes its objects; other queues are untouched.
     *
     * <p>Guards against an admin command that deletes other queues' data.
     */
    @Test
    @DisplayName("C20 purge and drop")
    default void c20PurgeAndDrop() {
        QueueName a = newQueue("c20a");
        QueueName b = newQueue("c20b");
        for (int i = 0; i < 5; i++) {
            queue().enqueue(a, Message.ofText("a" + i));
            queue().enqueue(b, Message.ofText("b" + i));
        }
        assertEquals(5, queue().purge(a), "purge reports what it removed");
        assertEquals(0, queue().stats(a).depth(), "purge empties the queue");
        assertEquals(5, queue().stats(b).depth(), "purge touches no other queue");
        queue().enqueue(a, Message.ofText("again"));
        queue().dropQueue(a);
        assertFalse(queue().queues().contains(a), "drop removes the queue");
        assertTrue(queue().queues().contains(b), "drop touches no other queue");
        assertEquals(5, queue().stats(b).depth());
        Delivery d = consumeOne(queue(), b, Duration.ofSeconds(5));
        assertTrue(d.text().startsWith("b"), "one of b's messages, whatever the backend's order: " + d.text());
        queue().ack(d.receipt());
    }

    /**
     * C21: Pools handing out auto-commit on or off both work, and every connection goes back with the
     * auto-commit and isolation it came with.
     *
     * <p>Guards against a library that leaves connections in a state that breaks the application sharing the
     * pool.
     */
    @Test
    @DisplayName("C21 connection state")
    default void c21ConnectionState() {
        for (boolean autoCommit : new boolean[] {true, false}) {
            CountingDataSource ds = new CountingDataSource(hooks(), config(), autoCommit);
            QueueConfig c = config().toBuilder().dataSource(ds).backend(queue().capabilities().backend()).migrate(false).build();
            SqlQueue client = openAnother(c);
            QueueName q = QueueName.of("c21" + (autoCommit ? "on" : "off"));
            client.createQueue(q);
            client.enqueueAll(q, List.of(Message.ofText("x"), Message.ofText("y"), Message.ofText("z")));
            Delivery d = consumeOne(client, q, Duration.ofSeconds(5));
            client.ack(d.receipt());
            Delivery e = consumeOne(client, q, Duration.ofSeconds(5));
            client.nack(e.receipt(), Duration.ZERO, "again");
            Supplier<List<Delivery>> rest = () -> client.consume(q, claim(10).withWait(Duration.ofSeconds(5)));
            List<Delivery> left = rest.get();
            assertEquals(2, left.size(), "works with connections handed out with auto-commit " + autoCommit);
            client.ackAll(left.stream().map(Delivery::receipt).toList());
            assertEquals(0, client.stats(q).depth());
            assertTrue(ds.connectionsHandedOut() > 0, "the backend used the caller's pool");
            assertEquals(List.of(), ds.violations(), "every connection goes back as it came");
        }
    }
}
