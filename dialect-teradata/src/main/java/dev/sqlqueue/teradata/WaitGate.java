package dev.sqlqueue.teradata;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounds and ends the {@code SELECT AND CONSUME} requests of this backend. A consume issued after a peek
 * saw a row normally returns at once, but it waits, with no server-side time-out, when another consumer
 * took that row first (delay state) or when the row seen is an uncommitted insert (row-hash lock)
 * (SQL Request and Transaction Processing, B035-1142, "Locking Issues With Consume Mode SELECT Queries";
 * SQL DML, "Performance Characteristics of SELECT AND CONSUME Statements"). At most 20% of a PE's
 * sessions may wait; beyond that error 3128 aborts the transaction.
 *
 * <p>So a consume runs only with a permit ({@link TeradataOptions#maxWaitingSessions()}, waited for at
 * most {@value #PERMIT_WAIT_MILLIS} ms), on a statement of its own. A consume still running after its
 * cancel time is cancelled with {@code Statement.cancel()}; one still running {@value #ABORT_GRACE_MILLIS}
 * ms after that has its connection aborted ({@code Connection.abort}, JDBC 4.1), which ends the session
 * and so rolls its transaction back (documented), whatever the driver's cancel does (undocumented:
 * review V4). Each consume has one state that the consumer and the watchdog change by compare-and-set,
 * so a cancel is sent only while the consume runs; when the watchdog won the race against a consume that
 * then succeeded, the consume is reported as {@link Cancelled} with {@link Cancelled#discard()} set: the
 * cancel may still reach the session's next request, so the connection must not be used again.
 *
 * <p>Thread-safe.
 */
final class WaitGate {
    /** How long a consumer waits for a permit before it returns empty, in ms (review finding 8). */
    static final long PERMIT_WAIT_MILLIS = 100;
    /** Time after a cancel before the connection is aborted, in ms. */
    static final long ABORT_GRACE_MILLIS = 1000;

    /** The consume was cancelled or its connection aborted; the claim's transaction must be rolled back. */
    static final class Cancelled extends SQLException {
        private final boolean discard;

        Cancelled(SQLException cause, boolean discard) {
            super("consume cancelled while waiting for a row", cause);
            this.discard = discard;
        }

        /** True when the connection must not be used again (aborted, or a cancel may still arrive). */
        boolean discard() {
            return discard;
        }
    }

    /** Reads the result of a consume. */
    interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private static final int RUNNING = 0;
    private static final int CANCELLING = 1;
    private static final int CANCELLED = 2;
    private static final int ABORTING = 3;
    private static final int ABORTED = 4;
    private static final int DONE = 5;

    /** One consume in flight: the consumer and the watchdog move its state by compare-and-set. */
    private final class Running {
        final Connection connection;
        final Statement statement;
        final AtomicInteger state = new AtomicInteger(RUNNING);

        Running(Connection connection, Statement statement) {
            this.connection = connection;
            this.statement = statement;
        }

        void cancel() {
            if (state.compareAndSet(RUNNING, CANCELLING)) {
                try {
                    statement.cancel();
                } catch (SQLException | RuntimeException ignored) {
                    // the abort below still ends the request
                } finally {
                    settle(CANCELLING, CANCELLED);
                }
            }
        }

        void abort() {
            if (state.compareAndSet(CANCELLED, ABORTING)) {
                try {
                    connection.abort(watchdog);
                } catch (SQLException | RuntimeException ignored) {
                    // nothing more can be done from here
                } finally {
                    settle(ABORTING, ABORTED);
                }
            }
        }

        private void settle(int from, int to) {
            synchronized (this) {
                state.compareAndSet(from, to);
                notifyAll();
            }
        }

        /**
         * Called by the consumer once its request returned. Null when the watchdog never acted; otherwise
         * whether the connection must be discarded (aborted), after waiting for the watchdog's call to end.
         */
        Boolean finish() throws InterruptedException {
            if (state.compareAndSet(RUNNING, DONE)) {
                return null;
            }
            synchronized (this) {
                while (true) {
                    int s = state.get();
                    if (s == CANCELLED && state.compareAndSet(CANCELLED, DONE)) {
                        return false;
                    }
                    if (s == ABORTED) {
                        return true;
                    }
                    wait(10);
                }
            }
        }
    }

    private final Semaphore permits;
    private final Set<Running> running = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService watchdog;
    private volatile boolean closed;

    WaitGate(int maxWaiting) {
        this.permits = new Semaphore(maxWaiting);
        this.watchdog = Executors.newScheduledThreadPool(2, r -> {
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
     * Runs the consume statement with a permit, on a new statement of {@code connection}.
     *
     * @param cancelMillis after this many ms a still-running consume is cancelled, and aborted
     *     {@value #ABORT_GRACE_MILLIS} ms later; 0 means never
     * @return {@code null} when no permit came free within {@value #PERMIT_WAIT_MILLIS} ms or the gate is
     *     closed (nothing was sent)
     * @throws Cancelled if the watchdog cancelled the statement or aborted the connection
     * @throws SQLException any other error of the statement
     */
    <T> T consume(Connection connection, String sql, Reader<T> reader, long cancelMillis) throws SQLException {
        try {
            if (closed || !permits.tryAcquire(PERMIT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                return null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        try (Statement st = connection.createStatement()) {
            Running r = new Running(connection, st);
            ScheduledFuture<?> cancel;
            ScheduledFuture<?> abort;
            try {
                cancel = cancelMillis > 0 ? watchdog.schedule(r::cancel, cancelMillis, TimeUnit.MILLISECONDS) : null;
                abort = cancelMillis > 0
                        ? watchdog.schedule(r::abort, cancelMillis + ABORT_GRACE_MILLIS, TimeUnit.MILLISECONDS) : null;
            } catch (RejectedExecutionException closing) {
                return null;
            }
            running.add(r);
            T out = null;
            SQLException failure = null;
            try (ResultSet rs = st.executeQuery(sql)) {
                out = reader.read(rs);
            } catch (SQLException e) {
                failure = e;
            } finally {
                if (cancel != null) {
                    cancel.cancel(false);
                    abort.cancel(false);
                }
                running.remove(r);
            }
            Boolean discard;
            try {
                discard = r.finish();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                discard = true;
            }
            if (discard != null) {
                throw new Cancelled(failure, discard || failure == null);
            }
            if (failure != null) {
                throw failure;
            }
            return out;
        } finally {
            permits.release();
        }
    }

    /** Refuses new consumes, cancels the running ones and aborts the connections of those that still run. */
    void close() {
        closed = true;
        running.forEach(Running::cancel);
        running.forEach(Running::abort);
        watchdog.shutdown();
    }
}
