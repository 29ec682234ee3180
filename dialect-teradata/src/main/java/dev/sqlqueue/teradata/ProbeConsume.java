package dev.sqlqueue.teradata;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A consume the probes run in the background and watch (V4, V8, V12): its statement has a query timeout,
 * so it ends even when nothing else ends it (the driver closes the connection when its Abort goes
 * unanswered: TJ782/TJ783). Also the transaction's earlier INSERT whose fate shows whether the transaction
 * was rolled back. Not thread-safe; one per probe run.
 */
final class ProbeConsume implements AutoCloseable {
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sqlqueue-probe-consume");
        t.setDaemon(true);
        return t;
    });
    private Future<Boolean> running;
    private long startedNanos;
    final Statement statement;

    /** A statement of {@code c} with a query timeout of {@code timeoutSeconds}. */
    ProbeConsume(Connection c, int timeoutSeconds) throws SQLException {
        this.statement = c.createStatement();
        statement.setQueryTimeout(timeoutSeconds);
    }

    /** An INSERT of a dead letter in {@code c}'s open transaction: the work a rollback must undo. */
    static void insertEarlierWork(Connection c, TeradataNames n) throws SQLException {
        insertDeadLetter(c, n, 0);
    }

    /** The same INSERT with a query timeout, seconds (0: none). */
    static void insertDeadLetter(Connection c, TeradataNames n, int timeoutSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertDeadLetter(n))) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setLong(1, 1);
            ps.setInt(2, 1);
            ps.setString(3, "probe");
            JdbcTime.set(ps, 4, java.time.LocalDateTime.of(2026, 1, 1, 0, 0));
            ps.setString(5, "");
            ps.setBytes(6, new byte[0]);
            ps.executeUpdate();
        }
    }

    /** Starts the consume. */
    void start(TeradataNames n) {
        String sql = TeradataStatements.consume(n);
        startedNanos = System.nanoTime();
        running = pool.submit(() -> {
            try (ResultSet rs = statement.executeQuery(sql)) {
                return rs.next();
            }
        });
    }

    boolean isDone() {
        return running.isDone();
    }

    /** ms since the start. */
    long elapsedMillis() {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }

    /** How the consume ended within {@code millis}, as raw text, or null when it still runs. */
    String outcome(long millis) throws InterruptedException {
        try {
            boolean row = running.get(millis, TimeUnit.MILLISECONDS);
            return "returned " + (row ? "a row" : "no row") + " after " + elapsedMillis() + " ms";
        } catch (ExecutionException e) {
            return "failed after " + elapsedMillis() + " ms with " + TeradataProbes.describe(e);
        } catch (TimeoutException e) {
            return null;
        }
    }

    /** The error code the consume failed with, or -1. */
    int errorCode() {
        try {
            running.get(0, TimeUnit.MILLISECONDS);
            return -1;
        } catch (ExecutionException e) {
            return e.getCause() instanceof SQLException s ? s.getErrorCode() : -1;
        } catch (InterruptedException | TimeoutException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
