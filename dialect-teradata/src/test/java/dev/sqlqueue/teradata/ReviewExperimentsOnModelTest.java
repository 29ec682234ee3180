package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.N;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The re-review's experiments (shared/reviews/round3-evidence/ReviewExperimentsTest.java), which showed
 * the defects on a model switched to terajdbc 20.00.00.51's behaviour, as regression tests on the model,
 * which now behaves so by default.
 */
class ReviewExperimentsOnModelTest {

    /**
     * E1 (N1): a dead-letter INSERT blocked on a table lock runs out of its query timeout; the driver
     * reports 802 and the Abort rolled the claim back. The write must not be tried again (it would run in
     * a new transaction): the claim fails as transient, the message is back once, no dead letter.
     */
    @Test
    void e1_aTimedOutOutcomeWriteIsNotRetriedInANewTransaction() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.maxBlockMillis = 5_000;
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("a"));
        try (Connection other = m.dataSource().getConnection(); Statement st = other.createStatement()) {
            other.setAutoCommit(false);
            st.executeUpdate(TeradataStatements.purgeDeadLetters(N)); // table WRITE lock on $dl
            Delivery d = f.queue.consume(JOBS, claim(1).withLease(Duration.ofSeconds(1))).get(0);
            String dl = TeradataStatements.insertDeadLetter(N);
            m.beforeNext(dl::equals, () -> { });
            m.beforeNext(dl::equals, () -> { // the review released the lock before a second INSERT
                try {
                    other.rollback();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThrows(TransientBackendException.class, () -> f.queue.deadLetter(d.receipt(), "bad"));
            other.rollback();
        }
        assertEquals(1, f.queueRows().size(), "the timeout's abort rolled the consume back: the message is back");
        assertEquals(0, f.deadRows().size(), "and no dead letter was committed beside it");
        assertEquals(1, m.log.stream().filter(s -> s.endsWith(" " + TeradataStatements.insertDeadLetter(N))).count(),
                "the dead-letter INSERT ran once: " + m.log);
    }

    /**
     * N1, beyond E1: an outcome write that fails with any error other than a refused text is not tried
     * again. 2646 (no more spool space) ends the transaction on the database; a second INSERT would run in
     * a new one beside the restored rows.
     */
    @Test
    void anOutcomeWriteIsTriedAgainOnlyAfterARefusedText() {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("a"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        String dl = TeradataStatements.insertDeadLetter(N);
        m.failNext(dl::equals, 2646);
        assertThrows(dev.sqlqueue.SqlQueueException.class, () -> f.queue.deadLetter(d.receipt(), "bad"));
        assertEquals(1, f.queueRows().size(), "the message is back");
        assertEquals(0, f.deadRows().size(), "and was not dead-lettered beside it");
        assertEquals(1, m.log.stream().filter(s -> s.endsWith(" " + dl)).count(), "one INSERT: " + m.log);
    }

    /**
     * E2 (N2): {@code Connection.abort} does nothing in terajdbc and the database ignores the cancel's
     * Abort: the consume blocked on the caller's uncommitted enqueue still ends, by its query timeout (the
     * driver closes the connection), within the model's limit, and the caller's message stays.
     */
    @Test
    void e2_aConsumeWhoseCancelIsIgnoredEndsByItsQueryTimeout() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.abortHonoured = false;
        m.maxBlockMillis = 8_000;
        ModelFixture f = new ModelFixture(m, "teradata.consume-cancel-ms", "100");
        try (Connection c = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            f.queue.enqueue(c, JOBS, Message.ofText("outbox"));
            List<Delivery> got = f.queue.consume(JOBS, claim(1)); // a ModelViolation (AssertionError) if unbounded
            assertTrue(got.isEmpty());
            assertEquals(2, m.queryTimeoutOf(TeradataStatements.consume(N)), "100 ms cancel + 1,000 ms, in whole seconds");
            assertTrue(m.log.stream().anyMatch(s -> s.endsWith("socket closed by the driver: Abort unanswered")), m.log.toString());
            c.commit();
        }
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals("outbox", d.text());
        f.queue.ack(d.receipt());
        assertTrue(f.queueRows().isEmpty());
    }

    /**
     * E3 (finding 9): JVM zone Europe/Berlin, session zone UTC, a QITS of 02:30 on the day Berlin skips
     * from 02:00 to 03:00. terajdbc reads and binds zone-less timestamps through the JVM zone; the backend
     * moves them as text, so the released message keeps 02:30.
     */
    @Test
    void e3_aQitsInADaylightSavingGapOfTheJvmZoneSurvivesARestore() {
        java.util.TimeZone before = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Europe/Berlin"));
        try {
            TeradataModel m = new TeradataModel("qdb");
            m.sessionZone = java.time.ZoneOffset.UTC;
            m.clockStart = java.time.LocalDateTime.of(2026, 3, 29, 2, 30);
            ModelFixture f = new ModelFixture(m);
            f.queue.enqueueAll(JOBS, List.of(Message.ofText("a"), Message.ofText("b")));
            Object qits = f.queueRows().get(0).get("qits");
            List<Delivery> got = f.queue.consume(JOBS, claim(2));
            f.queue.release(got.get(0).receipt());
            f.queue.ack(got.get(1).receipt());
            assertEquals(java.time.LocalDateTime.of(2026, 3, 29, 2, 30), qits);
            assertEquals(qits, f.queueRows().get(0).get("qits"), "restored with 02:30, not 03:30");
            long age = f.queue.stats(JOBS).oldestReadyAgeMillis();
            assertTrue(age >= 0 && age < 60_000, "the oldest age is read in one zone: " + age + " ms");
        } finally {
            java.util.TimeZone.setDefault(before);
        }
    }

    /**
     * E4 (N4): the code points the vendor's Unicode Pass Through pages single out: private use,
     * noncharacters, U+FFFD and a character added after Unicode 6.0 are refused by the backend's check, so
     * a header holding one is refused under its rule instead of failing the INSERT with 6706.
     */
    @Test
    void e4_theRepertoireRefusesWhatTheVendorSaysIsRefused() {
        for (int cp : new int[] {0xE000, 0xF8FF, 0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0xFFFD, 0x20BD}) {
            assertFalse(TeradataText.storable(cp), String.format("U+%04X", cp));
        }
    }
}
