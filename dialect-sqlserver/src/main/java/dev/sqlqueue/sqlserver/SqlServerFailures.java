package dev.sqlqueue.sqlserver;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * What a SQL Server error means for a retry, shared by both SQL Server backends (the queue tables' {@code
 * SqlServerErrors} and Service Broker's {@code BrokerErrors}). Error numbers are {@link SQLException#getErrorCode()}
 * as mssql-jdbc reports them (the server's message number, Microsoft Learn: "Database engine events and errors").
 * Stateless and thread-safe.
 */
public final class SqlServerFailures {
    /** Transaction chosen as deadlock victim. */
    public static final int DEADLOCK_VICTIM = 1205;
    /** Lock request time-out period exceeded. */
    public static final int LOCK_TIMEOUT = 1222;
    /**
     * Connection errors that arrive as server messages: 233 no process on the other end of the pipe, 596 session in
     * the kill state, 10053 and 10054 connection aborted or reset.
     */
    static final Set<Integer> CONNECTION_ERRORS = Set.of(233, 596, 10053, 10054);
    /**
     * Azure SQL Database failover, reconfiguration and throttling errors (Microsoft Learn, "SQL error codes for SQL
     * Database client applications", sections "Transient fault error codes" and "Resource governance errors"): 40613
     * database not currently available, 40197 service error processing the request (upgrade, hardware failure,
     * failover), 40501 service busy, 49918/49919/49920 cannot process the request (not enough resources, too many
     * operations), 4221 login to a read-secondary failed waiting for row versioning, 10928/10929 a resource limit
     * reached / server too busy.
     */
    public static final Set<Integer> AZURE_TRANSIENT = Set.of(40613, 40197, 40501, 49918, 49919, 49920, 4221, 10928, 10929);

    private SqlServerFailures() {
    }

    /**
     * True when the error or one chained to it ({@link SQLException#getNextException}) has this number.
     *
     * @param e the error, whose whole {@link java.sql.SQLException#getNextException()} chain is examined
     * @param number a SQL Server error number, for example 1205
     * @return true when the error or one chained to it ({@link SQLException#getNextException}) has this number
     */
    public static boolean has(SQLException e, int number) {
        for (SQLException x = e; x != null; x = x.getNextException() == x ? null : x.getNextException()) {
            if (x.getErrorCode() == number) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when the chain holds 1205 or 1222: the transaction was rolled back, a retry starts clean.
     *
     * @param e the error the driver threw
     * @return true when the chain holds 1205 or 1222
     */
    public static boolean isDeadlockOrLockTimeout(SQLException e) {
        return has(e, DEADLOCK_VICTIM) || has(e, LOCK_TIMEOUT);
    }

    /**
     * True when the connection broke or could not be opened: SQLState class {@code 08}, the JDBC connection
     * exception types, or one of {@link #CONNECTION_ERRORS}, anywhere in the cause chain.
     *
     * @param e the error the driver threw
     * @return true when the connection broke or could not be opened
     */
    public static boolean isConnectionFailure(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException s) {
                if (s.getSQLState() != null && s.getSQLState().startsWith("08")) {
                    return true;
                }
                if (CONNECTION_ERRORS.contains(s.getErrorCode())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * True when the chain holds one of the Azure SQL transient errors ({@link #AZURE_TRANSIENT}).
     *
     * @param e the error, whose whole {@link java.sql.SQLException#getNextException()} chain is examined
     * @return true when the chain holds one of the Azure SQL transient errors ({@link #AZURE_TRANSIENT})
     */
    public static boolean isAzureTransient(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException() == x ? null : x.getNextException()) {
            if (AZURE_TRANSIENT.contains(x.getErrorCode())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True for anything worth a later retry: a deadlock or lock time-out, a broken connection, an Azure transient error.
     *
     * @param e the error the driver threw
     * @return true for anything worth a later retry
     */
    public static boolean isTransient(SQLException e) {
        return isDeadlockOrLockTimeout(e) || isConnectionFailure(e) || isAzureTransient(e);
    }
}
