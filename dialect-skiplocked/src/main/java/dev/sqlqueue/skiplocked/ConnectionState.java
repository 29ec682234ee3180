package dev.sqlqueue.skiplocked;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The auto-commit mode and isolation a connection came with, so the backend can set what it needs
 * (auto-commit off, READ COMMITTED) and hand the connection back exactly as it came.
 */
final class ConnectionState {
    private final boolean autoCommit;
    private final int isolation;

    private ConnectionState(boolean autoCommit, int isolation) {
        this.autoCommit = autoCommit;
        this.isolation = isolation;
    }

    /**
     * The state of connections from the backend's own pool, which HikariCP hands out with auto-commit
     * off and READ COMMITTED: nothing to read, set or restore (reading the isolation costs PostgreSQL's
     * driver a round trip per transaction).
     */
    static final ConnectionState POOL_DEFAULTS = new ConnectionState(false, Connection.TRANSACTION_READ_COMMITTED);

    /** Record the state, then switch to auto-commit off and READ COMMITTED where needed. */
    static ConnectionState prepare(Connection c) throws SQLException {
        ConnectionState s = new ConnectionState(c.getAutoCommit(), c.getTransactionIsolation());
        if (s.autoCommit) {
            c.setAutoCommit(false);
        }
        if (s.isolation != Connection.TRANSACTION_READ_COMMITTED) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        return s;
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
        } catch (SQLException ignored) {
            // a broken connection goes back to its pool, which discards it
        }
    }
}
