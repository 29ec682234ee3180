package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.PrepareMethods;
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
 * <p>It also keeps mssql-jdbc from running the backend's statements as plain batches
 * ({@link PrepareMethods}: {@code prepareMethod=none} would leave their {@code SET NOCOUNT ON; SET
 * XACT_ABORT ON} on the session, review finding 1) and gives the property back as it found it.
 *
 * <p>No failure path commits (review finding 2). mssql-jdbc's {@code setAutoCommit(true)} commits an
 * open transaction ({@code IF @@TRANCOUNT > 0 COMMIT TRAN}, as the JDBC contract of setAutoCommit
 * requires), so a session is rolled back before auto-commit is restored unless it was ended by
 * {@link Session#commit}/{@link Session#rollback}; any {@link Throwable} from the unit of work (an
 * {@link Error} included) rolls back; and if that rollback fails the connection is aborted
 * ({@link Connection#abort}: the server ends the session and rolls back) instead of restored.
 *
 * <p>{@link #inTransaction} retries the whole unit of work when SQL Server chose it as deadlock victim
 * (1205) or a lock request timed out (1222), up to {@code retries} times with {@link Backoff}. With
 * {@code SET XACT_ABORT ON} such an error has already rolled the transaction back, so a retry starts
 * clean. Thread-safe.
 */
public final class Sessions {
    /** One unit of work on a connection inside a transaction. */
    public interface Work<T> {
        /**
         * Does the work.
         *
         * @param c the transaction's connection; do not commit, roll back or close it
         * @return the work's result
         * @throws SQLException on a database error, which rolls the transaction back
         */
        T run(Connection c) throws SQLException;
    }

    private final DataSource dataSource;
    private final int retries;
    private final Backoff backoff;

    /**
     * Transactions on one pool.
     *
     * @param dataSource the pool connections are borrowed from
     * @param retries retries after error 1205 or 1222, 0 or more
     * @param backoff the wait before each retry
     */
    public Sessions(DataSource dataSource, int retries, Backoff backoff) {
        this.dataSource = dataSource;
        this.retries = retries;
        this.backoff = backoff;
    }

    /**
     * Run {@code work} in one transaction and commit it. A {@link RuntimeException} from the work rolls
     * back and is rethrown as is; an {@link SQLException} rolls back and is mapped by
     * {@link SqlServerErrors#map} after the retries of 1205/1222.
     *
     * @param what what was being done, for the message
     * @param work the work, given the transaction's connection
     * @param <T> what the work returns
     * @return what the work returned
     */
    public <T> T inTransaction(String what, Work<T> work) {
        return inTransaction(what, 0, work);
    }

    /**
     * As {@link #inTransaction(String, Work)}, with the connection's network timeout set to {@code boundSeconds}
     * plus {@link QueryTimeouts#NETWORK_GRACE_MS} before its first round trip (0: none set): the bound of a
     * claim or settle on a server that stops answering (review N4; {@link QueryTimeouts}).
     *
     * @param what what was being done, for the message
     * @param boundSeconds the query timeout of the transaction's statements, in seconds; 0 for none
     * @param work the work, given the transaction's connection
     * @param <T> what the work returns
     * @return what the work returned
     */
    public <T> T inTransaction(String what, int boundSeconds, Work<T> work) {
        for (int attempt = 0; ; attempt++) {
            try {
                return once(boundSeconds, work);
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

    private <T> T once(int boundSeconds, Work<T> work) throws SQLException {
        Session s = open(boundSeconds);
        try {
            T result = work.run(s.connection);
            s.commit();
            return result;
        } catch (Throwable e) {
            s.rollbackQuietly(e);
            throw e;
        } finally {
            s.restoreAndClose();
        }
    }

    /**
     * Borrow a connection, switch a plain-batch prepareMethod to prepexec, set READ COMMITTED and
     * auto-commit off; the caller must end the session ({@link Session#restoreAndClose}).
     */
    Session open() throws SQLException {
        return open(0);
    }

    /**
     * As {@link #open()}; with {@code boundSeconds > 0} the connection's network timeout is set to it plus
     * {@link QueryTimeouts#NETWORK_GRACE_MS} first, before any round trip (mssql-jdbc
     * {@code SQLServerConnection.setNetworkTimeout} sets the socket's read timeout, {@code TDSChannel.setNetworkTimeout},
     * and sends nothing), and given back by {@link Session#restoreAndClose}.
     */
    Session open(int boundSeconds) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            int networkBefore = -1;
            if (boundSeconds > 0) {
                networkBefore = c.getNetworkTimeout();
                c.setNetworkTimeout(QueryTimeouts.DIRECT, QueryTimeouts.networkTimeoutMs(boundSeconds));
            }
            String prepareMethod = PrepareMethods.forceRpc(c);
            int isolation = c.getTransactionIsolation();
            boolean autoCommit = c.getAutoCommit();
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            return new Session(c, isolation, autoCommit, prepareMethod, networkBefore);
        } catch (SQLException | RuntimeException | LinkageError e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                e.addSuppressed(ignored);
            }
            throw e;
        }
    }

    /**
     * A borrowed connection and the settings it came with. Tracks whether its transaction was ended by
     * {@link #commit} or {@link #rollback}: {@link #restoreAndClose} rolls back one that was not. Not
     * thread-safe; guard it externally.
     */
    static final class Session {
        final Connection connection;
        private final int isolation;
        private final boolean autoCommit;
        private final String prepareMethod;
        /** The network timeout the connection came with, in ms; -1 when the session set none. */
        private final int networkTimeoutMs;
        /** True once a commit or rollback returned; a session is presumed to hold work until then. */
        private boolean ended;
        private boolean rollbackFailed;

        Session(Connection connection, int isolation, boolean autoCommit, String prepareMethod) {
            this(connection, isolation, autoCommit, prepareMethod, -1);
        }

        Session(Connection connection, int isolation, boolean autoCommit, String prepareMethod, int networkTimeoutMs) {
            this.networkTimeoutMs = networkTimeoutMs;
            this.connection = connection;
            this.isolation = isolation;
            this.autoCommit = autoCommit;
            this.prepareMethod = prepareMethod;
        }

        /** Commit; only a commit that returned counts as the end of the transaction. */
        void commit() throws SQLException {
            ended = false;
            connection.commit();
            ended = true;
        }

        /** Roll back; only a rollback that returned counts as the end of the transaction. */
        void rollback() throws SQLException {
            ended = false;
            connection.rollback();
            ended = true;
        }

        void rollbackQuietly(Throwable cause) {
            try {
                rollback();
            } catch (SQLException | RuntimeException e) {
                rollbackFailed = true;
                cause.addSuppressed(e);
            }
        }

        /**
         * Give the connection back. A transaction not ended by {@link #commit}/{@link #rollback} is rolled
         * back first (restoring auto-commit would commit it); if that rollback fails, or failed before, the
         * connection is aborted (the server rolls back when the session ends) and nothing is restored.
         * Otherwise auto-commit, isolation and prepareMethod are put back as found.
         */
        void restoreAndClose() {
            if (!ended && !rollbackFailed) {
                rollbackQuietly(new SqlQueueException("rollback before giving the connection back"));
            }
            try {
                if (!ended || rollbackFailed) {
                    connection.abort(Runnable::run);
                    return;
                }
                if (autoCommit) {
                    connection.setAutoCommit(true);
                }
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    connection.setTransactionIsolation(isolation);
                }
                PrepareMethods.restore(connection, prepareMethod);
                if (networkTimeoutMs >= 0 && connection.getNetworkTimeout() != networkTimeoutMs) {
                    connection.setNetworkTimeout(QueryTimeouts.DIRECT, networkTimeoutMs);
                }
            } catch (SQLException | RuntimeException e) {
                // a broken connection cannot be restored; the pool discards it on close
            } finally {
                try {
                    connection.close();
                } catch (SQLException | RuntimeException e) {
                    // nothing more to give back
                }
            }
        }
    }

    static SqlQueueException unexpected(String what, Exception e) {
        return new SqlQueueException(what + " failed: " + e.getMessage(), e);
    }
}
