package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.N;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 point 2 for Teradata, on the model: the peek and the outcome writes of a claim carry a query
 * timeout derived from its lease, and a write blocked on a lock held elsewhere ends by it as
 * {@code TransientBackendException} naming the statement, the claim rolled back.
 */
class QueryTimeoutOnModelTest {
    @Test
    void thePeekIsBoundedByTheClaimsLease() {
        ModelFixture f = new ModelFixture();
        f.queue.enqueue(JOBS, Message.ofText("a"));
        Delivery d = f.queue.consume(JOBS, claim(1).withLease(Duration.ofMillis(45_500))).get(0);
        assertEquals(46, f.model.queryTimeoutOf(TeradataStatements.peek(N)));
        f.queue.ack(d.receipt());
    }

    @Test
    void aDeadLetterWriteBlockedOnATableLockEndsWithinTheLeaseAndTheClaimIsRolledBack() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.maxBlockMillis = 5_000;
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueue(JOBS, Message.ofText("a"));
        try (Connection other = m.dataSource().getConnection(); Statement st = other.createStatement()) {
            other.setAutoCommit(false);
            st.executeUpdate(TeradataStatements.purgeDeadLetters(N)); // a table WRITE lock, held until rollback
            Delivery d = f.queue.consume(JOBS, claim(1).withLease(Duration.ofSeconds(1))).get(0);
            TransientBackendException e = assertTimeoutPreemptively(Duration.ofSeconds(4),
                    () -> assertThrows(TransientBackendException.class, () -> f.queue.deadLetter(d.receipt(), "bad")));
            assertTrue(e.getMessage().contains("statement insertDeadLetter timed out after 1 s (its query timeout, derived"
                    + " from the lease)"), e.getMessage());
            other.rollback();
        }
        Delivery again = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals("a", again.text(), "the claim was rolled back: the message is back");
        assertEquals(1, again.attempt(), "with its attempt count unchanged");
        f.queue.ack(again.receipt());
    }
}
