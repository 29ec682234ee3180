package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.GregorianCalendar;

/**
 * The driver half of the model: what the Teradata JDBC Driver the root POM pins
 * ({@code com.teradata.jdbc:terajdbc} {@value #VERSION}, from Maven Central) does, read from its bytecode
 * with {@code javap -c -p}. Each fact names the class and method it was read from (classes under
 * {@code com.teradata.jdbc}); {@code DriverPinTest} fails when the driver on the class path is another
 * version, so the facts are read again. Error numbers and SQLStates come from
 * {@code jdbc_4.util.Errors.<clinit>} ({@code putDriverError(TJnnn, state, code)}), message texts from
 * {@code resource.Messages}. Nothing here ran against a Teradata system.
 */
public final class Terajdbc {
    /** The driver version these facts were read from ({@code com.teradata.jdbc.Version} MAJOR.MINOR.MAINT.EFIX). */
    public static final String VERSION = "20.00.00.51";

    /**
     * TJ057, HY000: "The statement has been canceled by another thread". {@code jdbc_4.util.ErrorAnalyzer
     * .analyzeError} replaces the database's 3110 with it (the 3110 is not kept), and
     * {@code jdbc_4.TDStatement.checkAborted} throws it when {@code cancel()} found the statement ACTIVE.
     */
    public static final int CANCELLED = 751;
    /**
     * TJ159, HY000: "Timeout occurred for ...". {@code jdbc_4.statemachine.StatementReceiveState.action}:
     * the socket read ran past the query timeout; the driver stores this error, sends an Abort
     * ({@code setUpAbortRequest}, statement state ABORT_TIMEOUT_SENT) and throws it once the Abort is
     * answered. No class of the jar refers to {@link java.sql.SQLTimeoutException}.
     */
    public static final int TIMEOUT = 802;
    /**
     * TJ782, 08S01: the query timeout ran out a second time while waiting for the Abort's answer, so the
     * driver closed the socket ({@code StatementReceiveState.action}, state ABORT_TIMEOUT_SENT).
     */
    public static final int TIMEOUT_ABORT_UNANSWERED = 1475;
    /**
     * TJ783, 08S01: after {@code Statement.cancel()} sent an Abort, the query timeout ran out while
     * waiting for its answer, so the driver closed the socket ({@code StatementReceiveState.action},
     * state ABORT_SENT).
     */
    public static final int CANCEL_ABORT_UNANSWERED = 1476;
    /** TJ408, HY000: the connection is closed ({@code jdbc_4.TDSession.getAutoCommit}, {@code doCommit}). */
    public static final int CONNECTION_CLOSED = 1095;

    private Terajdbc() {
    }

    /** What a cancelled request throws (TJ057). */
    static SQLException cancelled() {
        return new SQLException("[Teradata JDBC Driver] [TeraJDBC " + VERSION + "] [Error 751] [SQLState HY000]"
                + " executeQuery error: The statement has been canceled by another thread", "HY000", CANCELLED);
    }

    /** What an expired query timeout throws once the driver's Abort was answered (TJ159). */
    static SQLException timedOut() {
        return new SQLException("[Teradata JDBC Driver] [TeraJDBC " + VERSION + "] [Error 802] [SQLState HY000]"
                + " Timeout occurred for Packet receive", "HY000", TIMEOUT);
    }

    /** What the driver throws after closing the socket because an Abort went unanswered (TJ782 or TJ783). */
    static SQLException abortUnanswered(boolean afterCancel) {
        int code = afterCancel ? CANCEL_ABORT_UNANSWERED : TIMEOUT_ABORT_UNANSWERED;
        String text = afterCancel
                ? "The Statement.cancel method was called while the SQL request was being executed, so an Abort Request"
                + " was sent to the Teradata Database. The query timeout expired while waiting for a response from the"
                + " Abort Request, so the connection was closed."
                : "The query timeout expired while the SQL request was being executed, so an Abort Request was sent to the"
                + " Teradata Database. The query timeout expired a second time while waiting for a response from the Abort"
                + " Request, so the connection was closed.";
        return new SQLNonTransientConnectionException("[Teradata JDBC Driver] [TeraJDBC " + VERSION + "] [Error " + code
                + "] [SQLState 08S01] " + text, "08S01", code);
    }

