package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.sqlserver.NetworkTimeouts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Minimal JDBC helpers: prepare, bind in order, run, read every row as an {@code Object[]}. Parameters
 * are bound with {@code setObject}, typed nulls ({@link Null}) with {@code setNull}. A result is read up
 * to the first result set of the batch (statements run with {@code SET NOCOUNT ON}). Stateless.
 */
public final class Sql {
    private Sql() {
    }

    /**
     * The query timeout of the statements this thread runs through {@link #update} and {@link #query}
     * inside a {@link #bound} scope (issue 20): {@code name} names them in a time-out's message. Outside a
     * scope no timeout is set.
     */
    private record Bound(String name, int seconds) {
    }

    private static final ThreadLocal<Bound> BOUND = new ThreadLocal<>();

    /** A {@link #bound} scope; closing it restores the enclosing one. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Statements of this thread get a query timeout of {@code seconds} until the scope is closed.
     *
     * @param name what is bounded, for the time-out's message
     * @param seconds the query timeout, in whole seconds, 1 or more
     * @return the scope; close it to restore the previous bound
     */
    public static Scope bound(String name, int seconds) {
        Bound before = BOUND.get();
        BOUND.set(new Bound(name, seconds));
        return () -> {
            if (before == null) {
                BOUND.remove();
            } else {
                BOUND.set(before);
            }
        };
    }

    /**
     * Statements of this thread get no query timeout until the scope is closed: for work a bounded statement
     * triggers on another connection (a settlement's resend filling the dialog pool), which is not that
     * statement and must not be cancelled by its lease (re-review N6).
     *
     * @return the scope; close it to restore the previous bound
     */
    public static Scope unbounded() {
        Bound before = BOUND.get();
        BOUND.remove();
        return () -> {
            if (before != null) {
                BOUND.set(before);
            }
        };
    }

