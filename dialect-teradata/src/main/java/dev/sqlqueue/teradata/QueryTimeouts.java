package dev.sqlqueue.teradata;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;

/**
 * The bound on the claim's peek and on the outcome writes of {@link TeradataClaims#finish} (issue 20):
 * {@link Statement#setQueryTimeout} derived from the claim's lease, in whole seconds rounded up, at least
 * 1: the peek, the lease the claim asks for; each write, what is left of it. The consume itself is
 * bounded by {@link WaitGate} (it may wait in the delay state by design).
 *
 * <p>Open point: what the Teradata JDBC Driver throws when a query timeout runs out is not in its
 * reference. A 2008 report on the Teradata community forum ("SQLException error codes", for an old
 * com.ncr driver) saw error 802 (socket timeout, the session then unusable) and error 751 ("The
 * statement has been canceled by another thread"). The backend maps a {@link SQLTimeoutException} (the
 * JDBC type for an expired query timeout) to {@link StatementTimeout}; any other error of a timed-out
 * request keeps its ordinary mapping (connection loss, or a plain failure), and in every case the claim's
 * transaction is rolled back explicitly. Nothing here has run against Teradata. Stateless.
 */
final class QueryTimeouts {
    private QueryTimeouts() {
    }

    /** A statement stopped by its query timeout. */
    static final class StatementTimeout extends SQLTimeoutException {
        StatementTimeout(String name, String sql, int seconds, SQLException cause) {
            super("statement " + name + " timed out after " + seconds + " s (its query timeout, derived from the lease): "
                    + (sql.length() > 300 ? sql.substring(0, 300) + "…" : sql), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    /** Whole seconds, rounded up, at least 1. */
    static int seconds(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (millis + 999) / 1000));
    }

    /** What is left until {@code deadlineNanos} ({@link System#nanoTime}), in seconds, at least 1. */
    static int remaining(long deadlineNanos) {
        return seconds(Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000));
    }

    /** The statement work to bound. */
    interface Call<T> {
        T run() throws SQLException;
    }

    /**
     * Runs {@code call} with {@code st}'s query timeout set to {@code seconds} (0: none).
     *
     * @throws StatementTimeout when the driver reported the timeout as {@link SQLTimeoutException}
     */
    static <T> T run(Statement st, String name, String sql, int seconds, Call<T> call) throws SQLException {
        st.setQueryTimeout(seconds);
        try {
            return call.run();
        } catch (SQLTimeoutException e) {
            if (e instanceof StatementTimeout || seconds == 0) {
                throw e;
            }
            throw new StatementTimeout(name, sql, seconds, e);
        }
    }
}
