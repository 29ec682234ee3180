package dev.sqlqueue.teradata;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Borrows connections with auto-commit off and gives them back as they came; runs a unit of work as one
 * transaction, retrying the whole transaction with exponential back-off and jitter when Teradata reports
 * a retryable error (the server has then rolled the transaction back). Thread-safe.
 */
final class Sessions {
    /** A unit of work on one connection; it commits itself. */
    interface Work<T> {
        T run(Session s) throws SQLException;
    }

    /** One borrowed connection. Not thread-safe: one thread (or one claim, under its lock) at a time. */
    static final class Session implements AutoCloseable {
        private final Connection connection;
        private final boolean autoCommitWas;
        private boolean kept;

        Session(Connection connection, boolean autoCommitWas) {
            this.connection = connection;
            this.autoCommitWas = autoCommitWas;
        }

        Connection connection() {
            return connection;
        }

        /** Keep the connection open after {@link Sessions#run} returns (an open claim owns it). */
        void keep() {
            kept = true;
        }

        /** Rolls back; false if that failed (the session is then taken as lost). */
        boolean rollbackQuietly() {
            try {
                connection.rollback();
                return true;
            } catch (SQLException e) {
                return false;
            }
        }

        /** Restores auto-commit and closes (returns to the pool). */
        @Override
        public void close() {
            try {
                if (autoCommitWas) {
                    connection.setAutoCommit(true);
                }
            } catch (SQLException ignored) {
                // the connection is closed below either way
            } finally {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // nothing left to do
                }
            }
        }
    }

    private final DataSource dataSource;
    private final TeradataOptions options;
    private final Consumer<Connection> evict;
    private volatile boolean closed;

    /**
     * @param evict takes a borrowed connection out of the backend's own pool (HikariCP's
     *     {@code evictConnection}), or null when the pool is the caller's
     */
    Sessions(DataSource dataSource, TeradataOptions options, Consumer<Connection> evict) {
        this.dataSource = dataSource;
        this.options = options;
        this.evict = evict;
    }

    /**
     * A connection with auto-commit off.
     *
     * @throws TransientBackendException if no connection can be had
     */
    Session open() {
        Connection c;
        try {
            c = dataSource.getConnection();
        } catch (SQLException e) {
            throw new TransientBackendException("cannot connect to Teradata: " + e.getMessage(), e);
        }
        try {
            boolean was = c.getAutoCommit();
            if (was) {
                c.setAutoCommit(false);
            }
            return new Session(c, was);
        } catch (SQLException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already failing
            }
            throw TeradataErrors.translate("setting auto-commit off", e, true);
        }
    }

    /**
     * Runs {@code work} in a transaction on a fresh session, rolling back on error and retrying up to
     * {@link TeradataOptions#retryAttempts()} times on a retryable error number.
     *
     * @throws TransientBackendException on connection loss or when the retries run out
     * @throws SqlQueueException on any other database error (the transaction was rolled back)
     */
    <T> T run(String what, Work<T> work) {
        for (int attempt = 0; ; attempt++) {
            Session s = open();
            try {
                return work.run(s);
            } catch (SQLException e) {
                boolean lost = !s.rollbackQuietly() || !valid(s.connection());
                if (!lost && !closed && TeradataErrors.retryable(e) && attempt < options.retryAttempts()) {
                    pause(attempt);
                    continue;
                }
                throw TeradataErrors.translate(what, e, lost);
            } catch (RuntimeException e) {
                s.rollbackQuietly();
                throw e;
            } finally {
                if (!s.kept) {
                    s.close();
                }
            }
        }
    }

    /**
     * Whether the connection still works after an error: not closed and {@code isValid(2)}. A driver
     * without {@code isValid} is taken at its {@code isClosed}.
     */
    static boolean valid(Connection c) {
        try {
            if (c.isClosed()) {
                return false;
            }
        } catch (SQLException e) {
            return false;
        }
        try {
            return c.isValid(2);
        } catch (java.sql.SQLFeatureNotSupportedException e) {
            return true;
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Makes sure a borrowed connection is never used again; the caller still closes it (returns it). The
     * backend's own pool evicts it. For a caller's pool, the driver's connection under any wrappers (JDBC
     * {@code unwrap}) is closed, so the pool finds it closed. {@code Connection.abort} is no help: in the
     * pinned driver it does nothing (terajdbc 20.00.00.51, {@code GenericTeradataConnection.abort} is an
     * empty method). Closing logs the session off, which rolls its open transaction back.
     */
    void discard(Connection c) {
        if (evict != null) {
            try {
                evict.accept(c);
                return;
            } catch (RuntimeException notOurs) {
                // not a connection of the own pool: close the driver's connection below
            }
        }
        try {
            Connection inner = innermost(c);
            if (inner != c) {
                inner.close();
            }
        } catch (SQLException | RuntimeException ignored) {
            // closed already, or the wrapper hides it: the caller's close below is all that is left
        }
    }

    /** The connection under every wrapper that answers {@code unwrap(Connection.class)}. */
    static Connection innermost(Connection c) throws SQLException {
        Connection at = c;
        for (int depth = 0; depth < 8 && at.isWrapperFor(Connection.class); depth++) {
            Connection next = at.unwrap(Connection.class);
            if (next == null || next == at) {
                break;
            }
            at = next;
        }
        return at;
    }

    private void pause(int attempt) {
        long base = options.retryBackoffMillis() << Math.min(attempt, 16);
        long sleep = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        try {
            Thread.sleep(sleep);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SqlQueueException("interrupted while backing off", e);
        }
    }

    void close() {
        closed = true;
    }
}
