package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.sqlserver.SqlServerFailures;
import java.sql.SQLException;

/**
 * Maps SQL Server errors onto sqlqueue's exceptions. Error numbers from the SQL Server documentation
 * (Database engine events and errors): 1205 deadlock victim and 1222 lock request time-out, a broken
 * connection and Azure SQL's transient errors are transient ({@link SqlServerFailures}, shared with the queue
 * tables); 9617 is a disabled queue. Stateless.
 */
public final class BrokerErrors {
    /**
     * 1205: the transaction was chosen as a deadlock victim and rolled back; retryable.
     */
    public static final int DEADLOCK_VICTIM = 1205;
    /**
     * 1222: a lock request timed out ({@code SET LOCK_TIMEOUT}); retryable.
     */
    public static final int LOCK_TIMEOUT = 1222;
    /**
     * 9617: the Service Broker queue is disabled (poison message handling turned it off).
     */
    public static final int QUEUE_DISABLED = 9617;

    private BrokerErrors() {
    }

    /**
     * True if the error or one chained to it has this number.
     *
     * @param e the error, whose whole {@link java.sql.SQLException#getNextException()} chain is examined
     * @param number a SQL Server error number, for example 1205
     * @return true if the error or one chained to it has this number
     */
    public static boolean has(SQLException e, int number) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x.getErrorCode() == number) {
                return true;
            }
        }
        return false;
    }

    /**
     * True for a Service Broker conversation error (numbers 8400..8499, for example 8426 "the
     * conversation handle is not found", 8429 "the conversation endpoint is not in a valid state for
     * SEND"): the dialog is at fault and a send may be retried on another. Other errors (permissions,
     * a full log 9002/1105, a conversion) would fail on every dialog alike.
     *
     * @param e the error, whose whole {@link java.sql.SQLException#getNextException()} chain is examined
     * @return true for a Service Broker conversation error (numbers 8400..8499, for example 8426 "the conversation handle is not found", 8429 "the conversation endpoint is not in a valid state for SEND")
     */
    public static boolean isDialogError(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x.getErrorCode() >= 8400 && x.getErrorCode() <= 8499) {
                return true;
            }
        }
        return false;
    }

    /**
     * A deadlock victim or lock time-out, a broken connection (SQLState class 08, the JDBC connection exception
     * types, 233, 596, 10053, 10054) or an Azure SQL transient error: the rules of both SQL Server backends
     * ({@link SqlServerFailures#isTransient}).
     *
     * @param e the error the driver threw
     * @return a deadlock victim or lock time-out, a broken connection (SQLState class 08, the JDBC connection exception types, 233, 596, 10053, 10054) or an Azure SQL transient error
     */
    public static boolean isTransient(SQLException e) {
        return SqlServerFailures.isTransient(e);
    }

    /**
     * The exception to throw for {@code e} while doing {@code what}.
     *
     * @param e the error the driver threw
     * @param what what was being done, for the message
     * @return the exception to throw for {@code e} while doing {@code what}
     */
    public static SqlQueueException translate(SQLException e, String what) {
        if (e instanceof Sql.StatementTimeout) {
            return new TransientBackendException(what + " failed: " + e.getMessage(), e); // not retried
        }
        String msg = what + " failed: " + e.getMessage() + " (error " + e.getErrorCode() + ", SQLState " + e.getSQLState() + ")";
        if (isTransient(e)) {
            return new TransientBackendException(msg, e);
        }
        return new SqlQueueException(msg, e);
    }
}