    /** TJ164, 08S01: "Socket communication failure" (code 804), a read on a socket that closed ({@code ErrorAnalyzer.analyzeIoError}). */
    static SQLException socketFailure() {
        return new SQLNonTransientConnectionException("[Teradata JDBC Driver] [TeraJDBC " + VERSION + "] [Error 804]"
                + " [SQLState 08S01] Socket communication failure for Packet receive", "08S01", 804);
    }

    /** Any call on a closed connection (TJ408). */
    static SQLException connectionClosed() {
        return new SQLException("[Teradata JDBC Driver] [TeraJDBC " + VERSION + "] [Error 1095] [SQLState HY000]"
                + " Connection is closed", "HY000", CONNECTION_CLOSED);
    }

    /**
     * {@code getTimestamp} of a zone-less TIMESTAMP: {@code jdbc_4.TDResultSet.convertObjectToDateTimeValue}
     * parses the value's text and builds {@code new GregorianCalendar(y, m - 1, d, h, mi, s)} in the JVM's
     * default zone (lenient), then sets the nanoseconds. A wall-clock time in a daylight-saving gap of the
     * JVM zone comes out shifted forward by the gap. A Calendar argument does not avoid this: its raw
     * offset is added to the default zone's, whose daylight-saving rules stay.
     */
    static Timestamp timestamp(LocalDateTime wall) {
        GregorianCalendar c = new GregorianCalendar(wall.getYear(), wall.getMonthValue() - 1, wall.getDayOfMonth(),
                wall.getHour(), wall.getMinute(), wall.getSecond());
        Timestamp t = new Timestamp(c.getTimeInMillis());
        t.setNanos(wall.getNano());
        return t;
    }

    /** {@code getTimestamp} of a TIMESTAMP WITH TIME ZONE: the value's offset becomes a GMT±hh:mm zone (same method). */
    static Timestamp timestamp(OffsetDateTime value) {
        return Timestamp.from(value.toInstant());
    }

    /**
     * {@code getObject(i, LocalDateTime.class)}: {@code jdbc_4.TDResultSet.getObject(int, Class)} returns
     * {@code getTimestamp(i).toLocalDateTime()}, so the value passes through the JVM zone as above.
     */
    static LocalDateTime localDateTime(Object value) {
        Timestamp t = value instanceof OffsetDateTime o ? timestamp(o) : timestamp((LocalDateTime) value);
        return t.toLocalDateTime();
    }

    /**
     * {@code getString} of a TIMESTAMP: {@code jdbc_4.TDResultSet.getString} calls {@code getObject(int)},
     * which converts a TIMESTAMP column (type 93) to {@link Timestamp} as above, then {@code toString()}.
     */
    static String string(Object value) {
        return value instanceof OffsetDateTime o ? timestamp(o).toString() : timestamp((LocalDateTime) value).toString();
    }

    /**
     * What a bound parameter becomes: {@code jdbc_4.TDPreparedStatement.setObject(int, Object)} turns a
     * {@link LocalDateTime} into {@code setTimestamp(Timestamp.valueOf(value))}; {@code setTimestamp(int,
     * Timestamp, Calendar)} sends {@code Timestamp.toString()}, the JVM-zone fields, as text. So a
     * wall-clock time in a daylight-saving gap of the JVM zone is sent shifted.
     */
    static Object bound(Object value) {
        if (value instanceof LocalDateTime l) {
            return Timestamp.valueOf(l).toLocalDateTime();
        }
        if (value instanceof Timestamp t) {
            return t.toLocalDateTime();
        }
        return value;
    }
}
