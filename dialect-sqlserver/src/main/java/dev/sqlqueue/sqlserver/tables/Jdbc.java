package dev.sqlqueue.sqlserver.tables;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/** Small JDBC helpers shared by the backend's classes. Stateless and thread-safe. */
public final class Jdbc {
    private Jdbc() {
    }

    /**
     * Bind {@code values} to positions 1..n.
     *
     * @param c an open connection; the statement runs on it and it stays open
     * @param sql the T-SQL text, with {@code ?} parameters
     * @param values the parameters, bound to positions 1..n in order
     * @return the statement, which the caller closes
     * @throws SQLException if preparing or binding fails (the statement is then closed)
     */
    public static PreparedStatement prepare(Connection c, String sql, Object... values) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        try {
            for (int i = 0; i < values.length; i++) {
                Object v = values[i];
                int pos = i + 1;
                if (v instanceof Long l) {
                    ps.setLong(pos, l);
                } else if (v instanceof Integer n) {
                    ps.setInt(pos, n);
                } else if (v instanceof String s) {
                    ps.setNString(pos, s);
                } else if (v instanceof byte[] b) {
                    ps.setBytes(pos, b);
                } else {
                    ps.setObject(pos, v);
                }
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /**
     * Run a statement ending in {@code SELECT @@ROWCOUNT} and return that count.
     *
     * @param c an open connection; the statement runs on it and it stays open
     * @param sql the T-SQL text, with {@code ?} parameters
     * @param values the parameters, bound to positions 1..n in order
     * @return the count, or 0 when the statement gave no row
     * @throws SQLException if the statement fails
     */
    public static long count(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, values); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * Whole seconds of a delay, as DATEADD(second, ...) takes them.
     *
     * @param d the delay, zero or more
     * @return the whole seconds (the sub-second part is dropped)
     */
    public static int seconds(Duration d) {
        return (int) d.getSeconds();
    }

    /**
     * The milliseconds of a delay below one second, as DATEADD(millisecond, ...) takes them.
     *
     * @param d the delay, zero or more
     * @return the milliseconds of a delay below one second, as DATEADD(millisecond, ...) takes them
     */
    public static int millisPart(Duration d) {
        return d.getNano() / 1_000_000;
    }
}
