package dev.sqlqueue.teradata;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;

/**
 * Moves zone-less {@code TIMESTAMP(6)} values (QITS, {@code enqueued_at}, {@code dead_at}) as text, so a
 * value never passes through the JVM's time zone (review finding 9). The statements read such a column as
 * {@link TeradataStatements#timestampText} and bind it with {@link TeradataStatements#TIMESTAMP_PARAMETER},
 * both in the FORMAT {@value TeradataStatements#TIMESTAMP_FORMAT}. Every JDBC route in the pinned driver
 * goes through the JVM zone (terajdbc 20.00.00.51, read with {@code javap}): {@code getTimestamp}, with or
 * without a Calendar, builds a lenient {@code GregorianCalendar} in the JVM's default zone
 * ({@code TDResultSet.convertObjectToDateTimeValue}); {@code getObject(i, LocalDateTime.class)} and
 * {@code getString} go through it; {@code setObject(i, LocalDateTime)} is {@code setTimestamp(Timestamp
 * .valueOf(value))} and {@code setTimestamp} sends {@code Timestamp.toString()}
 * ({@code TDPreparedStatement}). So a wall-clock time in a daylight-saving gap of the JVM zone (possible
 * when the session zone differs) came back an hour later. Stateless and thread-safe.
 */
final class JdbcTime {
    /** How values are written: {@code YYYY-MM-DD HH:MI:SS.ffffff}, as the FORMAT above. */
    private static final DateTimeFormatter WRITE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
    /** How values are read: the same, with 0 to 9 fraction digits. */
    private static final DateTimeFormatter READ = new DateTimeFormatterBuilder().appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true).optionalEnd().toFormatter();

    private JdbcTime() {
    }

    /** The column (a {@link TeradataStatements#timestampText} expression) as a wall-clock time, or null. */
    static LocalDateTime get(ResultSet rs, int column) throws SQLException {
        return get(rs.getString(column));
    }

    /** A wall-clock time from its text, or null. */
    static LocalDateTime get(String text) {
        return text == null ? null : LocalDateTime.parse(text.strip(), READ);
    }

    /** Binds a wall-clock time to a {@link TeradataStatements#TIMESTAMP_PARAMETER}. */
    static void set(PreparedStatement ps, int index, LocalDateTime value) throws SQLException {
        ps.setString(index, text(value));
    }

    /** A wall-clock time as the statements write it. */
    static String text(LocalDateTime value) {
        return WRITE.format(value);
    }

    /** The instant of a wall-clock time read in the JVM's zone (what {@code getTimestamp} gave before). */
    static java.time.Instant instant(LocalDateTime t) {
        return t.atZone(ZoneId.systemDefault()).toInstant();
    }
}
