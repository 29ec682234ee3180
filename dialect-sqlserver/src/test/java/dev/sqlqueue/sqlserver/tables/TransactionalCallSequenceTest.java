package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * JDBC call sequences of transactional claims, on the {@link RecordingJdbc} double (no database
 * semantics: only the calls are verified).
 */
class TransactionalCallSequenceTest {
    private static final QueueName Q = QueueName.of("jobs");
    private static final List<String> OPEN = List.of("getConnection", "getTransactionIsolation", "getAutoCommit",
            "setAutoCommit(false)", "prepare claim", "executeQuery");
    private final Fixture f = new Fixture(false);

    private List<Delivery> claimTwo() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "a", ""), Fixture.claimed(8, 5, 2, "b", ""));
        return f.backend.consume(Q, ConsumeRequest.of(2).withMode(ClaimMode.TRANSACTIONAL));
    }

    @Test
    void claimKeepsItsTransactionOpenUntilEveryDeliveryIsSettledThenCommits() {
        List<Delivery> got = claimTwo();
        assertEquals(OPEN, f.jdbc.sequence(), "no commit while deliveries are unsettled");
        assertEquals(1, f.backend.openTransactionalClaims());
        long handle = got.get(0).receipt().token();
        assertEquals(handle, got.get(1).receipt().token(), "one claim, one handle");
        f.jdbc.count(1).count(1);
        f.backend.ack(got.get(0).receipt());
        f.backend.nack(got.get(1).receipt(), Duration.ofSeconds(2), "retry");
        List<String> after = f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size());
        assertEquals(List.of("prepare ack", "executeQuery", "prepare nack", "executeQuery", "commit",
                "setAutoCommit(true)", "close"), after);
        assertTrue(f.jdbc.binds().containsAll(List.of("bind 1=7", "bind 2=jobs", "bind 3=3")), "ack matches the row token");
        assertEquals(1, f.jdbc.connections.size(), "everything on the claim's one connection");
        assertEquals(0, f.backend.openTransactionalClaims());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void allReleasedRollsBackAndAPartialReleaseRestoresTheRow() {
        List<Delivery> got = claimTwo();
        f.jdbc.count(1);
        f.backend.release(got.get(0).receipt());
        f.backend.release(got.get(1).receipt());
        List<String> after = f.jdbc.calls.subList(f.jdbc.calls.indexOf("executeQuery") + 1, f.jdbc.calls.size());
        assertEquals(List.of("prepare releaseRestore", "bind 1=" + Fixture.T0.plusSeconds(1), "bind 2=7", "bind 3=jobs",
                "bind 4=3", "executeQuery", "rollback", "setAutoCommit(true)", "close"), after);
    }

    @Test
    void releaseOfTheOnlyDeliveryIsARollbackWithoutAStatement() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "a", ""));
        Delivery d = f.backend.consume(Q, ConsumeRequest.of(1).withMode(ClaimMode.TRANSACTIONAL)).get(0);
        f.backend.release(d.receipt());
        assertEquals(List.of("rollback", "setAutoCommit(true)", "close"),
                f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()));
    }

    @Test
    void ackThenReleaseCommitsTheAckAndRestoresTheReleasedRow() {
        List<Delivery> got = claimTwo();
        f.jdbc.count(1).count(1);
        f.backend.ack(got.get(0).receipt());
        f.backend.release(got.get(1).receipt());
        assertEquals(List.of("prepare ack", "executeQuery", "prepare releaseRestore", "executeQuery", "commit",
                "setAutoCommit(true)", "close"), f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()));
    }

    @Test
    void emptyClaimEndsItsTransactionAtOnce() {
        assertTrue(f.backend.consume(Q, ConsumeRequest.of(5).withMode(ClaimMode.TRANSACTIONAL)).isEmpty());
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare claim", "executeQuery", "commit", "setAutoCommit(true)", "close"), f.jdbc.sequence());
        assertEquals(0, f.backend.openTransactionalClaims());
    }

    @Test
    void settlingTwiceOrAfterTheClaimEndedIsLeaseLostWithoutAnyCall() {
        List<Delivery> got = claimTwo();
        f.jdbc.count(1);
        f.backend.ack(got.get(0).receipt());
        int before = f.jdbc.calls.size();
        assertThrows(LeaseLostException.class, () -> f.backend.ack(got.get(0).receipt()));
        assertThrows(LeaseLostException.class, () -> f.backend.ack(new Receipt(Q, 99, got.get(0).receipt().token(),
                ClaimMode.TRANSACTIONAL)));
        assertThrows(LeaseLostException.class, () -> f.backend.ack(new Receipt(Q, 7, 12345, ClaimMode.TRANSACTIONAL)));
        assertEquals(before, f.jdbc.calls.size());
    }

    @Test
    void failedSettleRollsTheClaimBackAndEndsIt() {
        List<Delivery> got = claimTwo();
        f.jdbc.failOn("executeQuery", new SQLException("connection reset", "08S01", 0));
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.backend.ack(got.get(0).receipt()));
        assertTrue(e.getMessage().contains("back on the queue"));
        assertEquals(List.of("prepare ack", "executeQuery", "rollback", "setAutoCommit(true)", "close"),
                f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()));
        assertThrows(LeaseLostException.class, () -> f.backend.ack(got.get(1).receipt()));
        assertEquals(0, f.backend.openTransactionalClaims());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void deadlockOnTheClaimItselfIsRetriedOnAFreshConnection() {
        f.jdbc.failOn("executeQuery", new SQLException("deadlock", "40001", 1205));
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "a", ""));
        assertEquals(1, f.backend.consume(Q, ConsumeRequest.of(1).withMode(ClaimMode.TRANSACTIONAL)).size());
        assertEquals(List.of(1), f.pauses);
        assertEquals(2, f.jdbc.connections.size());
        assertTrue(f.jdbc.connections.get(0).closed);
        assertFalse(f.jdbc.connections.get(1).closed, "the claim's connection stays open");
    }

    @Test
    void extendKeepsTheDeliveryOpenAndAckAllCollectsLostOnes() {
        List<Delivery> got = claimTwo();
        f.jdbc.count(1).count(1).count(0);
        f.backend.extend(got.get(0).receipt(), Duration.ofSeconds(10));
        assertEquals(1, f.backend.openTransactionalClaims());
        Set<Receipt> lost = f.backend.ackAll(List.of(got.get(0).receipt(), got.get(1).receipt()));
        assertEquals(Set.of(got.get(1).receipt()), lost, "zero rows for the second");
        assertEquals(1, f.backend.openTransactionalClaims(), "a lost settle leaves the claim open");
    }

    @Test
    void closeRollsBackOpenClaims() {
        claimTwo();
        f.backend.close();
        assertEquals(List.of("rollback", "setAutoCommit(true)", "close"),
                f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()));
        assertEquals(0, f.backend.openTransactionalClaims());
    }

    @Test
    void garbageRowIsDeadLetteredInsideTheClaimTransaction() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "bad", "\\q=1"));
        f.jdbc.count(1);
        assertTrue(f.backend.consume(Q, ConsumeRequest.of(1).withMode(ClaimMode.TRANSACTIONAL)).isEmpty());
        assertEquals(List.of("prepare deadLetter", "executeQuery", "commit", "setAutoCommit(true)", "close"),
                f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()));
    }

    /**
     * Review finding 6: when dead-lettering a garbage row fails inside a transactional claim, the claim
     * ends (rolled back, connection closed) exactly once; consume does not roll back and close it again.
     */
    @Test
    void failedDeadLetterOfAGarbageRowEndsTheClaimOnce() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "bad", "\\q=1"), Fixture.claimed(8, 4, 1, "ok", ""));
        f.jdbc.failOn("prepare deadLetter", new SQLException("reset", "08S01", 0));
        assertThrows(TransientBackendException.class,
                () -> f.backend.consume(Q, ConsumeRequest.of(2).withMode(ClaimMode.TRANSACTIONAL)));
        assertEquals(List.of("prepare deadLetter", "rollback", "setAutoCommit(true)", "close"),
                f.jdbc.sequence().subList(OPEN.size(), f.jdbc.sequence().size()), "one rollback, one close");
        assertEquals(0, f.backend.openTransactionalClaims());
    }

    /**
     * Review finding 7: a commit that fails may have happened on the server (the acknowledgement was
     * lost), so the error says the outcome is unknown instead of "back on the queue".
     */
    @Test
    void failedCommitReportsAnUnknownOutcome() {
        List<Delivery> got = claimTwo();
        f.jdbc.count(1).count(1);
        f.backend.ack(got.get(0).receipt());
        f.jdbc.failOn("commit", new SQLException("connection reset", "08S01", 0));
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.backend.ack(got.get(1).receipt()));
        assertTrue(e.getMessage().contains("outcome unknown"), e.getMessage());
        assertTrue(!e.getMessage().contains("its messages are back on the queue"), e.getMessage());
        assertEquals(0, f.backend.openTransactionalClaims());
    }
}
