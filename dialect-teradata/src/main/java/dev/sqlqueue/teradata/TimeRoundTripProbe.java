package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;

/**
 * V11 (re-review section 4, item 6): a QITS written as the backend writes it, read back as the backend
 * reads it (text) and by {@code getObject(i, LocalDateTime.class)}. The value is a wall-clock time in the
 * next daylight-saving gap of the JVM's zone when it has one, where the driver's route through the JVM
 * zone shifts it.
 */
final class TimeRoundTripProbe implements Probe {
    @Override
    public String id() {
        return "V11";
    }

    @Override
    public String question() {
        return "Does a QITS written and read as text come back unchanged, also in a daylight-saving gap of the JVM zone?";
    }

    @Override
    public String documented() {
        return "yes as text; terajdbc's getObject(LocalDateTime) goes through getTimestamp in the JVM zone and shifts a"
                + " wall clock in a gap (TDResultSet.convertObjectToDateTimeValue)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (c, n) -> {
            ZoneId jvm = ZoneId.systemDefault();
            LocalDateTime written = gapWallClock(jvm);
            String where = written == null ? "no daylight-saving gap in the JVM zone " + jvm + " within two years"
                    : "a wall clock in the JVM zone's (" + jvm + ") gap";
            if (written == null) {
                written = LocalDateTime.of(2026, 1, 2, 3, 4, 5, 123_456_000);
            }
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.restore(n))) {
                JdbcTime.set(ps, 1, written);
                ps.setLong(2, 1);
                ps.setInt(3, 0);
                JdbcTime.set(ps, 4, written);
                ps.setString(5, null);
                ps.setString(6, "");
                ps.setBytes(7, new byte[0]);
                ps.executeUpdate();
            } catch (java.sql.SQLException e) {
                return ProbeResult.inconclusive(where + ": the INSERT of '" + JdbcTime.text(written) + "' failed: "
                        + TeradataProbes.describe((Throwable) e));
            }
            String text;
            LocalDateTime object;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.qitsBothWays(n))) {
                rs.next();
                text = rs.getString(1);
                object = rs.getObject(2, LocalDateTime.class);
            }
            c.rollback();
            LocalDateTime back = JdbcTime.get(text);
            String observed = where + ": wrote '" + JdbcTime.text(written) + "', read as text '" + text.strip()
                    + "', by getObject(LocalDateTime) " + object;
            return written.equals(back) ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        });
    }

    /** Half an hour into the next gap of {@code zone} within two years, or null. */
    static LocalDateTime gapWallClock(ZoneId zone) {
        Instant at = Instant.now();
        Instant end = at.plusSeconds(2L * 366 * 86_400);
        ZoneOffsetTransition t;
        while ((t = zone.getRules().nextTransition(at)) != null && t.getInstant().isBefore(end)) {
            if (t.isGap()) {
                return t.getDateTimeBefore().plusMinutes(30);
            }
            at = t.getInstant();
        }
        return null;
    }
}
