package dev.sqlqueue.skiplocked;

import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * Transactions of the SKIP LOCKED backend on its pool: {@link #inTransaction} with deadlock retries and one
 * retry on a connection found dead, and the small JDBC helpers every role of the backend shares. Thread-safe.
 */
final class Transactions {
    static final int MAX_DEADLOCK_RETRIES = 6;
    private static final int MAX_TEXT = 4000;

    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    private final DataSource ds;
    private final AutoCloseable ownedPool;
    private final boolean boundsNetwork;
    /** H2 only (else null): repairs a transaction slot left stale by a killed session ({@link H2StaleSlots}). */
    private final H2StaleSlots staleSlots;

    /**
     * @param boundsNetwork whether bounded transactions set the network timeout (not on H2, which ignores it)
     * @param h2 whether the database is H2, whose stale transaction slots are repaired ({@link H2StaleSlots})
     */
    Transactions(DataSource ds, AutoCloseable ownedPool, boolean boundsNetwork, boolean h2) {
        this.ds = ds;
        this.ownedPool = ownedPool;
        this.boundsNetwork = boundsNetwork;
        this.staleSlots = h2 ? new H2StaleSlots(ds) : null;
    }

    /**
     * H2's "An old transaction with the same id is still open" ({@link H2StaleSlots}): the stale slot is repaired, and
     * true is returned when the failed work, which wrote nothing (its first write
     * failed and its transaction was rolled back), may run again: up to {@code MAX_STALE_SLOT_RETRIES} attempts.
     */
    boolean repairedStaleSlot(SQLException e, int attempt) {
        return staleSlots != null && attempt < MAX_STALE_SLOT_RETRIES && H2StaleSlots.matches(e) && staleSlots.repair(e);
    }

    static final int MAX_STALE_SLOT_RETRIES = 4;

    /** H2: after a session was found lost (killed), repairs the slots its killing left stale ({@link H2StaleSlots#sweep}). */
    void sweepStaleSlots() {
        if (staleSlots != null) {
            staleSlots.sweep();
        }
    }

    /** Run {@code work} in one transaction on a pooled connection, retrying deadlock victims. */
    <T> T inTransaction(String what, SqlWork<T> work) {
        return inTransaction(what, 0, work);
    }

    /**
     * {@link #inTransaction(String, SqlWork)} for a claim or settle bounded by {@code boundSeconds} (its query
     * timeout): the connection's network timeout is set before the transaction's first round trip ({@link
     * QueryTimeouts#networkTimeoutMs}), so a server that stopped answering ends it; 0 sets none.
     */
    <T> T inTransaction(String what, int boundSeconds, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            boolean committing = false;
            try (Connection c = ds.getConnection()) {
                ConnectionState state = prepare(c, boundSeconds);
                try {
                    T result = work.run(c);
                    committing = true;
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                } finally {
                    state.restore(c);
                }
            } catch (SQLException e) {
                if (retried(e, attempt, !committing)) {
                    continue;
                }
                throw JdbcErrors.translate(what, e);
            }
        }
    }

    /**
     * Run {@code work}, one statement whose round trip is its own transaction, on a pooled connection in
     * auto-commit mode (READ COMMITTED), retrying deadlock victims: one round trip where {@link #inTransaction}
     * needs two (the statement, then {@code COMMIT}). PostgreSQL runs the statements the driver sends before
     * one Sync as one transaction (PostgreSQL manual, Frontend/Backend Protocol, Extended Query), so a
     * statement text holding several runs them atomically. {@code work} may turn auto-commit off for
     * statements that must follow in one transaction, and then commits them itself; one it left open is rolled
     * back. A connection found lost is retried once only with {@code retryLostConnection}: the statement may
     * have committed before the loss was seen, so only work that is safe to repeat after a commit asks for it
     * (a claim: rows it leased unseen come back when their lease ends; not an ack, whose repeat would report
     * its own committed deletes as lost leases). {@code boundSeconds} as for {@link #inTransaction(String, int,
     * SqlWork)}.
     */
    <T> T inAutoCommit(String what, boolean retryLostConnection, int boundSeconds, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ds.getConnection()) {
                ConnectionState state = prepare(c, boundSeconds);
                c.setAutoCommit(true);
                try {
                    return work.run(c);
                } catch (SQLException | RuntimeException e) {
                    rollbackIfOpen(c);
                    throw e;
                } finally {
                    autoCommitOff(c);
                    state.restore(c);
                }
            } catch (SQLException e) {
                if (retried(e, attempt, retryLostConnection)) {
                    continue;
                }
                throw JdbcErrors.translate(what, e);
            }
        }
    }

    /**
     * Whether a failed attempt is run again, after the pause or eviction that goes with it: a deadlock victim or
     * lock time-out up to {@link #MAX_DEADLOCK_RETRIES} attempts; a connection found lost once, where {@code
     * lossRetryable} (nothing committed, or safe to repeat after a commit): the pool's idle connections are
     * dropped first (a killed session rarely dies alone). Never a statement time-out.
     */
    private boolean retried(SQLException e, int attempt, boolean lossRetryable) {
        if (e instanceof QueryTimeouts.StatementTimeout) {
            return false;
        }
        if (JdbcErrors.isRetryable(e) && attempt < MAX_DEADLOCK_RETRIES) {
            sleepJitter(attempt);
            return true;
        }
        if (repairedStaleSlot(e, attempt)) {
            return lossRetryable; // else the repair serves the next call, and this one fails as transient
        }
        if (JdbcErrors.isConnectionLoss(e)) {
            sweepStaleSlots();
        }
        if (lossRetryable && attempt == 1 && JdbcErrors.isConnectionLoss(e)) {
            evictIdleConnections();
            return true;
        }
        return false;
    }

    /**
     * Own pool: already auto-commit off and READ COMMITTED; a caller's pool: recorded, set, restored later. First
     * the network is bounded for a statement of {@code boundSeconds} (0: no bound); HikariCP gives its connection
     * the network timeout back on return, {@link ConnectionState} a caller's.
     */
    ConnectionState prepare(Connection c, int boundSeconds) throws SQLException {
        if (!boundsNetwork) {
            boundSeconds = 0;
        }
        if (ownedPool != null) {
            if (boundSeconds > 0) {
                QueryTimeouts.boundNetwork(c, boundSeconds);
            }
            return ConnectionState.POOL_DEFAULTS;
        }
        return ConnectionState.prepare(c, boundSeconds);
    }

    void evictIdleConnections() {
        if (ownedPool instanceof com.zaxxer.hikari.HikariDataSource hikari) {
            hikari.getHikariPoolMXBean().softEvictConnections();
        }
    }

    /** Roll back a transaction {@code work} of {@link #inAutoCommit} left open; quiet on a broken connection. */
    private static void rollbackIfOpen(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // connection broken: the server rolls back
        }
    }

    /** Back to the pool's auto-commit off (no round trip outside a transaction); quiet on a broken connection. */
    private static void autoCommitOff(Connection c) {
        try {
            if (!c.isClosed() && c.getAutoCommit()) {
                c.setAutoCommit(false);
            }
        } catch (SQLException ignored) {
            // a broken connection goes back to its pool, which discards it
        }
    }

    static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // connection broken: the server rolls back
        }
    }

    static void sleepJitter(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << Math.min(attempt, 6)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SqlQueueException("interrupted while retrying a deadlocked statement", e);
        }
    }

    static String clip(String s) {
        return s == null ? null : s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s;
    }

    /** {@link #update} bounded by a query timeout; {@code name} is the statement's field in {@link SkipLockedStatements}. */
    static int timedUpdate(Connection c, String name, String statement, int timeoutSeconds, Object... params)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return QueryTimeouts.run(ps, name, statement, timeoutSeconds, ps::executeUpdate);
        }
    }

    /** Run a {@code SET LOCAL} planner setting ({@link SkipLockedStatements#idArrayPlan}) in {@code c}'s transaction; nothing when null. */
    static void setPlan(Connection c, String setLocal) throws SQLException {
        if (setLocal != null) {
            try (java.sql.Statement st = c.createStatement()) {
                st.execute(setLocal);
            }
        }
    }

    static int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    static long newToken() {
        long t;
        do {
            t = ThreadLocalRandom.current().nextLong();
        } while (t == 0);
        return t;
    }
}
