package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.MoveOptions;
import dev.sqlqueue.MoveReport;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueMover;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sqlqueue move} (issue 35) with the SQL Server queue tables on Babelfish ({@link BabelfishServer}) as target
 * and as source, the other side an H2 file database (the embedded default a user outgrows). The target's
 * deduplication keys make the move exactly once; as a source the tables hold ready and delayed messages with their move
 * claim ({@code moveClaim}), take over a dead mover's at once, and leave a consumer's, counted.
 */
class BabelfishMoveTest {
    @TempDir
    Path dir;

    /** One table prefix for the class: creating the schema is the slow part on Babelfish. */
    private static String prefix;
    private QueueName queue;

    @BeforeEach
    void fixture(org.junit.jupiter.api.TestInfo test) {
        assumeTrue(BabelfishServer.unavailable().isEmpty(), () -> BabelfishServer.unavailable().orElse(""));
        if (prefix == null) {
            prefix = "mv" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        }
        queue = QueueName.of("m" + Math.abs(test.getDisplayName().hashCode()));
    }

    @AfterAll
    static void dropTables() throws Exception {
        if (prefix == null) {
            return;
        }
        try (Connection c = DriverManager.getConnection(BabelfishServer.get().url()); Statement s = c.createStatement()) {
            s.execute(new SqlServerStatements(prefix, "dbo", ClaimOrder.FIFO).get("dropSchema"));
        }
    }

    private QueueConfig h2() {
        return QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("db")).build();
    }

    private QueueConfig babelfish() {
        return QueueConfig.builder().url(BabelfishServer.get().url()).tablePrefix(prefix)
                .option("ordering", "priority-first").build();
    }

    private static byte[] everyByte() {
        byte[] b = new byte[256];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @Test
    void fromTheEmbeddedDefaultToSqlServerTables() {
        try (SqlQueue source = SqlQueue.open(h2())) {
            source.createQueue(queue);
            source.enqueue(queue, Message.builder(everyByte()).header("ключ", "значение ✓").header("empty", "").priority(7).build());
            source.enqueue(queue, Message.of(new byte[0]));
            source.enqueue(queue, Message.builder("later".getBytes(StandardCharsets.UTF_8)).delay(Duration.ofHours(1)).build());
            source.enqueue(queue, Message.builder("grouped".getBytes(StandardCharsets.UTF_8)).group("g").build());
        }
        // the target cannot keep message groups: refused before anything moves, unless refused messages may be
        // dead-lettered on the source
        try (QueueMover mover = QueueMover.open(h2(), babelfish())) {
            InvalidInputException e = assertThrows(InvalidInputException.class,
                    () -> mover.move(queue, MoveOptions.defaults(), null));
            assertEquals("move.target-capability", e.rule(), e::getMessage);
        }
        try (SqlQueue source = SqlQueue.open(h2())) {
            assertEquals(3, source.stats(queue).ready(), "nothing moved");
        }

        MoveReport report;
        try (QueueMover mover = QueueMover.open(h2(), babelfish())) {
            report = mover.move(queue, MoveOptions.defaults().withBatch(2).withDeadLetterRefused(true), null);
        }
        assertEquals(3, report.moved(), report::toString);
        assertEquals(1, report.refused(), report::toString);

        try (SqlQueue target = SqlQueue.open(babelfish())) {
            QueueStats t = target.stats(queue);
            assertEquals(2, t.ready(), t::toString);
            assertEquals(1, t.delayed(), "the delayed message keeps its delay: " + t);
            List<Delivery> got = target.consume(queue, ConsumeRequest.of(10));
            assertEquals(2, got.size());
            Delivery first = got.get(0);
            assertArrayEquals(everyByte(), first.payload(), "every byte value arrives (priority 7 first)");
            assertEquals(Map.of("ключ", "значение ✓", "empty", ""), new HashMap<>(first.headers()));
            assertEquals(0, got.get(1).payload().length);
            target.ackAll(got.stream().map(Delivery::receipt).toList());
        }
        try (SqlQueue source = SqlQueue.open(h2())) {
            QueueStats s = source.stats(queue);
            assertEquals(0, s.depth(), "nothing is left on the source but the refused message: " + s);
            List<DeadLetterSummary> dead = source.deadLetterSummaries(queue, 10);
            assertEquals(1, dead.size());
            assertTrue(dead.get(0).reason().contains("refused"), dead.get(0)::toString);
        }
        try (QueueMover mover = QueueMover.open(h2(), babelfish())) {
            assertEquals(0, mover.move(queue, MoveOptions.defaults().withDeadLetterRefused(true), null).moved(),
                    "a second run moves nothing");
        }
    }

    @Test
    void fromSqlServerTablesToTheEmbeddedDefault() {
        Delivery consumers;
        try (SqlQueue source = SqlQueue.open(babelfish())) {
            source.createQueue(queue);
            source.enqueue(queue, Message.ofText("consumer's"));
            consumers = source.consume(queue, ConsumeRequest.of(1).withLease(Duration.ofMinutes(10))).get(0);
            for (int i = 0; i < 5; i++) {
                source.enqueue(queue, Message.builder(("m" + i).getBytes(StandardCharsets.UTF_8)).header("n", "" + i).build());
            }
            source.enqueue(queue, Message.builder("later".getBytes(StandardCharsets.UTF_8)).delay(Duration.ofHours(1)).build());
            // a mover that died holding two messages: the next move takes them over at once
            assertEquals(2, source.claimForMove(queue, 2, Duration.ofMinutes(10)).size());
        }
        // H2 keeps payloads up to 1 MiB, these tables larger ones: a larger one would be dead-lettered on the source
        MoveOptions options = MoveOptions.defaults().withBatch(2).withDeadLetterRefused(true);
        MoveReport report;
        try (QueueMover mover = QueueMover.open(babelfish(), h2())) {
            report = mover.move(queue, options, null);
        }
        assertEquals(6, report.moved(), report::toString);
        assertEquals(0, report.leftDelayed(), "the move claim holds delayed messages too: " + report);
        assertEquals(1, report.leftInFlight(), "the consumer's message is left, counted: " + report);

        try (SqlQueue target = SqlQueue.open(h2())) {
            QueueStats t = target.stats(queue);
            assertEquals(1, t.delayed(), "the delayed message keeps its delay: " + t);
            List<Delivery> got = target.consume(queue, ConsumeRequest.of(10));
            // each once; in the source's claim order (visibility, then id), by batch: the two taken over from the dead
            // mover, whose lease made them visible later on the source, come later
            List<String> texts = got.stream().map(Delivery::text).toList();
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), texts.stream().sorted().toList());
            assertEquals(List.of("m2", "m3"), texts.subList(0, 2), texts::toString);
            for (Delivery d : got) {
                assertEquals(d.text().substring(1), d.headers().get("n"));
            }
        }
        try (SqlQueue source = SqlQueue.open(babelfish())) {
            QueueStats s = source.stats(queue);
            assertEquals(1, s.depth(), "only the consumer's message is left: " + s);
            source.ack(consumers.receipt());
        }
        try (QueueMover mover = QueueMover.open(babelfish(), h2())) {
            assertEquals(0, mover.move(queue, options, null).moved(), "a second run moves nothing");
        }
    }
}
