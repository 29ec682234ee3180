package dev.sqlqueue.sqlserver;

import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Borrows connections for the backend and gives them back as they came. On every borrowed connection
 * it reads the isolation level and auto-commit mode, sets READ COMMITTED (READPAST is legal only at
 * READ COMMITTED or REPEATABLE READ; error 650 otherwise) and auto-commit off, and afterwards restores
 * both, so a pool that hands out SNAPSHOT, SERIALIZABLE or READ UNCOMMITTED connections still claims
 * correctly and gets its connections back unchanged. Only what differs is set and restored.
 *
 * <p>{@link #inTransaction} retries the whole unit of work when SQL Server chose it as deadlock victim
 * (1205) or a lock request timed out (1222), up to {@code retries} times with {@link Backoff}. With
 * {@code SET XACT_ABORT ON} such an error has already rolled the transaction back, so a retry starts
 * clean. Thread-safe.
 */
final class Sessions {
    /** One unit of work on a connection inside a transaction. */
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private final DataSource dataSource;
    private final int retries;
    private final Backoff backoff;

    Sessions(DataSource dataSource, int retries, Backoff backoff) {
        this.dataSource = dataSource;
        this.retries = retries;
        this.backoff = backoff;
    }

    /**
     * Run {@code work} in one transaction and commit it. A {@link RuntimeException} from the work rolls
     * back and is rethrown as is; an {@link SQLException} rolls back and is mapped by
     * {@link SqlServerErrors#map} after the retries of 1205/1222.
     */
    <T> T inTransaction(String what, Work<T> work) {
        for (int attempt = 0; ; attempt++) {
            try {
                return once(work);
            } catch (SQLException e) {
                if (attempt < retries && SqlServerErrors.isRetryable(e)) {
                    pause(what, attempt + 1, e);
                    continue;
                }
                throw SqlServerErrors.map(attempt > 0 ? what + " (after " + attempt + " retries)" : what, e);
            }
        }
    }

    void pause(String what, int retry, SQLException cause) {
        try {
            backoff.pause(retry);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            throw SqlServerErrors.map(what + " (interrupted while backing off)", cause);
        }
    }

    int retries() {
        return retries;
    }

    private <T> T once(Work<T> work) throws SQLException {
        Session s = open();
        try {
            T result = work.run(s.connection);
            s.connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            s.rollbackQuietly(e);
            throw e;
        } finally {
            s.restoreAndClose();
        }
    }

    /** Borrow a connection and set READ COMMITTED and auto-commit off; the caller must end the session. */
    Session open() throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            int isolation = c.getTransactionIsolation();
            boolean autoCommit = c.getAutoCommit();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            return new Session(c, isolation, autoCommit);
        } catch (SQLException | RuntimeException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                e.addSuppressed(ignored);
            }
            throw e;
        }
    }

    /** A borrowed connection and the settings it came with. Not thread-safe; guard it externally. */
    static final class Session {
        final Connection connection;
        private final int isolation;
        private final boolean autoCommit;

        Session(Connection connection, int isolation, boolean autoCommit) {
            this.connection = connection;
            this.isolation = isolation;
            this.autoCommit = autoCommit;
        }

        void rollbackQuietly(Throwable cause) {
            try {
                connection.rollback();
            } catch (SQLException e) {
                cause.addSuppressed(e);
            }
        }

        /** Put auto-commit and isolation back as found, then return the connection. */
        void restoreAndClose() {
            try {
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    connection.setTransactionIsolation(isolation);
                }
            } catch (SQLException e) {
                // a broken connection cannot be restored; the pool discards it on close
            } finally {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // nothing more to give back
                }
            }
        }
    }

    static SqlQueueException unexpected(String what, Exception e) {
        return new SqlQueueException(what + " failed: " + e.getMessage(), e);
    }
}
