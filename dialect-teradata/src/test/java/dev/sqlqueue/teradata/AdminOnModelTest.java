package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.N;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Review findings 2 (case of names), 3 (requeue locks) and 9 (oldest age), on the model. */
class AdminOnModelTest {

    @Test
    void adminFindsTablesWhenTheConfiguredDatabaseDiffersInCaseFromTheDictionary() {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m, "teradata.database", "QDB");
        assertTrue(m.exists(N.queueTableName()));
        assertEquals(List.of(JOBS), f.queue.queues(), "queues() finds the table (model rule K)");
        f.queue.dropQueue(JOBS);
        assertFalse(m.exists(N.queueTableName()), "dropQueue dropped the queue table");
        assertFalse(m.exists(N.deadLetterTableName()), "and the dead-letter table");
        f.queue.createQueue(QueueName.of("other"));
        f.queue.dropSchema();
        assertFalse(m.exists("sqlq_other"), "dropSchema found it too");
    }

    @Test
    void requeueingDeadLettersDoesNotWaitForAnOpenClaimOnTheQueue() {
        TeradataModel m = new TeradataModel("qdb");
        m.maxBlockMillis = 3_000;
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("dead"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.deadLetter(d.receipt(), "poison");
        f.queue.enqueue(JOBS, Message.ofText("held"));
        SqlQueue other = ModelFixture.open(m);
        Delivery held = other.consume(JOBS, claim(1)).get(0);
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertEquals(1, f.queue.requeueDeadLetters(JOBS, List.of())),
                "the requeue takes row-hash locks only (model: DML Requests and Locks)");
        other.ack(held.receipt());
        assertTrue(f.deadRows().isEmpty());
        assertEquals(1, f.queueRows().size());
        assertEquals(0, f.queueRows().get(0).get("attempts"));
        Delivery back = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals(d.id(), back.id(), "the requeued message keeps its id");
        f.queue.ack(back.receipt());
    }

    @Test
    void requeueCommitsInChunksAndMovesEveryDeadLetter() {
        ModelFixture f = new ModelFixture();
        for (int i = 0; i < 5; i++) {
            f.queue.enqueue(JOBS, Message.ofText("m" + i));
            f.queue.deadLetter(f.queue.consume(JOBS, claim(1)).get(0).receipt(), "r" + i);
        }
        assertEquals(5, f.deadRows().size());
        assertEquals(2, f.queue.requeueDeadLetters(JOBS, List.of(f.deadRows().get(0).get("msg_id") instanceof Long l ? l : 0L,
                (Long) f.deadRows().get(1).get("msg_id"), 999_999L)));
        assertEquals(3, f.queue.requeueDeadLetters(JOBS, List.of()));
        assertEquals(5, f.queueRows().size());
        assertTrue(f.deadRows().isEmpty());
    }

    @Test
    void theOldestAgeIsRightWhenTheSessionZoneDiffersFromTheJvmZone() {
        TeradataModel m = new TeradataModel("qdb");
        ZoneOffset jvm = ZonedDateTime.now(ZoneId.systemDefault()).getOffset();
        m.sessionZone = ZoneOffset.ofTotalSeconds(jvm.getTotalSeconds() - 3 * 3600);
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("x"));
        long age = f.queue.stats(JOBS).oldestReadyAgeMillis();
        assertTrue(age >= 0 && age < 60_000, "age " + age + " ms: both times must be read in the session zone");
    }

    @Test
    void aMalformedRowWhoseDeadLetterTableIsMissingStaysQueuedAndTheErrorSaysWhatToDo() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m);
        try (java.sql.Connection c = m.dataSource().getConnection(); java.sql.Statement st = c.createStatement();
             java.sql.PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(N))) {
            ps.setString(1, "no equals sign");
            ps.setBytes(2, new byte[] {9});
            ps.executeUpdate();
            st.execute(TeradataStatements.dropTable(N.deadLetterTable()));
        }
        dev.sqlqueue.SqlQueueException e = org.junit.jupiter.api.Assertions.assertThrows(dev.sqlqueue.SqlQueueException.class,
                () -> f.queue.consume(JOBS, claim(1)));
        assertTrue(e.getMessage().contains("createQueue"), e.getMessage());
        assertEquals(1, f.queueRows().size(), "the row is back, nothing lost");
        f.queue.createQueue(JOBS);
        assertTrue(f.queue.consume(JOBS, claim(1)).isEmpty(), "with the table back the row goes to dead letter");
        assertEquals(1, f.deadRows().size());
    }

    @Test
    void listingDeadLettersDoesNotWaitForAClaimWritingOne() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.maxBlockMillis = 2_000;
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("a"));
        f.queue.deadLetter(f.queue.consume(JOBS, claim(1)).get(0).receipt(), "old");
        try (java.sql.Connection c = m.dataSource().getConnection(); java.sql.PreparedStatement ps =
                c.prepareStatement(TeradataStatements.insertDeadLetter(N))) {
            c.setAutoCommit(false); // a claim writing its dead letter, not yet committed: a row-hash WRITE lock
            ps.setLong(1, 99);
            ps.setInt(2, 1);
            ps.setString(3, "new");
            ps.setString(4, "2026-01-01 00:00:00.000000");
            ps.setString(5, "");
            ps.setBytes(6, new byte[0]);
            ps.executeUpdate();
            List<dev.sqlqueue.DeadLetter> listed = f.queue.deadLetters(JOBS, 10); // a table READ lock would wait
            assertTrue(listed.stream().anyMatch(d -> d.reason().equals("old")), listed.toString());
            c.rollback();
        }
    }
}
