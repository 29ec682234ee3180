package dev.sqlqueue.teradata;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneId;

/**
 * Moves zone-less {@code TIMESTAMP(6)} values (QITS, {@code enqueued_at}) as {@link LocalDateTime}
 * (JDBC 4.2 {@code getObject}/{@code setObject}), so a value never passes through the JVM's time zone: a
 * {@link java.sql.Timestamp} round trip shifts a wall-clock time that falls in a daylight-saving gap of
 * the JVM zone by an hour (review finding 9). A driver without JDBC 4.2 support for these calls
 * (reported as {@link SQLFeatureNotSupportedException}) gets {@code java.sql.Timestamp}. Stateless and
 * thread-safe.
 */
final class JdbcTime {
    private JdbcTime() {
    }

    /** The column as a wall-clock time, or null. */
    static LocalDateTime get(ResultSet rs, int column) throws SQLException {
        try {
            return rs.getObject(column, LocalDateTime.class);
        } catch (SQLFeatureNotSupportedException | AbstractMethodError old) {
            Timestamp t = rs.getTimestamp(column);
            return t == null ? null : t.toLocalDateTime();
        }
    }

    /** Binds a wall-clock time. */
    static void set(PreparedStatement ps, int index, LocalDateTime value) throws SQLException {
        try {
            ps.setObject(index, value);
        } catch (SQLFeatureNotSupportedException | AbstractMethodError old) {
            ps.setTimestamp(index, Timestamp.valueOf(value));
        }
    }

    /** The instant of a wall-clock time read in the JVM's zone (what {@code getTimestamp} gave before). */
    static java.time.Instant instant(LocalDateTime t) {
        return t.atZone(ZoneId.systemDefault()).toInstant();
    }
}
