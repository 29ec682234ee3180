package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KitUrlsTest {
    @Test
    void tagsEachCaseSessionsWhereTheDriverCan() {
        assertEquals("jdbc:postgresql://h/db?ApplicationName=sqlqueue-kt1_", KitUrls.tagged("jdbc:postgresql://h/db", "kt1_"));
        assertEquals("jdbc:postgresql://h/db?ssl=true&ApplicationName=sqlqueue-kt1_",
                KitUrls.tagged("jdbc:postgresql://h/db?ssl=true", "kt1_"));
        assertEquals("jdbc:mariadb://h/db?connectionAttributes=program_name:sqlqueue-kt1_",
                KitUrls.tagged("jdbc:mariadb://h/db", "kt1_"));
        assertEquals("jdbc:sqlserver://h;databaseName=q;applicationName=sqlqueue-kt1_",
                KitUrls.tagged("jdbc:sqlserver://h;databaseName=q", "kt1_"));
        assertEquals("jdbc:h2:mem:x", KitUrls.tagged("jdbc:h2:mem:x", "kt1_"));
        assertEquals("jdbc:teradata://h/TMODE=ANSI", KitUrls.tagged("jdbc:teradata://h/TMODE=ANSI", "kt1_"));
    }

    @Test
    void leavesAUserChosenApplicationNameAloneAndSaysKillingIsThenUnavailable() {
        String url = "jdbc:postgresql://h/db?ApplicationName=mine";
        assertEquals(url, KitUrls.tagged(url, "kt1_"));
        JdbcKillHooks hooks = new JdbcKillHooks(url, "u", "p", "postgresql", false);
        assertTrue(hooks.unavailable().orElseThrow().contains("application name"));
    }

    @Test
    void aBackendWithoutAKillHookSaysWhatItNeeds() {
        JdbcKillHooks hooks = new JdbcKillHooks("jdbc:teradata://h/TMODE=ANSI", "u", "p", "teradata", true);
        assertEquals("killing sessions needs --allow-kill and a backend hook: the kit has no session-kill hook for backend teradata",
                hooks.unavailable().orElseThrow());
        JdbcKillHooks h2server = new JdbcKillHooks("jdbc:h2:tcp://h/x", "u", "p", "h2", false);
        assertTrue(h2server.unavailable().orElseThrow().startsWith("killing sessions needs --allow-kill"));
        assertTrue(new JdbcKillHooks("jdbc:h2:tcp://h/x", "u", "p", "h2", true).unavailable().isEmpty());
    }
}
