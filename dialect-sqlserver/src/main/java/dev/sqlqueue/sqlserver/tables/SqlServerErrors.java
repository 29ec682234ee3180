package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.sqlserver.SqlServerFailures;
import java.sql.SQLException;

/**
 * How SQL Server errors become sqlqueue errors. Error numbers are {@link SQLException#getErrorCode()}
 * as mssql-jdbc reports them (the server's message number, manual: "Database engine events and
 * errors").
 *
 * <ul>
 *   <li>A claim or settle statement stopped by its lease-derived query timeout
 *       ({@link QueryTimeouts.StatementTimeout}): {@link TransientBackendException} naming the statement,
 *       never retried.</li>
 *   <li>1205 (transaction chosen as deadlock victim) and 1222 (lock request time-out period exceeded):
 *       {@link #isRetryable}; retried inside the library, then {@link TransientBackendException}.</li>
 *   <li>650 (READPAST only in READ COMMITTED or REPEATABLE READ): {@link SqlQueueException} naming the
 *       isolation setting.</li>
 *   <li>A broken or refused connection (SQLState class {@code 08}, the JDBC connection exception
 *       types, 233 no process on the other end of the pipe, 596 session in the kill state, 10053 and
 *       10054 connection aborted or reset): {@link TransientBackendException}.</li>
 *   <li>Azure SQL Database failover, reconfiguration and throttling (40613, 40197, 40501, 49918-49920,
 *       4221, 10928, 10929): {@link TransientBackendException}; not retried inside the library (the
 *       database may stay unavailable for seconds; the caller's or the worker's back-off applies).</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class SqlServerErrors {
    /**
     * 1205: the transaction was chosen as a deadlock victim and rolled back; retried.
     */
    public static final int DEADLOCK_VICTIM = 1205;
    /**
     * 1222: a lock request timed out ({@code SET LOCK_TIMEOUT}); retried.
     */
    public static final int LOCK_TIMEOUT = 1222;
    /**
     * 650: READPAST is refused in this isolation level (the session is not at READ COMMITTED or REPEATABLE READ).
     */
    public static final int READPAST_ISOLATION = 650;
    /** Invalid object name: the table does not exist (SQL Server). */
    public static final int INVALID_OBJECT_NAME = 208;
    /**
     * The number Babelfish for PostgreSQL 4.3 gives the errors it maps to no SQL Server number, a missing
     * table among them (message {@code relation "..." does not exist}, PostgreSQL's text), instead of 208.
     */
    public static final int BABELFISH_UNMAPPED = 33557097;
    private static final java.util.regex.Pattern BABELFISH_MISSING_RELATION =
            java.util.regex.Pattern.compile("relation \".*\" does not exist");

    private SqlServerErrors() {
    }

    /**
     * True when the statement failed because a table it names does not exist: error 208 on SQL Server, error
     * {@link #BABELFISH_UNMAPPED} with PostgreSQL's "relation ... does not exist" on Babelfish.
     *
     * @param e the error the driver threw
     * @return true when the statement failed because a table it names does not exist
     */
    public static boolean isMissingObject(SQLException e) {
        return e.getErrorCode() == INVALID_OBJECT_NAME || (e.getErrorCode() == BABELFISH_UNMAPPED && e.getMessage() != null
                && BABELFISH_MISSING_RELATION.matcher(e.getMessage()).find());
    }

    /**
     * True when the chain holds error 1205 or 1222.
     *
     * @param e the error, whose whole {@link java.sql.SQLException#getNextException()} chain is examined
     * @return true when the chain holds error 1205 or 1222
     */
    public static boolean isRetryable(SQLException e) {
        if (e instanceof QueryTimeouts.StatementTimeout) {
            return false; // the lease-derived bound: retrying would only wait as long again
        }
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x.getErrorCode() == DEADLOCK_VICTIM || x.getErrorCode() == LOCK_TIMEOUT) {
                return true;
            }
            if (x.getNextException() == x) {
                break;
            }
        }
        return false;
    }

    /**
     * True when the connection broke or could not be opened ({@link SqlServerFailures#isConnectionFailure}).
     *
     * @param e the error the driver threw
     * @return true when the connection broke or could not be opened ({@link SqlServerFailures#isConnectionFailure})
     */
    public static boolean isConnectionFailure(SQLException e) {
        return SqlServerFailures.isConnectionFailure(e);
    }

    /**
     * True when the chain holds one of the Azure SQL transient errors ({@link SqlServerFailures#AZURE_TRANSIENT}).
     *
     * @param e the error the driver threw
     * @return true when the chain holds one of the Azure SQL transient errors ({@link SqlServerFailures#AZURE_TRANSIENT})
     */
    public static boolean isAzureTransient(SQLException e) {
        return SqlServerFailures.isAzureTransient(e);
    }

    /**
     * The sqlqueue exception for a failed operation; {@code what} names it ("claim from queue 'jobs'").
     *
     * @param what what was being done, for the message
     * @param e the error the driver threw
     * @return the sqlqueue exception for a failed operation
     */
    public static SqlQueueException map(String what, SQLException e) {
        if (e instanceof QueryTimeouts.StatementTimeout) {
            return new TransientBackendException(what + " failed: " + e.getMessage(), e);
        }
        if (e.getErrorCode() == READPAST_ISOLATION) {
            return new SqlQueueException(what + " failed with SQL Server error 650: READPAST needs the READ COMMITTED"
                    + " or REPEATABLE READ isolation level, but the session ran under SNAPSHOT or SERIALIZABLE."
                    + " The adapter sets READ COMMITTED through JDBC; an isolation level set by raw SQL"
                    + " (SET TRANSACTION ISOLATION LEVEL) on a pooled connection bypasses that. Reset the pool's"
                    + " isolation setting (transactionIsolation) to READ COMMITTED. " + e.getMessage(), e);
        }
        if (isRetryable(e)) {
            return new TransientBackendException(what + " failed with SQL Server error " + e.getErrorCode()
                    + (e.getErrorCode() == DEADLOCK_VICTIM ? " (deadlock victim)" : " (lock time-out)")
                    + ": " + e.getMessage(), e);
        }
        if (isAzureTransient(e)) {
            return new TransientBackendException(what + " failed with Azure SQL transient error " + e.getErrorCode()
                    + " (failover, reconfiguration or throttling; retry after a pause): " + e.getMessage(), e);
        }
        if (isConnectionFailure(e)) {
            return new TransientBackendException(what + " failed: the SQL Server connection is unavailable ("
                    + e.getSQLState() + "/" + e.getErrorCode() + "): " + e.getMessage(), e);
        }
        return new SqlQueueException(what + " failed with SQL Server error " + e.getErrorCode() + " ("
                + e.getSQLState() + "): " + e.getMessage(), e);
    }
}
