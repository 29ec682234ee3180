package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static dev.sqlqueue.teradata.Fixture.T0;
import static dev.sqlqueue.teradata.RecordingJdbc.error;
import static dev.sqlqueue.teradata.RecordingJdbc.row;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.QueueName;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Administration call sequences on the recording double. */
class AdminSequenceTest {
    private static final String EXISTS = "Q " + TeradataStatements.tableExists();

    @Test
    void createQueueLooksInTheDictionaryThenRunsEachDdlAloneInItsTransaction() {
        Fixture f = new Fixture();
        f.queue.createQueue(JOBS);
        assertEquals(List.of(EXISTS + " [qdb, sqlq_jobs]", "commit", "X " + TeradataStatements.createQueueTable(N), "commit",
                EXISTS + " [qdb, sqlq_jobs$dl]", "commit", "X " + TeradataStatements.createDeadLetterTable(N), "commit",
                EXISTS + " [qdb, sqlq_jobs$dk]", "commit", "X " + TeradataStatements.createKeysTable(N, true), "commit"),
                f.jdbc.calls());
    }

    @Test
    void createQueueIsIdempotent() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.tableExists(), rows(row(1)), rows(row(1)), rows(row(1)));
        f.queue.createQueue(JOBS);
        assertEquals(List.of(EXISTS + " [qdb, sqlq_jobs]", "commit", EXISTS + " [qdb, sqlq_jobs$dl]", "commit",
                EXISTS + " [qdb, sqlq_jobs$dk]", "commit"), f.jdbc.calls());
    }

    @Test
    void aConcurrentCreate3803CountsAsDone() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.createQueueTable(N), error(3803, "42S01"));
        f.queue.createQueue(JOBS);
        List<String> calls = f.jdbc.calls();
        assertEquals("rollback", calls.get(3));
        assertEquals("X " + TeradataStatements.createDeadLetterTable(N), calls.get(6));
    }

    @Test
    void dropQueueDropsOnlyTablesThatExist() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.tableExists(), rows(row(1)), rows());
        f.queue.dropQueue(JOBS);
        assertEquals(List.of(EXISTS + " [qdb, sqlq_jobs]", "commit", "X DROP TABLE " + N.queueTable(), "commit",
                EXISTS + " [qdb, sqlq_jobs$dl]", "commit", EXISTS + " [qdb, sqlq_jobs$dk]", "commit"), f.jdbc.calls());
    }

    @Test
    void purgeDeletesAndCommits() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.purge(N), 12);
        assertEquals(12, f.queue.purge(JOBS));
        assertEquals(List.of("U " + TeradataStatements.purge(N), "commit"), f.jdbc.calls());
    }

    @Test
    void queuesAreTheTablesOfThePrefixThatNameAQueue() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.listTables(),
                rows(row("sqlq_b"), row("sqlq_b$dl"), row("SQLQ_a "), row("sqlq_"), row("sqlq_x.y")));
        assertEquals(List.of(QueueName.of("a"), QueueName.of("b")), f.queue.queues());
        assertEquals(List.of("Q " + TeradataStatements.listTables() + " [qdb, sqlq\\_%]", "commit"), f.jdbc.calls());
    }

    @Test
    void dropSchemaDropsEveryQueueOfThePrefixIncludingOrphanDeadLetterTables() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.listTables(), rows(row("sqlq_a"), row("sqlq_a$dl"), row("sqlq_a$dk"), row("sqlq_b$dl"),
                row("sqlq_c$dk")));
        // a: all three tables; b: only its dead letters; c: only its keys
        f.jdbc.on(TeradataStatements.tableExists(), rows(row(1)), rows(row(1)), rows(row(1)), rows(), rows(row(1)), rows(),
                rows(), rows(), rows(row(1)));
        f.queue.dropSchema();
        List<String> drops = f.jdbc.calls().stream().filter(s -> s.startsWith("X ")).toList();
        assertEquals(List.of("X DROP TABLE \"qdb\".\"sqlq_a\"", "X DROP TABLE \"qdb\".\"sqlq_a$dl\"",
                "X DROP TABLE \"qdb\".\"sqlq_a$dk\"", "X DROP TABLE \"qdb\".\"sqlq_b$dl\"",
                "X DROP TABLE \"qdb\".\"sqlq_c$dk\""), drops);
    }

    @Test
    void requeueReadsInsertsAndDeletesEachDeadLetterByRowHash() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.listDeadLetterIds(N), rows(row(5L), row(6L)));
        f.jdbc.on(TeradataStatements.selectDeadLetter(N), rows(row(5L, Fixture.T0, "h", new byte[] {1})), rows());
        assertEquals(1, f.queue.requeueDeadLetters(JOBS, List.of()));
        assertEquals(List.of("Q " + TeradataStatements.listDeadLetterIds(N), "commit",
                "Q " + TeradataStatements.selectDeadLetter(N) + " [5]",
                "U " + TeradataStatements.requeueDeadLetter(N) + " [5, 2026-01-02 03:04:05.123456, h, bytes[1]]",
                "U " + TeradataStatements.deleteDeadLetter(N) + " [5]",
                "Q " + TeradataStatements.selectDeadLetter(N) + " [6]", "commit"), f.jdbc.calls());
    }

    @Test
    void deadLettersKeepRawHeadersAndBytes() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.listDeadLetters(N, 10),
                rows(row(5L, 3, "poison", T0, T0, "k=v", new byte[] {1}), row(6L, 1, "malformed", T0, T0, "bad", new byte[0])));
        List<DeadLetter> dl = f.queue.deadLetters(JOBS, 10);
        assertEquals(Map.of("k", "v"), dl.get(0).headers());
        assertArrayEquals(new byte[] {1}, dl.get(0).payload());
        assertEquals(3, dl.get(0).attempts());
        assertEquals("poison", dl.get(0).reason());
        assertTrue(dl.get(1).headers().isEmpty());
        assertEquals("bad", dl.get(1).rawHeaders());
    }

    @Test
    void purgeDeadLetters() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.purgeDeadLetters(N), 2);
        assertEquals(2, f.queue.purgeDeadLetters(JOBS));
        assertEquals(List.of("U " + TeradataStatements.purgeDeadLetters(N), "commit"), f.jdbc.calls());
    }
}
