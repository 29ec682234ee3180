package dev.sqlqueue.skiplocked;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/** Sorts JDBC failures into what the core understands. */
final class JdbcErrors {
    private JdbcErrors() {
    }

    /**
     * Deadlock victim or lock time-out: the statement can be retried at once in a new transaction.
     * SQLState 40001 (serialization failure, MariaDB error 1213), 40P01 (PostgreSQL deadlock),
     * MariaDB 1205 (lock wait timeout), H2 40001/HY008-free lock time-out 50200.
     */
    static boolean isRetryable(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213
                || e.getErrorCode() == 1205 || "HYT00".equals(state) || e.getErrorCode() == 50200;
    }

    /**
     * The server refused the configuration, which no retry changes: SQLState class 28 (invalid authorization
     * specification: an unknown role or user, a wrong password; PostgreSQL 28000/28P01, MariaDB 1045), 3D000
     * (PostgreSQL: the database does not exist), MariaDB 1049 (unknown database) and 1044 (access to the
     * database denied).
     */
    static boolean isConfigurationRefused(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                int code = s.getErrorCode();
                if (state != null && (state.startsWith("28") || state.equals("3D000"))
                        || code == 1045 || code == 1049 || code == 1044) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The connection or the server went away (SQLState class 08, shutdown, killed session...). */
    static boolean isConnectionLoss(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException || t instanceof java.io.IOException) {
                return true;
            }
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                int code = s.getErrorCode();
                if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                        || state.equals("57P03") || state.equals("70100"))) {
                    return true;
                }
                // MariaDB: 1927 connection killed, 2006 server gone, 2013 lost connection;
                // H2: 90067 connection broken, 90121 database closed, 90098 database closed by another process
                if (code == 1927 || code == 2006 || code == 2013 || code == 90067 || code == 90121 || code == 90098) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * PostgreSQL SQLState 26000 (invalid_sql_statement_name: "prepared statement "S_1" does not exist") or
     * 42P05 (duplicate_prepared_statement: "... already exists") on one of pgjdbc's named statements
     * ({@code S_<n>}): the driver prepared it on one server connection and a transaction pooler ran the next
     * transaction on another. Never retried: it recurs on every connection.
     */
    static boolean isPreparedStatementLost(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && ("26000".equals(s.getSQLState()) || "42P05".equals(s.getSQLState()))
                    && s.getMessage() != null && s.getMessage().contains("\"S_")) {
                return true;
            }
        }
        return false;
    }

    /** What to tell a user whose statements fail as {@link #isPreparedStatementLost} says. */
    static final String POOLER_HINT = " (a transaction pooler such as pgbouncer with pool_mode = transaction seems to"
            + " run this connection's transactions on different server connections: set option "
            + PostgresOptions.TRANSACTION_POOLER + "=true, see docs/backends/postgresql.md)";

    static SqlQueueException translate(String what, SQLException e) {
        if (isPreparedStatementLost(e)) {
            return new SqlQueueException(what + " failed: " + e.getMessage() + POOLER_HINT, e);
        }
        if (e instanceof QueryTimeouts.StatementTimeout) {
            return new TransientBackendException(what + " failed: " + e.getMessage(), e);
        }
        if (isConnectionLoss(e) || isRetryable(e) || H2StaleSlots.matches(e)) {
            return new TransientBackendException(what + " failed: " + e.getMessage(), e);
        }
        return new SqlQueueException(what + " failed: " + e.getMessage(), e);
    }
}
