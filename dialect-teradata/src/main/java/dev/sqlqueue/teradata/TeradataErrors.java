package dev.sqlqueue.teradata;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * Sorts Teradata errors into retry with back-off, surface, and connection lost. Teradata error numbers
 * arrive as {@link SQLException#getErrorCode()} (Teradata JDBC Driver User Guide, "SQLException").
 * Numbers and meanings from Analytics Database Messages (B035-1096). Stateless and thread-safe.
 */
public final class TeradataErrors {
    /** 2631: transaction aborted by a deadlock; the whole transaction was rolled back. */
    public static final int DEADLOCK = 2631;
    /** 2639: too many simultaneous transactions; retryable. */
    public static final int TOO_MANY_TRANSACTIONS = 2639;
    /** 2641: the request was aborted and may be submitted again; retryable. */
    public static final int RETRY_LATER = 2641;
    /** 3111: the dispatcher timed out the transaction. */
    public static final int DISPATCHER_TIMEOUT = 3111;
    /** 3120: the request was aborted by recovery. */
    public static final int ABORTED_BY_RECOVERY = 3120;
    /** 3128: more than 20% of a PE's sessions are in the delay state of SELECT AND CONSUME. */
    public static final int CONSUME_LIMIT = 3128;
    /** 2826: the request completed but its output was lost: the outcome is unknown, not retried blindly. */
    public static final int OUTPUT_LOST = 2826;
    /** 3803: table already exists (a concurrent create won). */
    public static final int TABLE_EXISTS = 3803;
    /** Duplicate unique prime key (a deduplication key already taken); an error: in ANSI mode it undoes the request only. */
    public static final int DUPLICATE_UNIQUE_KEY = 2801;
    /** 3807: object does not exist (a concurrent drop won). */
    public static final int NO_SUCH_OBJECT = 3807;
    /** 3933: the table's possible row length is over the limit (64,256 bytes without 1 MB rows). */
    public static final int ROW_TOO_LONG = 3933;

    private static final Set<Integer> RETRYABLE = Set.of(DEADLOCK, TOO_MANY_TRANSACTIONS, RETRY_LATER,
            DISPATCHER_TIMEOUT, ABORTED_BY_RECOVERY, CONSUME_LIMIT);

    private TeradataErrors() {
    }

    /**
     * True for the error numbers that retrying after a pause may cure (the transaction was rolled back).
     *
     * @param e the error, whose whole {@link SQLException#getNextException()} chain is examined
     * @return true for 2631, 2639, 2641, 3111, 3120 and 3128; false for the lease-derived statement timeout
     */
    public static boolean retryable(SQLException e) {
        if (e instanceof QueryTimeouts.StatementTimeout) {
            return false; // the lease-derived bound: retrying would only wait as long again
        }
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (RETRYABLE.contains(x.getErrorCode())) {
                return true;
            }
        }
        return false;
    }

    /**
     * True when the exception says the session is gone: SQLState class 08 (terajdbc 20.00.00.51 gives 08S01
     * to socket failures and to a connection it closed itself: TJ164, TJ300, TJ782, TJ783 in
     * {@code jdbc_4.util.Errors}), or one of JDBC's connection exception types. Callers also treat a
     * connection that fails {@code isValid} after an error as lost.
     *
     * @param e the error, whose whole {@link SQLException#getNextException()} chain is examined
     * @return true when any exception of the chain says the session is gone
     */
    public static boolean connectionLost(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            String state = x.getSQLState();
            if ((state != null && state.startsWith("08")) || x instanceof SQLNonTransientConnectionException
                    || x instanceof SQLTransientConnectionException || x instanceof SQLRecoverableException) {
                return true;
            }
        }
        return false;
    }

    /**
     * 3110: the database's number for a transaction aborted by the user. The pinned driver never reports it:
     * {@code jdbc_4.util.ErrorAnalyzer.analyzeError} of terajdbc 20.00.00.51 replaces it with
     * {@link #CANCELLED}. Kept for other clients of the same database.
     */
    public static final int ABORTED_BY_USER = 3110;
    /**
     * 751 (terajdbc TJ057, SQLState HY000, "The statement has been canceled by another thread"): a request
     * ended by {@code Statement.cancel()}, either before it was sent (the transaction untouched) or by an
     * Abort the database answered (the transaction rolled back). terajdbc 20.00.00.51,
     * {@code ErrorAnalyzer.analyzeError} and {@code TDStatement.checkAborted}.
     */
    public static final int CANCELLED = 751;
    /**
     * 802 (terajdbc TJ159, SQLState HY000, "Timeout occurred for ..."): a query timeout ran out; the driver
     * sent an Abort, which the database answered by rolling the whole transaction back ("Application-
     * initiated, asynchronous aborts also cause full transaction rollback": SQL Request and Transaction
     * Processing, "ANSI Mode Transactions"). terajdbc 20.00.00.51, {@code StatementReceiveState.action};
     * the driver never throws {@link java.sql.SQLTimeoutException}.
     */
    public static final int QUERY_TIMEOUT = 802;
    /**
     * 1475 and 1476 (terajdbc TJ782 and TJ783, SQLState 08S01): the driver's Abort (after a query timeout,
     * or after {@code Statement.cancel()}) went unanswered for another query timeout, so the driver closed
     * the connection ({@code StatementReceiveState.action}). This is 1475, the one after a query timeout.
     */
    public static final int ABORT_UNANSWERED = 1475;
    /** 1476 (terajdbc TJ783): as {@link #ABORT_UNANSWERED}, for the Abort sent by {@code Statement.cancel()}. */
    public static final int CANCEL_ABORT_UNANSWERED = 1476;
    /** 6706: the string contains an untranslatable character (a code point the session's repertoire lacks). */
    public static final int UNTRANSLATABLE = 6706;

    private static final Set<Integer> ENDS_TRANSACTION = Set.of(ABORTED_BY_USER, CANCELLED, QUERY_TIMEOUT,
            ABORT_UNANSWERED, CANCEL_ABORT_UNANSWERED);

    /**
     * True when the error ended the whole transaction, not only the failed request: the retryable numbers
     * (the server rolled back), a cancel or query timeout (751, 802, 3110), an unanswered Abort (1475,
     * 1476), or a lost session. In ANSI mode any other error rolls back only its own request (SQL Request
     * and Transaction Processing, "ANSI Mode Transactions").
     *
     * @param e the error, whose whole {@link SQLException#getNextException()} chain is examined
     * @return true when the transaction is over (rolled back or lost); false when only the request failed
     */
    public static boolean endsTransaction(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (ENDS_TRANSACTION.contains(x.getErrorCode()) || x instanceof java.sql.SQLTimeoutException) {
                return true;
            }
        }
        return retryable(e) || connectionLost(e);
    }

    /**
     * True only for an error that refused the request's text (6706) and left the transaction open: the one
     * case in which a write may be tried again with other text. Any other error is not retried, since
     * writing again after an error that ended the transaction would run in a new transaction (review N1).
     *
     * @param e the error (only its own number is read, not the chain's)
     * @return true for error 6706 that did not end the transaction
     */
    public static boolean untranslatable(SQLException e) {
        return e.getErrorCode() == UNTRANSLATABLE && !endsTransaction(e);
    }

    /**
     * The exception for a failed COMMIT: when the session was lost during it, or the error is 2826, the
     * COMMIT may have completed, so the outcome is unknown; any other error number rolled the
     * transaction back.
     *
     * @param what what was being committed, for the message (for example {@code "ack"})
     * @param e the error the COMMIT raised
     * @return a {@link SqlQueueException} saying the outcome is unknown (session lost, 2826 or no error
     *     number), otherwise {@link #translate(String, SQLException, boolean) translate}'s exception for a
     *     rolled-back transaction
     */
    public static SqlQueueException commitUnknown(String what, SQLException e) {
        String base = what + " failed: [" + e.getErrorCode() + "/" + e.getSQLState() + "] " + e.getMessage();
        if (connectionLost(e) || e.getErrorCode() == OUTPUT_LOST || e.getErrorCode() == 0) {
            return new SqlQueueException(base + " (the outcome is unknown: the COMMIT may have completed, so the claim's"
                    + " acks, nacks and dead letters may have taken effect, or it may have been rolled back; check the queue"
                    + " before enqueueing its messages again)", e);
        }
        return translate(what + " (rolled back: its messages are back in the queue with unchanged attempt counts)", e, false);
    }

    /**
     * The error number.
     *
     * @param e the error
     * @return its Teradata error number ({@link SQLException#getErrorCode()}), or 0 when none is set
     */
    public static int code(SQLException e) {
        return e.getErrorCode();
    }

    /**
     * The exception to throw for a failed operation.
     *
     * @param what what was being done, for the message
     * @param e the error the operation raised
     * @param lost whether the connection was found dead after the error
     * @return {@link TransientBackendException} for connection loss and retryable numbers (after the
     *     retries ran out); {@link SqlQueueException} otherwise, with a note for 2826, 3807 and 3933
     */
    public static SqlQueueException translate(String what, SQLException e, boolean lost) {
        if (e instanceof QueryTimeouts.StatementTimeout) {
            // the lease-derived bound (issue 20): transient, never retried
            return new dev.sqlqueue.TransientBackendException(what + " failed: " + e.getMessage(), e);
        }
        String base = what + " failed: [" + e.getErrorCode() + "/" + e.getSQLState() + "] " + e.getMessage();
        if (lost || connectionLost(e)) {
            return new TransientBackendException(base + " (connection lost; an open transaction is rolled back by"
                    + " the server and its consumed messages are back in the queue)", e);
        }
        if (retryable(e)) {
            return new TransientBackendException(base + " (retryable; retries exhausted)", e);
        }
        if (e.getErrorCode() == OUTPUT_LOST) {
            return new SqlQueueException(base + " (error 2826: the request completed but its response was lost;"
                    + " the outcome is unknown and the request is not retried)", e);
        }
        if (e.getErrorCode() == NO_SUCH_OBJECT) {
            return new SqlQueueException(base + " (error 3807: a table of the queue is missing, for example its"
                    + " dead-letter table; createQueue creates the missing tables)", e);
        }
        if (e.getErrorCode() == ROW_TOO_LONG) {
            return new SqlQueueException(base + " (error 3933: the queue tables need the 1 MB Perm and Response"
                    + " Rows feature; see docs/backends/teradata.md)", e);
        }
        return new SqlQueueException(base, e);
    }
}
