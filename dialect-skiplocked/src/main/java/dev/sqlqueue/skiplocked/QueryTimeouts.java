package dev.sqlqueue.skiplocked;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on claim and settle statements, which can wait on the server with no limit of their own: a
 * SKIP LOCKED claim skips locked rows but still waits on a table lock (PostgreSQL {@code LOCK TABLE},
 * a DDL statement, MariaDB {@code LOCK TABLES} or any metadata lock, whose {@code lock_wait_timeout} is a
 * year by default); a settle statement waits on the row's lock (PostgreSQL has no lock time-out by
 * default). Each such statement gets {@link PreparedStatement#setQueryTimeout} derived from the lease:
 *
 * <ul>
 *   <li>a claim: its own lease, in whole seconds rounded up (at least 1 s). A claim still waiting when
 *       the lease it would grant has passed could only hand out messages whose lease is over;</li>
 *   <li>a lease-mode settle (ack, nack, extend, dead-letter, release): the longest lease this backend
 *       has granted or extended to so far, or {@link #DEFAULT_LEASE_MS} before its first claim (the
 *       receipt does not carry its lease). An extension uses the longer of that and the new lease;</li>
 *   <li>a transactional-mode settle: the claim's lease.</li>
 * </ul>
 *
 * <p>The driver enforces it: PostgreSQL's cancels the statement (SQLState 57014), MariaDB Connector/J
 * runs it under {@code SET STATEMENT max_statement_time} (error 1969), which also ends a wait for a
 * metadata or row lock. H2 (2.3.232) does not end a lock wait at its query timeout (a test waited the
 * whole {@code LOCK_TIMEOUT} instead); there the bound is H2's own lock time-out, 2 s per session by
 * default (error 50200, retried like a deadlock, then {@code TransientBackendException} with H2's
 * message, which quotes the statement). When
 * the statement was stopped by that limit, {@link #run} throws {@link StatementTimeout}, which the
 * backend raises as {@code TransientBackendException} naming the statement, and never retries.
 *
 * <p>Both bounds are kept by the server, so a server that stops answering without closing the connection (a
 * network partition, a dropped NAT or load-balancer entry, a frozen host) kept the statement waiting for its
 * answer for ever: neither driver has a socket timeout by default (pgJDBC {@code socketTimeout}, MariaDB
 * Connector/J {@code socketTimeout}: 0, none), and TCP keepalive, when on, first probes after two hours
 * (Linux {@code tcp_keepalive_time}). A claim's or settle's transaction therefore also sets the connection's
 * network timeout ({@link java.sql.Connection#setNetworkTimeout}) to the query timeout plus {@link
 * #NETWORK_GRACE_MS}, before its first round trip ({@link Transactions#prepare}), and {@link #run} follows each
 * statement's bound; it holds for the whole transaction (the commit too). A read that waits longer fails, the
 * driver closes the connection, and the backend reports a lost connection ({@code TransientBackendException}).
 * The connection gets its network timeout back when it returns to its pool: HikariCP restores its own, {@link
 * ConnectionState} a caller's. Not on H2, which accepts the call and ignores it (no socket in embedded mode).
 * Thread-safe.
 */
final class QueryTimeouts {
    /**
     * Milliseconds a connection's network timeout adds to a statement's query timeout: long enough that a
     * server that still answers reports its own time-out first (PostgreSQL's cancel arrives on a connection
     * of its own), short enough that a worker on a silent server is back to its retry loop within seconds.
     */
    static final int NETWORK_GRACE_MS = 10_000;

    private static final java.util.concurrent.Executor DIRECT = Runnable::run;

    /** {@code ConsumeRequest.of}'s lease: the settle bound before this backend's first claim. */
    static final long DEFAULT_LEASE_MS = 30_000;

    private final AtomicLong longestLeaseMs = new AtomicLong();

    /** The statement work to bound. */
    interface Call<T> {
        T run() throws SQLException;
    }

    /** A statement stopped by its query timeout. */
    static final class StatementTimeout extends SQLTimeoutException {
        StatementTimeout(String name, String sql, int seconds, SQLException cause) {
            super("statement " + name + " timed out after " + seconds + " s (its query timeout, derived from the lease): "
                    + (sql.length() > 300 ? sql.substring(0, 300) + "…" : sql), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    /** Whole seconds, rounded up, at least 1. */
    static int seconds(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (millis + 999) / 1000));
    }

    /** A claim granting {@code leaseMs}: records it, returns its bound in seconds. */
    int claim(long leaseMs) {
        longestLeaseMs.accumulateAndGet(leaseMs, Math::max);
        return seconds(leaseMs);
    }

    /** The bound of a lease-mode settle statement, in seconds. */
    int settle() {
        long longest = longestLeaseMs.get();
        return seconds(longest == 0 ? DEFAULT_LEASE_MS : longest);
    }

    /** An extension to {@code leaseMs}: records it, returns its bound in seconds. */
    int extend(long leaseMs) {
        longestLeaseMs.accumulateAndGet(leaseMs, Math::max);
        return settle();
    }

    /**
     * Runs {@code call} on {@code ps} with a query timeout of {@code seconds}.
     *
     * @throws StatementTimeout when the driver stopped it for that timeout
     */
    static <T> T run(PreparedStatement ps, String name, String sql, int seconds, Call<T> call) throws SQLException {
        // H2 2.3.232 runs a SET QUERY_TIMEOUT command on every setQueryTimeout (JdbcConnection.setQueryTimeout
        // does not compare with the session's value it caches), a third of them inside the claim each queue
        // serializes; its getQueryTimeout returns that cached session value. PostgreSQL and MariaDB keep the
        // value per statement, 0 on a new one, so they are always set.
        if (ps.getQueryTimeout() != seconds) {
            ps.setQueryTimeout(seconds);
        }
        adjustNetwork(ps.getConnection(), seconds);
        long t0 = System.nanoTime();
        try {
            return call.run();
        } catch (SQLException e) {
            // a cancel from elsewhere (an operator, a kill) before the limit is not this time-out
            if (isQueryTimeout(e) && System.nanoTime() - t0 >= seconds * 1_000_000_000L - 250_000_000L) {
                throw new StatementTimeout(name, sql, seconds, e);
            }
            throw e;
        }
    }

    /** The network timeout of a statement bounded by {@code seconds}: see the class comment. */
    static int networkTimeoutMs(int seconds) {
        return (int) Math.min(Integer.MAX_VALUE, seconds * 1000L + NETWORK_GRACE_MS);
    }

    /** Sets {@code c}'s network timeout to {@link #networkTimeoutMs} of {@code seconds}, unless it has it or has none. */
    static void boundNetwork(java.sql.Connection c, int seconds) throws SQLException {
        setNetwork(c, seconds, 0);
    }

    /**
     * For one statement of a transaction its {@link Transactions} bounded: a bound set there (before the first
     * round trip, from the lease known then) follows this statement's, which an extension to a longer lease
     * raises. A connection without one (H2, which ignores the call) is left alone.
     */
    private static void adjustNetwork(java.sql.Connection c, int seconds) throws SQLException {
        setNetwork(c, seconds, 1);
    }

    /** Sets the bound of {@code seconds} when the connection's network timeout is at least {@code fromMs} and not it. */
    private static void setNetwork(java.sql.Connection c, int seconds, int fromMs) throws SQLException {
        int now = ConnectionState.networkTimeout(c);
        int ms = networkTimeoutMs(seconds);
        if (now >= fromMs && now != ms) {
            c.setNetworkTimeout(DIRECT, ms);
        }
    }

    /**
     * The driver's "query timed out or cancelled": PostgreSQL SQLState 57014 (query_canceled); H2 error
     * 57014 (STATEMENT_WAS_CANCELED, SQLState HY008); MariaDB error 1969 (ER_STATEMENT_TIMEOUT,
     * max_statement_time exceeded); any other {@link SQLTimeoutException} except a lock time-out (H2 error
     * 50200, MariaDB 1205), which is the server's own bound and retried as before.
     */
    static boolean isQueryTimeout(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() != null ? t.getCause()
                : t instanceof SQLException s && s.getNextException() != t ? s.getNextException() : null) {
            if (t instanceof SQLException s && (s.getErrorCode() == 50200 || s.getErrorCode() == 1205)) {
                return false;
            }
            if (t instanceof SQLTimeoutException) {
                return true;
            }
            if (t instanceof SQLException s && ("57014".equals(s.getSQLState()) || "HY008".equals(s.getSQLState())
                    || s.getErrorCode() == 57014 || s.getErrorCode() == 1969)) {
                return true;
            }
        }
        return false;
    }
}
