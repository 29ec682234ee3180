package dev.sqlqueue.skiplocked;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The auto-commit mode, isolation and network timeout a connection came with, so the backend can set what it
 * needs (auto-commit off, READ COMMITTED, the network timeout of {@link QueryTimeouts}) and hand the
 * connection back exactly as it came.
 */
final class ConnectionState {
    private final boolean autoCommit;
    private final int isolation;
    private final int networkTimeoutMs;

    private ConnectionState(boolean autoCommit, int isolation, int networkTimeoutMs) {
        this.autoCommit = autoCommit;
        this.isolation = isolation;
        this.networkTimeoutMs = networkTimeoutMs;
    }

    /**
     * The state of connections from the backend's own pool, which HikariCP hands out with auto-commit
     * off and READ COMMITTED: nothing to read, set or restore (reading the isolation costs PostgreSQL's
     * driver a round trip per transaction); HikariCP gives a connection its network timeout back itself.
     */
    static final ConnectionState POOL_DEFAULTS = new ConnectionState(false, Connection.TRANSACTION_READ_COMMITTED, -1);

    /**
     * Record the state, bound the network for a statement of {@code boundSeconds} when it is positive ({@link
     * QueryTimeouts#boundNetwork}, before any round trip: reading the isolation is one on PostgreSQL), then
     * switch to auto-commit off and READ COMMITTED where needed.
     */
    static ConnectionState prepare(Connection c, int boundSeconds) throws SQLException {
        int networkTimeout = networkTimeout(c);
        if (boundSeconds > 0) {
            QueryTimeouts.boundNetwork(c, boundSeconds);
        }
        ConnectionState s = new ConnectionState(c.getAutoCommit(), c.getTransactionIsolation(), networkTimeout);
        if (s.autoCommit) {
            c.setAutoCommit(false);
        }
        if (s.isolation != Connection.TRANSACTION_READ_COMMITTED) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        return s;
    }

    /** The connection's network timeout, or -1 when its driver or pool has none (nothing to set or restore). */
    static int networkTimeout(Connection c) throws SQLException {
        try {
            return c.getNetworkTimeout();
        } catch (java.sql.SQLFeatureNotSupportedException | AbstractMethodError none) {
            return -1;
        }
    }

    /** Put back what {@link #prepare} found. Call after commit or rollback. */
    void restore(Connection c) {
        try {
            if (c.isClosed()) {
                return;
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(isolation);
            }
            if (autoCommit) {
                c.setAutoCommit(true);
            }
            if (networkTimeoutMs >= 0 && c.getNetworkTimeout() != networkTimeoutMs) {
                c.setNetworkTimeout(Runnable::run, networkTimeoutMs);
            }
        } catch (SQLException ignored) {
            // a broken connection goes back to its pool, which discards it
        }
    }
}
