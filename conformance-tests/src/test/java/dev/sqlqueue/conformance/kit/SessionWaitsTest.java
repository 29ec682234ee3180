package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which views the time-out report asks, per database. PostgreSQL, MariaDB and H2 are asked for real by
 * CaseTimeoutDatabaseTest (module cli); the SQL Server statements are pinned here only, since no SQL
 * Server exists on the project's machines.
 */
class SessionWaitsTest {
    private static List<String> statements(String url) {
        return new SessionWaits(url, "u", "p").statements();
    }

    @Test
    void sqlServerAsksTheRequestAndLockViewsOfTheCasesSessions() {
        List<String> sql = statements("jdbc:sqlserver://h:1433;databaseName=d");
        assertEquals(2, sql.size());
        assertTrue(sql.get(0).contains("FROM sys.dm_exec_requests r JOIN sys.dm_exec_sessions s ON s.session_id = r.session_id")
                && sql.get(0).contains("r.wait_type") && sql.get(0).contains("r.blocking_session_id")
                && sql.get(0).contains("WHERE r.session_id <> @@SPID AND (s.program_name = ? OR CHARINDEX(?, t.text) > 0)"),
                sql.get(0));
        assertTrue(sql.get(1).contains("FROM sys.dm_tran_locks l") && sql.get(1).contains("l.request_status = 'WAIT'"), sql.get(1));
    }

    @Test
    void eachDatabaseHasItsViewsAndUnknownOnesNone() {
        assertTrue(statements("jdbc:postgresql://h/d").get(0).contains("FROM pg_stat_activity a"));
        assertTrue(statements("jdbc:mariadb://h/d").get(0).contains("FROM information_schema.PROCESSLIST"));
        assertTrue(statements("jdbc:h2:mem:x").get(0).contains("FROM INFORMATION_SCHEMA.SESSIONS"));
        assertEquals(List.of(), statements("jdbc:teradata://h/DATABASE=q"));
        assertEquals("the kit has no query for session waits on this database",
                new SessionWaits("jdbc:teradata://h/DATABASE=q", "u", "p").describe(List.of("kt1_")));
    }
}