    /**
     * Whole seconds, rounded up, at least 1.
     *
     * @param millis a duration in milliseconds, 0 or more
     * @return the seconds, 1..{@link Integer#MAX_VALUE}
     */
    public static int seconds(long millis) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, (millis + 999) / 1000));
    }

    /** A statement stopped by its query timeout (mssql-jdbc throws {@link java.sql.SQLTimeoutException}). */
    static final class StatementTimeout extends java.sql.SQLTimeoutException {
        StatementTimeout(String name, String sql, int seconds, SQLException cause) {
            super("statement " + name + " timed out after " + seconds + " s (its query timeout, derived from the lease): "
                    + (sql.length() > 300 ? sql.substring(0, 300) + "…" : sql), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    private static void limit(PreparedStatement ps) throws SQLException {
        Bound b = BOUND.get();
        if (b != null) {
            ps.setQueryTimeout(b.seconds());
        }
    }

    /** Milliseconds a connection's network timeout adds to a bounded statement's query timeout ({@link NetworkTimeouts}). */
    public static final int NETWORK_GRACE_MS = NetworkTimeouts.GRACE_MS;

    /** The network timeout each connection had before a bounded statement raised it; put back by {@link #restoreNetwork}. */
    private static final java.util.Map<Connection, Integer> NETWORK_BEFORE =
            java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    /**
     * Inside a {@link #bound} scope: the connection's network timeout is raised to the bound plus
     * {@link #NETWORK_GRACE_MS} before the statement (mssql-jdbc {@code SQLServerConnection.setNetworkTimeout} sets
     * the socket's read timeout and sends nothing); never lowered. The value it had is kept for
     * {@link #restoreNetwork}.
     */
    private static void limitNetwork(Connection c) throws SQLException {
        Bound b = BOUND.get();
        if (b == null) {
            return;
        }
        int ms = NetworkTimeouts.forBound(b.seconds());
        int now = c.getNetworkTimeout();
        if (now == 0 || now < ms) {
            NETWORK_BEFORE.putIfAbsent(c, now);
            c.setNetworkTimeout(Runnable::run, ms);
        }
    }

    /**
     * Puts back the network timeout a bounded statement raised; nothing on a closed connection. Never throws.
     *
     * @param c an open connection; the statement runs on it and it stays open
     */
    public static void restoreNetwork(Connection c) {
        Integer before = NETWORK_BEFORE.remove(c);
        if (before == null) {
            return;
        }
        try {
            if (!c.isClosed()) {
                c.setNetworkTimeout(Runnable::run, before);
            }
        } catch (SQLException ignored) {
            // the connection is closed next; a pool validates it
        }
    }

    private static SQLException timedOut(SQLException e, String sql) {
        Bound b = BOUND.get();
        return b != null && e instanceof java.sql.SQLTimeoutException && !(e instanceof StatementTimeout)
                ? new StatementTimeout(b.name(), sql, b.seconds(), e) : e;
    }

    /** A null of a {@link java.sql.Types} type. */
    public record Null(int sqlType) {
    }

    /**
     * Binds parameters to positions 1..n: a {@link Null} as a typed null, other values with {@code setObject}.
     *
     * @param ps the statement
     * @param params the parameters, in order
     * @throws SQLException if the driver refuses a value
     */
    public static void bind(PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p instanceof Null n) {
                ps.setNull(i + 1, n.sqlType());
            } else {
                ps.setObject(i + 1, p);
            }
        }
    }

    /**
     * Runs a statement that returns no rows; the update count of the first result, or -1. Every later
     * result of a multi-statement batch is read too, so that an error raised by a later statement of
     * the batch (a failed {@code ROLLBACK TRANSACTION} to a savepoint, a {@code THROW}) is thrown here
     * and not lost when the statement closes.
     *
     * @param c an open connection; the statement runs on it and it stays open
     * @param sql the T-SQL text, with {@code ?} parameters
     * @param params the parameters, bound to positions 1..n in order
     * @return the update count of the first result, or -1
     * @throws SQLException if a statement of the batch fails (a time-out as {@link java.sql.SQLTimeoutException} when bounded)
     */
    public static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            limit(ps);
            limitNetwork(c);
            int first = ps.executeUpdate();
            while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
                // drain: errors of later statements surface while reading their results
            }
            return first;
        } catch (SQLException e) {
            throw timedOut(e, sql);
        }
    }

    /**
     * Runs a statement and reads the rows of its first result set.
     *
     * @param c an open connection; the statement runs on it and it stays open
     * @param sql the T-SQL text, with {@code ?} parameters
     * @param params the parameters, bound to positions 1..n in order
     * @return the rows, one array of column values each (JDBC {@code getObject}); empty when none
     * @throws SQLException if the statement fails (a time-out as {@link java.sql.SQLTimeoutException} when bounded)
     */
    public static List<Object[]> query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            limit(ps);
            limitNetwork(c);
            boolean isResult;
            try {
                isResult = ps.execute();
            } catch (SQLException e) {
                throw timedOut(e, sql);
            }
            while (!isResult) {
                if (ps.getUpdateCount() == -1) {
                    return List.of();
                }
                isResult = ps.getMoreResults();
            }
            try (ResultSet rs = ps.getResultSet()) {
                ResultSetMetaData md = rs.getMetaData();
                int cols = md.getColumnCount();
                List<Object[]> rows = new ArrayList<>();
                while (rs.next()) {
                    Object[] row = new Object[cols];
                    for (int i = 0; i < cols; i++) {
                        row[i] = rs.getObject(i + 1);
                    }
                    rows.add(row);
                }
                return rows;
            }
        }
    }

    /**
     * A numeric column value as a long.
     *
     * @param o the value, a {@link Number} or null
     * @return its long value, 0 for null
     * @throws ClassCastException if {@code o} is not a number
     */
    public static long asLong(Object o) {
        return o == null ? 0L : ((Number) o).longValue();
    }

    /**
     * A uniqueidentifier column value as a UUID.
     *
     * @param o the value; its text must be a UUID
     * @return the UUID
     * @throws IllegalArgumentException if the text is not a UUID
     */
    public static java.util.UUID asUuid(Object o) {
        return java.util.UUID.fromString(String.valueOf(o));
    }

    /** The savepoint {@link #begin} takes to open a transaction. */
    public static final String BEGIN = "sqlq_begin";

    /**
     * Begins a transaction on {@code c}, turning auto-commit off first if it is on. mssql-jdbc's
     * {@code setAutoCommit(false)} only sends {@code set implicit_transactions on}, and in that mode only
     * the statements on the documented list open a transaction ("SET IMPLICIT_TRANSACTIONS
     * (Transact-SQL)", Remarks): SET, DECLARE, EXEC, SEND, RECEIVE, BEGIN DIALOG and END CONVERSATION are
     * not on it, so without this they run and commit on their own and a later {@code commit()} ({@code IF
     * @@TRANCOUNT > 0 COMMIT TRAN}) does nothing. {@code setSavepoint} makes the driver send {@code IF
     * @@TRANCOUNT = 0 BEGIN BEGIN TRAN IF @@TRANCOUNT = 2 COMMIT TRAN END SAVE TRAN ...}, which opens
     * exactly one level, so the driver's {@code commit()} and {@code rollback()} end it. Call it again
     * after each commit that is followed by more work on the connection.
     *
     * @param c an open connection, with no transaction open
     * @throws SQLException if the driver fails
     */
    public static void begin(Connection c) throws SQLException {
        if (c.getAutoCommit()) {
            c.setAutoCommit(false);
        }
        c.setSavepoint(BEGIN);
    }

    /**
     * Rolls back and closes, keeping the first error. Never throws.
     *
     * @param c an open connection; the statement runs on it and it stays open
     */
    public static void abandon(Connection c) {
        if (c == null) {
            return;
        }
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is closed below; the server rolls back what is left
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing more to do
        }
    }
}
