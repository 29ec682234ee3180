package dev.sqlqueue.teradata.model;

import static dev.sqlqueue.teradata.model.SessionRulesTest.waitUntil;
import static dev.sqlqueue.teradata.model.ModelTables.depth;
import static dev.sqlqueue.teradata.model.ModelTables.insert;
import static dev.sqlqueue.teradata.model.ModelTables.withQueue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.teradata.TeradataNames;
import dev.sqlqueue.teradata.TeradataStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.TimeZone;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The model's driver half ({@link Terajdbc}), one test per behaviour, through plain JDBC. */
class DriverRulesTest {
    private static final TeradataNames N = ModelTables.N;




    @Test
    void anExpiredQueryTimeoutIs802NotSqlTimeoutExceptionAndTheAbortRollsTheTransactionBack() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Connection other = m.dataSource().getConnection();
             Statement lock = other.createStatement()) {
            insert(other, "");
            other.setAutoCommit(false);
            lock.executeUpdate(TeradataStatements.purgeDeadLetters(N)); // table WRITE lock on the dead-letter table
            c.setAutoCommit(false);
            Statement st = c.createStatement();
            st.executeQuery(TeradataStatements.consume(N)).close();
            PreparedStatement dl = c.prepareStatement(TeradataStatements.insertDeadLetter(N));
            dl.setLong(1, 1);
            dl.setInt(2, 1);
            dl.setString(3, "r");
            dl.setString(4, "2026-01-01 00:00:00.000000");
            dl.setString(5, "");
            dl.setBytes(6, new byte[0]);
            dl.setQueryTimeout(1);
            SQLException e = assertThrows(SQLException.class, dl::executeUpdate);
            assertFalse(e instanceof SQLTimeoutException);
            assertEquals(Terajdbc.TIMEOUT, e.getErrorCode());
            assertEquals("HY000", e.getSQLState());
            assertFalse(c.isClosed(), "the Abort was answered: the session stays");
            assertEquals(1, depth(other), "the whole transaction was rolled back: the consumed row is back");
            other.rollback();
        }
    }

    @Test
    void aCancelBeforeTheRequestIsSentInterruptsTheThreadAndFailsWith751LeavingTheTransactionOpen() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Connection other = m.dataSource().getConnection()) {
            insert(other, "");
            c.setAutoCommit(false);
            Statement st = c.createStatement();
            st.executeQuery(TeradataStatements.consume(N)).close();
            String peek = TeradataStatements.peek(N);
            m.beforeNext(peek::equals, () -> {
                try {
                    st.cancel(); // while the request is ACTIVE, not yet sent
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            SQLException e = assertThrows(SQLException.class, () -> st.executeQuery(peek));
            assertEquals(Terajdbc.CANCELLED, e.getErrorCode());
            assertTrue(Thread.interrupted(), "TDStatement.cancel interrupted the executing thread (and this clears it)");
            assertEquals(0, depth(other), "nothing was sent: the consume is still held by the open transaction");
            c.rollback();
            assertEquals(1, depth(other));
        }
    }

    @Test
    void closeWaitsForTheRunningRequestAndAbortDoesNothing() throws Exception {
        TeradataModel m = withQueue();
        m.maxBlockMillis = 5_000;
        Connection c = m.dataSource().getConnection();
        c.setAutoCommit(false);
        Statement st = c.createStatement();
        CompletableFuture<Boolean> consume = CompletableFuture.supplyAsync(() -> {
            try (ResultSet rs = st.executeQuery(TeradataStatements.consume(N))) {
                return rs.next();
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        waitUntil(() -> m.blockedSessions() == 1);
        c.abort(Runnable::run);
        CompletableFuture<Void> close = CompletableFuture.runAsync(() -> {
            try {
                c.close();
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(100);
        assertFalse(close.isDone(), "close waits for the session lock the running consume holds");
        assertFalse(c.isClosed());
        try (Connection producer = m.dataSource().getConnection()) {
            insert(producer, "");
        }
        assertTrue(consume.get(5, TimeUnit.SECONDS), "the consume got the committed row");
        close.get(5, TimeUnit.SECONDS);
        assertTrue(c.isClosed());
        try (Connection other = m.dataSource().getConnection()) {
            assertEquals(1, depth(other), "logoff rolled the consume back");
        }
    }

    @Test
    void setAutoCommitCommitsAnOpenTransactionWhateverItsArgumentAndCommitSendsNothingWithoutOne() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Connection other = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            insert(c, "");
            c.setAutoCommit(false);
            assertEquals(1, depth(other), "TDSession.setAutoCommit ran doCommit first: the insert is committed");
            m.log.clear();
            c.commit();
            assertTrue(m.log.isEmpty(), "no transaction open: COMMIT WORK is not sent " + m.log);
            c.close();
            assertThrows(SQLException.class, c::getAutoCommit, "TJ408 on a closed connection");
        }
    }

    @Test
    void zoneLessTimestampsPassThroughTheJvmZoneBothWays() throws Exception {
        TimeZone before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Europe/Berlin"));
        try {
            LocalDateTime gap = LocalDateTime.of(2026, 3, 29, 2, 30);
            assertEquals(LocalDateTime.of(2026, 3, 29, 3, 30), Terajdbc.localDateTime(gap),
                    "getObject(LocalDateTime) is getTimestamp().toLocalDateTime(): a lenient calendar in the JVM zone");
            assertEquals(LocalDateTime.of(2026, 3, 29, 3, 30), Terajdbc.bound(gap), "setObject(LocalDateTime) is setTimestamp(Timestamp.valueOf)");
            assertEquals("2026-03-29 03:30:00.0", Terajdbc.string(gap), "getString goes through getObject(int), a Timestamp");
            LocalDateTime plain = LocalDateTime.of(2026, 3, 29, 1, 30, 0, 123_456_000);
            assertEquals(plain, Terajdbc.localDateTime(plain), "outside a gap nothing moves");
        } finally {
            TimeZone.setDefault(before);
        }
    }

    @Test
    void aCancelOnAnotherStatementOfTheSessionDoesNothing() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Connection producer = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Statement consume = c.createStatement();
            Statement idle = c.createStatement();
            CompletableFuture<Boolean> got = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = consume.executeQuery(TeradataStatements.consume(N))) {
                    return rs.next();
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            waitUntil(() -> m.blockedSessions() == 1);
            idle.cancel();
            Thread.sleep(50);
            assertEquals(1, m.blockedSessions(), "TDStatement.cancel acts on its own statement's request only");
            insert(producer, "");
            assertTrue(got.get(5, TimeUnit.SECONDS));
            c.rollback();
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
    }
}
