package dev.sqlqueue.teradata;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds how many sessions of this backend may run a {@code SELECT AND CONSUME} at once. A consume
 * issued after a peek saw a row normally returns at once, but if another consumer took that row first it
 * enters the delay state and waits, with no server-side time-out, for the next committed row (SQL Request
 * and Transaction Processing, B035-1142, "Locking Issues With Consume Mode SELECT Queries"). At most 20%
 * of a PE's sessions may wait; beyond that error 3128 aborts the transaction. So a consume runs only with
 * a permit ({@link TeradataOptions#maxWaitingSessions()}, taken without waiting), a still-running
 * consume is cancelled after {@link TeradataOptions#consumeCancelMillis()}, and {@link #close()} cancels
 * every running consume. How {@code Statement.cancel()} acts on a session in the delay state is not
 * documented (notes: VERIFY), so nothing relies on it: the permits alone bound the waiting sessions.
 *
 * <p>Thread-safe.
 */
final class WaitGate {
    /** Thrown when a consume was cancelled by the gate; the claim's transaction must be rolled back. */
    static final class Cancelled extends SQLException {
        Cancelled(SQLException cause) {
            super("consume cancelled while waiting for a row", cause);
        }
    }

    /** Reads the result of a consume. */
    interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private final Semaphore permits;
    private final long cancelMillis;
    private final Map<Statement, AtomicBoolean> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService watchdog;
    private volatile boolean closed;

    WaitGate(int maxWaiting, long cancelMillis) {
        this.permits = new Semaphore(maxWaiting);
        this.cancelMillis = cancelMillis;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-teradata-consume-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /** Permits free now (for tests and reports). */
    int available() {
        return permits.availablePermits();
    }

    /**
     * Runs the consume statement with a permit.
     *
     * @return {@code null} when no permit was free or the gate is closed (nothing was sent)
     * @throws Cancelled if the gate cancelled the statement and it failed because of that
     * @throws SQLException any other error of the statement
     */
    <T> T consume(Statement statement, String sql, Reader<T> reader) throws SQLException {
        if (closed || !permits.tryAcquire()) {
            return null;
        }
        AtomicBoolean cancelled = new AtomicBoolean();
        ScheduledFuture<?> timer;
        try {
            timer = cancelMillis > 0
                    ? watchdog.schedule(() -> cancel(statement, cancelled), cancelMillis, TimeUnit.MILLISECONDS)
                    : null;
        } catch (RejectedExecutionException closing) {
            permits.release();
            return null;
        }
        running.put(statement, cancelled);
        try {
            try (ResultSet rs = statement.executeQuery(sql)) {
                return reader.read(rs);
            }
        } catch (SQLException e) {
            if (cancelled.get()) {
                throw new Cancelled(e);
            }
            throw e;
        } finally {
            if (timer != null) {
                timer.cancel(false);
            }
            running.remove(statement);
            permits.release();
        }
    }

    private static void cancel(Statement s, AtomicBoolean flag) {
        flag.set(true);
        try {
            s.cancel();
        } catch (SQLException ignored) {
            // best effort: the permit still bounds the waiting sessions
        }
    }

    /** Refuses new consumes and cancels the running ones. */
    void close() {
        closed = true;
        running.forEach(WaitGate::cancel);
        watchdog.shutdownNow();
    }
}
