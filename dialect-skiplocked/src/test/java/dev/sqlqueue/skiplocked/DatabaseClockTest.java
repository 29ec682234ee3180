package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The database clock expressions give absolute epoch milliseconds whatever the session's time zone and
 * across a daylight-saving change. The JVM of these tests runs in Pacific/Kiritimati (UTC+14), the
 * servers in UTC, and the sessions below in America/New_York.
 */
class DatabaseClockTest {
    private static long single(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void postgresClockIsAbsoluteAcrossTheNewYorkFallBack() throws SQLException {
        PostgresConformanceTest.PostgresTarget t = new PostgresConformanceTest.PostgresTarget();
        try (Connection c = DriverManager.getConnection(t.url, t.user, t.password); Statement st = c.createStatement()) {
            st.execute("SET TIME ZONE 'America/New_York'");
            String expr = SkipLockedDialect.POSTGRES.nowMillis("x_");
            // 2026-11-01 01:30 EDT and 01:30 EST are one hour apart on the wall clock's repeated hour
            long beforeChange = single(c, "SELECT " + expr.replace("statement_timestamp()", "TIMESTAMPTZ '2026-11-01 05:30:00+00'"));
            long afterChange = single(c, "SELECT " + expr.replace("statement_timestamp()", "TIMESTAMPTZ '2026-11-01 06:30:00+00'"));
            assertEquals(3_600_000L, afterChange - beforeChange, "one real hour, though the New York wall clock repeats 01:30");
            assertEquals(1793511000000L, beforeChange, "epoch ms of 2026-11-01T05:30:00Z");
            long now = single(c, "SELECT " + expr);
            assertTrue(Math.abs(now - System.currentTimeMillis()) < 60_000, "the server clock in epoch ms, whatever the zone");
        }
    }

    @Test
    void mariadbClockIgnoresTheSessionTimeZone() throws SQLException {
        MariaDbConformanceTest.MariaDbTarget t = new MariaDbConformanceTest.MariaDbTarget();
        try (Connection c = DriverManager.getConnection(t.url, t.user, t.password); Statement st = c.createStatement()) {
            String expr = SkipLockedDialect.MARIADB.nowMillis("x_");
            st.execute("SET time_zone = '+00:00'");
            long utc = single(c, "SELECT " + expr);
            st.execute("SET time_zone = '-05:00'");
            long shifted = single(c, "SELECT " + expr);
            assertTrue(Math.abs(shifted - utc) < 5_000, "the session zone does not move the clock: " + utc + " vs " + shifted);
            long fixed = single(c, "SELECT " + expr.replace("UTC_TIMESTAMP(6)", "TIMESTAMP'2026-11-01 05:30:00'"));
            assertEquals(1793511000000L, fixed, "epoch ms of 2026-11-01T05:30:00Z");
        }
    }
}
