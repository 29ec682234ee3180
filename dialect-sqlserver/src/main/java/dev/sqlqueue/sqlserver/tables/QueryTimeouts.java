package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.sqlserver.NetworkTimeouts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on the claim and settle statements of the queue tables (issue 20). READPAST skips rows
 * locked by other sessions but not a table lock or an escalated lock, and the session's
 * {@code LOCK_TIMEOUT} is -1 (wait for ever) unless set ("SET LOCK_TIMEOUT (Transact-SQL)"); a settle
 * waits on its row's lock the same way. Each such statement gets {@link PreparedStatement#setQueryTimeout}
 * derived from the lease, in whole seconds rounded up, at least 1:
 *
 * <ul>
 *   <li>a claim: its own lease (a claim still waiting after the lease it would grant could only hand out
 *       expired leases);</li>
 *   <li>a lease-mode settle: the longest lease this backend has granted or extended to so far, or
 *       {@link #DEFAULT_LEASE_MS} before its first claim (the receipt does not carry its lease); an
 *       extension, at least its new lease;</li>
 *   <li>a transactional settle: what is left of the claim's lease ({@link #remaining}).</li>
 * </ul>
 *
 * <p>mssql-jdbc enforces it by sending a TDS attention ("MS-TDS", Attention) and then throws
 * {@link SQLTimeoutException} ("The query has timed out."): in 13.2.1, {@code SQLServerStatement}
 * rethrows a {@code SQLServerException} with driver error 9 (query timeout) as
 * {@code SQLTimeoutException} with its message, SQLState and error code (read from the jar with
 * {@code javap}). What the attention does to an open transaction is not written in the SET XACT_ABORT
 * page of Microsoft Learn; community sources disagree with the assumption that it is always kept, so
 * the backend assumes nothing: every path that meets the time-out rolls back explicitly (a lease-mode
 * settle's own transaction, a transactional claim or its settle ends the claim). {@link #run} raises
 * {@link StatementTimeout}, which {@link SqlServerErrors#map} turns into
 * {@code TransientBackendException} naming the statement, never retried. Thread-safe.
 */
final class QueryTimeouts {
    /** Milliseconds a connection's network timeout adds to a claim's or settle's query timeout ({@link NetworkTimeouts}). */
    static final int NETWORK_GRACE_MS = NetworkTimeouts.GRACE_MS;
    /** mssql-jdbc ignores the executor of {@code setNetworkTimeout} (it only sets the socket's timeout). */
    static final java.util.concurrent.Executor DIRECT = Runnable::run;

    /** The network timeout for a statement bound of {@code seconds}. */
    static int networkTimeoutMs(int seconds) {
        return NetworkTimeouts.forBound(seconds);
    }

    /**
     * For one statement on a connection whose session set a network bound (a positive network timeout): raises
     * it to this statement's bound when that is longer (an extension's new lease). A connection without a
     * network timeout (a caller's, or an unbounded session) is left alone.
     */
    static void followNetwork(Connection c, int seconds) throws SQLException {
        int now = c.getNetworkTimeout();
        int ms = networkTimeoutMs(seconds);
        if (now > 0 && now < ms) {
            c.setNetworkTimeout(DIRECT, ms);
        }
    }
    /** {@code ConsumeRequest.of}'s lease: the settle bound before this backend's first claim. */
    static final long DEFAULT_LEASE_MS = 30_000;

    private final AtomicLong longestLeaseMs = new AtomicLong();

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

    /** What is left until {@code deadlineNanos} ({@link System#nanoTime}), in seconds, at least 1. */
    static int remaining(long deadlineNanos) {
        return seconds(Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000));
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
     * Prepares {@code name} with {@code values}, sets the query timeout and runs it; for a statement
     * ending in {@code SELECT @@ROWCOUNT} returns that count.
     *
     * @throws StatementTimeout when the driver stopped it for that timeout
     */
    static long count(Connection c, SqlServerStatements sql, String name, int seconds, Object... values) throws SQLException {
        String text = sql.get(name);
        followNetwork(c, seconds);
        try (PreparedStatement ps = Jdbc.prepare(c, text, values)) {
            ps.setQueryTimeout(seconds);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            } catch (SQLTimeoutException e) {
                throw new StatementTimeout(name, text, seconds, e);
            }
        }
    }

    /** As {@link #count} for a statement without a result. */
    static void execute(Connection c, SqlServerStatements sql, String name, int seconds, Object... values) throws SQLException {
        String text = sql.get(name);
        followNetwork(c, seconds);
        try (PreparedStatement ps = Jdbc.prepare(c, text, values)) {
            ps.setQueryTimeout(seconds);
            try {
                ps.execute();
            } catch (SQLTimeoutException e) {
                throw new StatementTimeout(name, text, seconds, e);
            }
        }
    }
}
