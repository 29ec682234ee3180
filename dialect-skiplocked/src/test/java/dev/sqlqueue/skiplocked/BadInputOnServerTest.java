package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.ConformanceTarget;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input is refused with {@link InvalidInputException} naming the rule, before anything is written,
 * on H2, PostgreSQL and MariaDB (issue 14's inputs, kept as tests).
 */
class BadInputOnServerTest {
    static Stream<ConformanceTarget> backends() {
        return Stream.of(H2ConformanceTest.TARGET, PostgresConformanceTest.TARGET, MariaDbConformanceTest.TARGET);
    }

    static Stream<Arguments> backendsAndModes() {
        return backends().flatMap(t -> Stream.of(Arguments.of(t, ClaimMode.LEASE), Arguments.of(t, ClaimMode.TRANSACTIONAL)));
    }

    private interface Body {
        void run(SqlQueue queue) throws Exception;
    }

    private static void on(ConformanceTarget target, Body body) throws Exception {
        String prefix = "bi" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        QueueConfig config = target.config(prefix);
        try (SqlQueue queue = SqlQueue.open(config)) {
            body.run(queue);
        } finally {
            target.cleanUp(prefix);
        }
    }

    private static void refused(String rule, Executable call) {
        InvalidInputException e = assertThrows(InvalidInputException.class, call);
        assertEquals(rule, e.rule(), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void badMessagesAreRefusedAndNothingIsStored(ConformanceTarget target) throws Exception {
        on(target, queue -> {
            QueueName q = QueueName.of("bad");
            queue.createQueue(q);
            refused("headers.null", () -> queue.enqueue(q, Message.builder(new byte[] {1}).headers(null).build()));
            refused("header.value", () -> queue.enqueue(q, Message.builder(new byte[] {1}).header("k", "a\u0000b").build()));
            refused("header.value", () -> queue.enqueue(q, Message.builder(new byte[] {1}).header("k", "x\uD800y").build()));
            refused("header.value", () -> queue.enqueue(q, Message.builder(new byte[] {1}).header("k", "\uDC00").build()));
            refused("header.key", () -> queue.enqueue(q, Message.builder(new byte[] {1}).header("k\uD800", "v").build()));
            refused("header.value", () -> queue.enqueue(q, Message.builder(new byte[] {1})
                    .headers(Map.of("k", "v\u0000")).build()));
            refused("group.text", () -> queue.enqueue(q, Message.builder(new byte[] {1}).group("g\u0000").build()));
            refused("group.text", () -> queue.enqueue(q, Message.builder(new byte[] {1}).group("g\uDBFF").build()));
            refused("payload.text", () -> queue.enqueue(q, Message.ofText("lone \uD800 surrogate")));
            refused("delay.max", () -> queue.enqueue(q, Message.builder(new byte[] {1})
                    .delay(Duration.ofDays(100_000_000)).build()));
            refused("delay.max", () -> queue.enqueue(q, Message.builder(new byte[] {1})
                    .delay(Message.MAX_DELAY.plusMillis(1)).build()));
            assertEquals(0, queue.stats(q).depth(), "nothing was stored");

            // what is allowed is stored unchanged: a well-formed pair, other control characters, the maximum delay
            String emoji = "\uD83D\uDE00 tab\there";
            long id = queue.enqueue(q, Message.builder(new byte[] {7}).header("k", emoji).group("g\uD83D\uDE00").build());
            long later = queue.enqueue(q, Message.builder(new byte[] {8}).delay(Message.MAX_DELAY).build());
            Delivery d = queue.consume(q, ConsumeRequest.of(1)).get(0);
            assertEquals(id, d.id());
            assertEquals(emoji, d.headers().get("k"));
            assertArrayEquals(new byte[] {7}, d.payload());
            queue.ack(d.receipt());
            assertEquals(1, queue.stats(q).delayed(), "message " + later + " waits its maximum delay");
        });
    }

    /**
     * Headers at {@link Message#MAX_HEADERS_LENGTH}, made of the characters the stored form escapes (so it
     * is twice as long) and of three-byte UTF-8 characters, are stored and delivered unchanged; one more
     * code unit is refused. A header of 17 MB reached MariaDB's {@code MEDIUMTEXT} and failed there alone.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void headersAtTheirLimitAreStoredUnchangedAndOneMoreIsRefused(ConformanceTarget target) throws Exception {
        on(target, queue -> {
            QueueName q = QueueName.of("heads");
            queue.createQueue(q);
            int half = Message.MAX_HEADERS_LENGTH / 2;
            String escaped = "\\\n\r".repeat((half - 1) / 3) + "\\".repeat((half - 1) % 3);
            String wide = "\u20ac".repeat(half - 1);
            Message full = Message.builder(new byte[] {1}).header("a", escaped).header("b", wide).build();
            refused("headers.size", () -> queue.enqueue(q, Message.builder(new byte[] {2}).header("a", escaped)
                    .header("b", wide + "x").build()));
            long one = queue.enqueue(q, full);
            List<Long> two = queue.enqueueAll(q, List.of(full, full));
            assertEquals(3, queue.stats(q).depth());
            List<Delivery> got = queue.consume(q, ConsumeRequest.of(3));
            assertEquals(List.of(one, two.get(0), two.get(1)), got.stream().map(Delivery::id).sorted().toList());
            for (Delivery d : got) {
                assertEquals(full.headers(), d.headers(), "the headers of message " + d.id());
                queue.ack(d.receipt());
            }
        });
    }

    /**
     * A row in the queue table whose name is not a queue name (written by hand, not through the library) made
     * every listing of queues throw, so {@code stats} and the dashboard showed nothing. It is left out of the
     * list (and logged); the other queues are listed and their statistics read.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aStrayQueueRowDoesNotHideTheOtherQueues(ConformanceTarget target) throws Exception {
        String prefix = "bi" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        QueueConfig config = target.config(prefix);
        try (SqlQueue queue = SqlQueue.open(config)) {
            QueueName q = QueueName.of("good");
            queue.createQueue(q);
            queue.enqueue(q, Message.ofText("x"));
            String quote = config.url().startsWith("jdbc:mariadb") ? "`" : "\"";
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(config.url(), config.user(), config.password());
                 java.sql.Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + quote + prefix + "queue" + quote + " (name, created_at) VALUES ('Bad Name;', 0)");
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            }
            assertEquals(List.of(q), queue.queues());
            assertEquals(1, queue.stats(q).depth());
        } finally {
            target.cleanUp(prefix);
        }
    }

    /** A misspelt option key was ignored silently ({@code migrate --option postgresql.transaction-poolr=true}, exit 0). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void anOptionTheBackendDoesNotReadIsRefused(ConformanceTarget target) {
        String prefix = "bi" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        QueueConfig config = target.config(prefix).toBuilder().option("postgresql.transaction-poolr", "true").build();
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlQueue.open(config).close());
        assertEquals("option.unknown", e.rule());
        assertTrue(e.getMessage().contains("postgresql.transaction-poolr"), e.getMessage());
        if (config.url().startsWith("jdbc:postgresql")) {
            assertTrue(e.getMessage().contains("postgresql.transaction-pooler"), "names the keys it reads: " + e.getMessage());
        }
    }

    /**
     * Durations below the millisecond the database counts in, beyond what it can count, and null lists are
     * refused by rule: a lease of 1 ns passed the "1 ms" check (and an extension of 1 ns made the message
     * visible at once), a wait of 2^62 s threw ArithmeticException, and requeueDeadLetters with a null id threw
     * NullPointerException while a null list requeued every dead letter of the queue.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void subMillisecondAndUncountableDurationsAndNullIdsAreRefused(ConformanceTarget target) throws Exception {
        on(target, queue -> {
            QueueName q = QueueName.of("odd");
            queue.createQueue(q);
            refused("consume.lease", () -> ConsumeRequest.of(1).withLease(Duration.ofNanos(1)));
            refused("consume.lease", () -> ConsumeRequest.of(1).withLease(Duration.ofNanos(999_999)));
            refused("consume.wait", () -> ConsumeRequest.of(1).withWait(Duration.ofSeconds(Long.MAX_VALUE / 2)));
            queue.enqueue(q, Message.ofText("dead"));
            Delivery d = queue.consume(q, ConsumeRequest.of(1)).get(0);
            refused("consume.lease", () -> queue.extend(d.receipt(), Duration.ofNanos(1)));
            queue.deadLetter(d.receipt(), "for the test");
            refused("dlq.ids", () -> queue.requeueDeadLetters(q, null));
            refused("dlq.ids", () -> queue.requeueDeadLetters(q, Arrays.asList(d.id(), null)));
            // issue 33: deleting dead letters takes 1..10,000 ids (an empty list is no "all": purgeDeadLetters is)
            refused("dlq.ids", () -> queue.deleteDeadLetters(q, java.util.List.of()));
            refused("dlq.ids", () -> queue.deleteDeadLetters(q, null));
            refused("dlq.ids", () -> queue.deleteDeadLetters(q, Arrays.asList(d.id(), null)));
            refused("queue.exists", () -> queue.pause(dev.sqlqueue.QueueName.of("no-such-queue")));
            refused("queue.exists", () -> queue.resume(dev.sqlqueue.QueueName.of("no-such-queue")));
            refused("limit.range", () -> queue.messages(q, dev.sqlqueue.MessageState.READY, 0, 0));
            refused("messages.after", () -> queue.messages(q, dev.sqlqueue.MessageState.READY, -1, 10));
            refused("messages.state", () -> queue.messages(q, null, 0, 10));
            refused("history-buckets.range", () -> queue.historyBuckets(q, java.time.Instant.now(), Duration.ofMillis(999)));
            refused("history-buckets.range", () -> queue.historyBuckets(q, java.time.Instant.now().minus(Duration.ofDays(401)),
                    Duration.ofHours(1)));
            assertEquals(false, queue.isPaused(q), "nothing paused");
            assertEquals(1, queue.stats(q).dead(), "the dead letter is still dead");
            assertEquals(0, queue.stats(q).depth());
        });
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("backendsAndModes")
    void badSettlesAreRefusedAndTheMessageIsUnchanged(ConformanceTarget target, ClaimMode mode) throws Exception {
        on(target, queue -> {
            QueueName q = QueueName.of("held");
            QueueName other = QueueName.of("other");
            queue.createQueue(q);
            queue.createQueue(other);
            long id = queue.enqueue(q, Message.ofText("held"));
            queue.enqueue(other, Message.ofText("bystander"));
            Delivery d = queue.consume(q, ConsumeRequest.of(1).withMode(mode)).get(0);
            Receipt r = d.receipt();
            Receipt forged = new Receipt(other, r.messageId(), r.token(), r.mode());

            refused("receipt.queue", () -> queue.ack(forged));
            refused("receipt.queue", () -> queue.ack(forged, "detail"));
            refused("receipt.queue", () -> queue.nack(forged, Duration.ZERO, "e"));
            refused("receipt.queue", () -> queue.deadLetter(forged, "r"));
            refused("receipt.queue", () -> queue.release(forged));
            refused("receipt.queue", () -> queue.ackAll(List.of(forged)));
            refused("receipt.duplicate", () -> queue.ackAll(Arrays.asList(r, r)));
            refused("delay.max", () -> queue.nack(r, Duration.ofDays(100_000_000), "e"));
            refused("delay.max", () -> queue.nack(r, Message.MAX_DELAY.plusMillis(1), "e"));

            assertEquals(1, queue.stats(q).depth(), "the message is still there, held by its claim");
            assertEquals(1, queue.stats(other).depth(), "the other queue is untouched");
            assertEquals(0, queue.stats(q).dead() + queue.stats(other).dead());
            queue.ack(r);
            assertEquals(0, queue.stats(q).depth(), "the real receipt still acks message " + id);
            assertTrue(queue.consume(q, ConsumeRequest.of(1).withMode(mode)).isEmpty());
            assertEquals(1, queue.stats(other).depth());
        });
    }
}
