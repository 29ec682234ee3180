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
 * <p>What the pinned driver does (terajdbc 20.00.00.51, {@code jdbc_4.statemachine.StatementReceiveState
 * .action}, read with {@code javap}): when the socket read outlives the query timeout it sends an Abort
 * and reads again for another query timeout; an answered Abort ends the request with
 * {@link TeradataErrors#QUERY_TIMEOUT} (802, SQLState HY000), and the database has rolled the whole
 * transaction back (an asynchronous abort: SQL Request and Transaction Processing, "ANSI Mode
 * Transactions"); an unanswered one makes the driver close the connection (1475, 08S01). No class of
 * the driver throws {@link SQLTimeoutException}. So 802, or a {@link SQLTimeoutException} from another
 * driver, becomes {@link StatementTimeout}, which ends the transaction ({@link TeradataErrors#endsTransaction});
 * the claim's transaction is rolled back explicitly whatever happened. Nothing here has run against
 * Teradata. Stateless.
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
     * @throws StatementTimeout when the driver reported the timeout: error 802 or {@link SQLTimeoutException}
     */
    static <T> T run(Statement st, String name, String sql, int seconds, Call<T> call) throws SQLException {
        st.setQueryTimeout(seconds);
        try {
            return call.run();
        } catch (SQLException e) {
            if (e instanceof StatementTimeout || seconds == 0 || !timedOut(e)) {
                throw e;
            }
            throw new StatementTimeout(name, sql, seconds, e);
        }
    }

    /** True for what a driver throws when a query timeout ran out: 802 (terajdbc) or {@link SQLTimeoutException}. */
    static boolean timedOut(SQLException e) {
        return e instanceof SQLTimeoutException || e.getErrorCode() == TeradataErrors.QUERY_TIMEOUT;
    }
}
