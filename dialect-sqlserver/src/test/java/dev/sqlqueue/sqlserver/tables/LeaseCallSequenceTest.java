package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * JDBC call sequences of lease-mode operations, on the {@link RecordingJdbc} double (no database
 * semantics: only the calls are verified).
 */
class LeaseCallSequenceTest {
    private static final QueueName Q = QueueName.of("jobs");
    private final Fixture f = new Fixture(false);

    @Test
    void claimOnAReadCommittedAutoCommitPoolCommitsAtOnceAndRestoresAutoCommit() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "hi", "k=v"));
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(10).withLease(Duration.ofSeconds(30)));
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare claim", "executeQuery", "commit", "setAutoCommit(true)", "close"), f.jdbc.sequence());
        assertEquals(List.of("bind 1=10", "bind 2=jobs", "bind 3=30000"), f.jdbc.binds());
        Delivery d = got.get(0);
        assertEquals(new Receipt(Q, 7, 3, ClaimMode.LEASE), d.receipt(), "lease token is the receipt token");
        assertEquals("hi", d.text());
        assertEquals(Map.of("k", "v"), d.headers());
        assertEquals(1, d.attempt());
        assertEquals(Fixture.T0.toInstant(java.time.ZoneOffset.UTC), d.enqueuedAt());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void snapshotPoolWithAutoCommitOffGetsReadCommittedAndIsRestored() {
        f.jdbc.initialIsolation = 4096; // mssql-jdbc SQLServerConnection.TRANSACTION_SNAPSHOT
        f.jdbc.initialAutoCommit = false;
        f.backend.consume(Q, ConsumeRequest.of(1));
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setTransactionIsolation(2)",
                "prepare claim", "executeQuery", "commit", "setTransactionIsolation(4096)", "close"), f.jdbc.sequence());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void readUncommittedAndSerializablePoolsAreSetToReadCommittedForTheClaim() {
        for (int level : new int[] {Connection.TRANSACTION_READ_UNCOMMITTED, Connection.TRANSACTION_SERIALIZABLE}) {
            Fixture g = new Fixture(false);
            g.jdbc.initialIsolation = level;
            g.backend.consume(Q, ConsumeRequest.of(1));
            List<String> s = g.jdbc.sequence();
            assertTrue(s.indexOf("setTransactionIsolation(2)") < s.indexOf("prepare claim"), "set before the claim");
            assertEquals("setTransactionIsolation(" + level + ")", s.get(s.size() - 2), "restored before close");
            assertTrue(g.allConnectionsReturnedAsTheyCame());
        }
    }

    @Test
    void rowWithBrokenHeadersIsDeadLetteredAndNotReturned() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "bad", "no-equals-sign"), Fixture.claimed(8, 4, 1, "ok", ""));
        f.jdbc.count(1);
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(2));
        assertEquals(1, got.size());
        assertEquals(8, got.get(0).id());
        List<String> s = f.jdbc.calls;
        int dl = s.indexOf("prepare deadLetter");
        assertTrue(dl > s.indexOf("commit"), "dead-lettered after the claim committed, in its own transaction");
        assertTrue(s.get(dl + 1).startsWith("bind 1=malformed headers"), s.get(dl + 1));
        assertEquals(List.of("bind 2=7", "bind 3=jobs", "bind 4=3"), s.subList(dl + 2, dl + 5));
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void failedDeadLetterOfAGarbageRowStillReturnsTheOthersInLeaseMode() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "bad", "no-equals-sign"), Fixture.claimed(8, 4, 1, "ok", ""));
        f.jdbc.failOn("prepare deadLetter", new SQLException("reset", "08S01", 0));
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(2));
        assertEquals(List.of(8L), got.stream().map(Delivery::id).toList());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void ackMatchesIdQueueAndTokenAndCommits() {
        f.jdbc.count(1);
        f.backend.ack(new Receipt(Q, 7, 3, ClaimMode.LEASE));
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare ack", "executeQuery", "commit", "setAutoCommit(true)", "close"), f.jdbc.sequence());
        assertEquals(List.of("bind 1=7", "bind 2=jobs", "bind 3=3"), f.jdbc.binds());
    }

    @Test
    void zeroRowsIsLeaseLostForEverySettleCall() {
        Receipt r = new Receipt(Q, 7, 3, ClaimMode.LEASE);
        List<Runnable> calls = List.of(() -> f.backend.ack(r), () -> f.backend.nack(r, Duration.ZERO, "e"),
                () -> f.backend.extend(r, Duration.ofSeconds(5)), () -> f.backend.deadLetter(r, "x"),
                () -> f.backend.release(r));
        for (Runnable call : calls) {
            f.jdbc.count(0);
            LeaseLostException e = assertThrows(LeaseLostException.class, call::run);
            assertEquals(7, e.messageId());
        }
        assertFalse(f.jdbc.calls.contains("prepare historyFromDeadLetter"));
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void ackWithHistoryMovesTheRowWithTheDetail() {
        Fixture h = new Fixture(true);
        h.jdbc.count(1);
        h.backend.ack(new Receipt(Q, 7, 3, ClaimMode.LEASE), "exit 0");
        assertTrue(h.jdbc.calls.contains("prepare ackToHistory"));
        assertEquals(List.of("bind 1=exit 0", "bind 2=7", "bind 3=jobs", "bind 4=3"), h.jdbc.binds());
    }

    @Test
    void deadLetterWithHistoryWritesBothInOneTransaction() {
        Fixture h = new Fixture(true);
        h.jdbc.count(1);
        h.backend.deadLetter(new Receipt(Q, 7, 3, ClaimMode.LEASE), "poison");
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare deadLetter", "executeQuery", "prepare historyFromDeadLetter", "execute", "commit",
                "setAutoCommit(true)", "close"), h.jdbc.sequence());
        assertEquals(List.of("bind 1=poison", "bind 2=7", "bind 3=jobs", "bind 4=3", "bind 1=7", "bind 2=jobs"), h.jdbc.binds());
    }

    @Test
    void nackBindsSecondsAndMillisecondsOfTheDelay() {
        f.jdbc.count(1);
        f.backend.nack(new Receipt(Q, 7, 3, ClaimMode.LEASE), Duration.ofMillis(90_250), "boom");
        assertEquals(List.of("bind 1=90", "bind 2=250", "bind 3=boom", "bind 4=7", "bind 5=jobs", "bind 6=3"), f.jdbc.binds());
    }

    @Test
    void extendAndReleaseUseTheirStatements() {
        f.jdbc.count(1).count(1);
        Receipt r = new Receipt(Q, 7, 3, ClaimMode.LEASE);
        f.backend.extend(r, Duration.ofSeconds(45));
        f.backend.release(r);
        assertTrue(f.jdbc.calls.containsAll(List.of("prepare extend", "bind 1=45000", "prepare release")));
        assertFalse(f.jdbc.calls.contains("prepare releaseRestore"), "lease mode releases to now");
    }

    @Test
    void ackAllRunsOneTransactionAndReportsLostReceipts() {
        Receipt a = new Receipt(Q, 1, 1, ClaimMode.LEASE);
        Receipt b = new Receipt(Q, 2, 1, ClaimMode.LEASE);
        f.jdbc.count(1).count(0);
        assertEquals(Set.of(b), f.backend.ackAll(List.of(a, b)));
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare ack", "executeQuery", "prepare ack", "executeQuery",
                // the missed one: is it held in another queue (receipt.queue)? No row: a lost lease
                "prepare leaseQueue", "executeQuery", "commit", "setAutoCommit(true)", "close"),
                f.jdbc.sequence());
        assertEquals(List.of(30, 30, 30), f.jdbc.queryTimeouts, "every settle statement bounded, 30 s before any claim");
    }

    @Test
    void deadlockVictimIsRetriedAfterRollbackWithBackoff() {
        f.jdbc.failOn("executeQuery", new SQLException("deadlock", "40001", 1205));
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "x", ""));
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(1));
        assertEquals(1, got.size(), "the retry claimed the row");
        assertEquals(List.of(1), f.pauses);
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare claim", "executeQuery", "rollback", "setAutoCommit(true)", "close",
                "getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare claim", "executeQuery", "commit", "setAutoCommit(true)", "close"), f.jdbc.sequence());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void lockTimeoutsBeyondTheRetriesBecomeTransient() {
        for (int i = 0; i < 4; i++) {
            f.jdbc.failOn("executeQuery", new SQLException("lock timeout", "HY000", 1222));
        }
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.backend.ack(
                new Receipt(Q, 7, 3, ClaimMode.LEASE)));
        assertTrue(e.getMessage().contains("1222") && e.getMessage().contains("after 3 retries"), e.getMessage());
        assertEquals(List.of(1, 2, 3), f.pauses, "3 retries configured");
        assertEquals(4, f.jdbc.connections.size());
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    @Test
    void error650NamesTheIsolationSettingAndIsNotRetried() {
        f.jdbc.failOn("executeQuery", new SQLException("You can only specify the READPAST lock in the READ COMMITTED"
                + " or REPEATABLE READ isolation levels.", "S0001", 650));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend.consume(Q, ConsumeRequest.of(1)));
        assertFalse(e instanceof TransientBackendException);
        assertTrue(e.getMessage().contains("error 650") && e.getMessage().contains("SNAPSHOT")
                && e.getMessage().contains("READ COMMITTED"), e.getMessage());
        assertEquals(List.of(), f.pauses);
        assertTrue(f.jdbc.sequence().contains("rollback"));
    }

    @Test
    void unreachableServerIsTransient() {
        f.jdbc.failOn("getConnection", new SQLTransientConnectionException("pool timeout", "08001"));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.backend.consume(Q, ConsumeRequest.of(1)));
        assertInstanceOf(SQLException.class, e.getCause());
        assertEquals(List.of("getConnection"), f.jdbc.sequence());
    }

    @Test
    void brokenConnectionMidStatementIsTransientAndTheConnectionIsStillClosed() {
        f.jdbc.failOn("executeQuery", new SQLException("connection reset", "08S01", 0));
        assertThrows(TransientBackendException.class, () -> f.backend.ack(new Receipt(Q, 7, 3, ClaimMode.LEASE)));
        assertEquals("close", f.jdbc.sequence().get(f.jdbc.sequence().size() - 1));
    }
}
