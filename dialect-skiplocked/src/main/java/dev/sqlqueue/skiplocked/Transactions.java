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

    Transactions(DataSource ds, AutoCloseable ownedPool) {
        this.ds = ds;
        this.ownedPool = ownedPool;
    }

    /** Run {@code work} in one transaction on a pooled connection, retrying deadlock victims. */
    <T> T inTransaction(String what, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            boolean committing = false;
            try (Connection c = ds.getConnection()) {
                ConnectionState state = prepare(c);
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
                if (e instanceof QueryTimeouts.StatementTimeout) {
                    throw JdbcErrors.translate(what, e);
                }
                if (JdbcErrors.isRetryable(e) && attempt < MAX_DEADLOCK_RETRIES) {
                    sleepJitter(attempt);
                    continue;
                }
                // a pooled connection found dead before anything was committed: drop the pool's idle
                // connections (a killed session rarely dies alone) and try once more on a fresh one
                if (!committing && attempt == 1 && JdbcErrors.isConnectionLoss(e)) {
                    evictIdleConnections();
                    continue;
                }
                throw JdbcErrors.translate(what, e);
            }
        }
    }

    /** Own pool: already auto-commit off and READ COMMITTED; a caller's pool: recorded, set, restored later. */
    ConnectionState prepare(Connection c) throws SQLException {
        return ownedPool != null ? ConnectionState.POOL_DEFAULTS : ConnectionState.prepare(c);
    }

    void evictIdleConnections() {
        if (ownedPool instanceof com.zaxxer.hikari.HikariDataSource hikari) {
            hikari.getHikariPoolMXBean().softEvictConnections();
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
