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
 * most {@value #PERMIT_WAIT_MILLIS} ms), on a statement of its own, and with two bounds, both the driver's
 * own mechanisms (terajdbc 20.00.00.51, read with {@code javap}):
 * <ul>
 *   <li>after its cancel time the watchdog calls {@code Statement.cancel()}, which sends an Abort for the
 *   request ({@code TDStatement.cancel}); an Abort the database answers ends the request with 751 and
 *   rolls the transaction back;</li>
 *   <li>the statement's query timeout is the cancel time plus {@value #ABORT_GRACE_MILLIS} ms, rounded up
 *   to whole seconds: the socket read of a request whose Abort went unanswered ends when it runs out, and
 *   the driver then closes the connection (TJ783, 08S01: {@code StatementReceiveState.action}), so the
 *   database ends the session and rolls its transaction back (unless Recoverable Network Protocol keeps it
 *   for a reconnect: docs/backends/teradata.md).</li>
 * </ul>
 * {@code Connection.abort} is not used: in the pinned driver it does nothing
 * ({@code GenericTeradataConnection.abort} is an empty method), and {@code Connection.close} waits for the
 * running request ({@code TDSession.close} takes the session lock). Each consume has one state that the
 * consumer and the watchdog change by compare-and-set, so a cancel is sent only while the consume runs;
 * when the watchdog won the race against a consume that then succeeded, the consume is reported as
 * {@link Cancelled} with {@link Cancelled#discard()} set: the Abort may still reach the session, so the
 * connection must not be used again. A cancel that found the request not yet sent makes the driver
 * interrupt the consuming thread ({@code TDStatement.cancel}, state ACTIVE); that interrupt is cleared
 * after the consume, unless the gate was closed (review N9).
 *
 * <p>Thread-safe.
 */
final class WaitGate {
    /** How long a consumer waits for a permit before it returns empty, in ms (review finding 8). */
    static final long PERMIT_WAIT_MILLIS = 100;
    /** What the consume's query timeout adds to its cancel time, in ms. */
    static final long ABORT_GRACE_MILLIS = 1000;

    /** The consume was cancelled or its Abort went unanswered; the claim's transaction must be rolled back. */
    static final class Cancelled extends SQLException {
        private final boolean discard;

        Cancelled(SQLException cause, boolean discard) {
            super("consume cancelled while waiting for a row", cause);
            this.discard = discard;
        }

        /** True when the connection must not be used again (closed by the driver, or an Abort may still arrive). */
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
    private static final int DONE = 3;

    /** One consume in flight: the consumer and the watchdog move its state by compare-and-set. */
    private static final class Running {
        final Statement statement;
        final AtomicInteger state = new AtomicInteger(RUNNING);

        Running(Statement statement) {
            this.statement = statement;
        }

        void cancel() {
            if (state.compareAndSet(RUNNING, CANCELLING)) {
                try {
                    statement.cancel();
                } catch (SQLException | RuntimeException ignored) {
                    // the query timeout still ends the request
                } finally {
                    synchronized (this) {
                        state.set(CANCELLED);
                        notifyAll();
                    }
                }
            }
        }

        /**
         * Called by the consumer once its request returned: false when the watchdog never acted, true when
         * it cancelled (after waiting for its call to end). Does not react to an interrupt; keeps the flag.
         */
        boolean finish() {
            if (state.compareAndSet(RUNNING, DONE)) {
                return false;
            }
            boolean interrupted = Thread.interrupted();
            synchronized (this) {
                while (state.get() == CANCELLING) {
                    try {
                        wait(10);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return true;
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

    /** The consume's query timeout for a cancel time, whole seconds (0: none). */
    static int queryTimeoutSeconds(long cancelMillis) {
        return cancelMillis > 0 ? QueryTimeouts.seconds(cancelMillis + ABORT_GRACE_MILLIS) : 0;
    }

    /**
     * Runs the consume statement with a permit, on a new statement of {@code connection}.
     *
     * @param cancelMillis after this many ms a still-running consume is cancelled; its query timeout is
     *     {@link #queryTimeoutSeconds}; 0 means neither
     * @return {@code null} when no permit came free within {@value #PERMIT_WAIT_MILLIS} ms or the gate is
     *     closed (nothing was sent)
     * @throws Cancelled if the watchdog cancelled the statement, or the driver ended it by its query timeout
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
            st.setQueryTimeout(queryTimeoutSeconds(cancelMillis));
            Running r = new Running(st);
            ScheduledFuture<?> cancel;
            try {
                cancel = cancelMillis > 0 ? watchdog.schedule(r::cancel, cancelMillis, TimeUnit.MILLISECONDS) : null;
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
                }
                running.remove(r);
            }
            boolean cancelled = r.finish();
            if (cancelled && !closed) {
                Thread.interrupted(); // the driver's interrupt of a cancel that came before the request was sent
            }
            if (cancelled || (failure != null && endedByDriver(failure))) {
                boolean lost = failure != null && TeradataErrors.connectionLost(failure);
                throw new Cancelled(failure, failure == null || lost);
            }
            if (failure != null) {
                throw failure;
            }
            return out;
        } finally {
            permits.release();
        }
    }

    /** The consume's own query timeout ended it: 802, or 1475 when the Abort went unanswered. */
    private static boolean endedByDriver(SQLException e) {
        return QueryTimeouts.timedOut(e) || e.getErrorCode() == TeradataErrors.ABORT_UNANSWERED;
    }

    /** Refuses new consumes and cancels the running ones (their query timeouts bound them if the cancel is not answered). */
    void close() {
        closed = true;
        running.forEach(Running::cancel);
        watchdog.shutdown();
    }
}
