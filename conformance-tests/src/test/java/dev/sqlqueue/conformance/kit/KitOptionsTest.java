package dev.sqlqueue.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class KitOptionsTest {
    @Test
    void parsesEveryOptionOfTheCommandLine() {
        KitOptions o = KitMain.parse(new String[] {"--url", "jdbc:h2:mem:x", "--user", "sa", "--password", "",
                "--backend", "h2", "--mode", "Lease", "--cases", "c01, C07", "--report", "out",
                "--driver-path", "a.jar" + java.io.File.pathSeparator + "lib", "--allow-kill",
                "--restart-command", "systemctl stop db", "--start-command", "systemctl start db",
                "--option", "teradata.database=queues", "--option", "ordering=a=b", "--case-timeout", "90"});
        assertEquals("jdbc:h2:mem:x", o.url());
        assertEquals("sa", o.user());
        assertEquals("h2", o.backend());
        assertEquals(EnumSet.of(ClaimMode.LEASE), o.requestedModes());
        assertEquals(List.of("C01", "C07"), o.cases());
        assertEquals(Path.of("out"), o.reportDir());
        assertEquals(List.of(Path.of("a.jar"), Path.of("lib")), o.driverPath());
        assertTrue(o.allowKill());
        assertEquals("systemctl stop db", o.restartCommand());
        assertEquals(java.util.Map.of("teradata.database", "queues", "ordering", "a=b"), o.backendOptions());
        assertEquals(java.time.Duration.ofSeconds(90), o.caseTimeout());
        assertEquals(java.time.Duration.ofMinutes(10), KitOptions.builder().url("jdbc:h2:mem:x").caseTimeout("10m").build().caseTimeout());
    }

    @Test
    void defaultsToEveryModeAndEveryCase() {
        KitOptions o = KitOptions.builder().url("jdbc:h2:mem:x").build();
        assertEquals(EnumSet.allOf(ClaimMode.class), o.requestedModes());
        assertTrue(o.cases().isEmpty());
        assertEquals(Path.of("conformance-report"), o.reportDir());
        assertEquals(java.time.Duration.ofSeconds(600), o.caseTimeout());
    }

    @Test
    void rejectsBadInputNamingTheRule() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().url("postgres://x"))
                .getMessage().startsWith("url:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().modes("both"))
                .getMessage().startsWith("mode:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().cases("C1;DROP"))
                .getMessage().startsWith("cases:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().url("jdbc:h2:mem:x")
                .restartCommand("stop").build()).getMessage().startsWith("restart:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().option("=x"))
                .getMessage().startsWith("option:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().caseTimeout("0"))
                .getMessage().startsWith("case-timeout:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().caseTimeout("5 hours"))
                .getMessage().startsWith("case-timeout:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitOptions.builder().build())
                .getMessage().startsWith("url:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitMain.parse(new String[] {"--url"}))
                .getMessage().contains("needs a value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KitMain.parse(new String[] {"--bogus", "1"}))
                .getMessage().contains("unknown option"));
    }
}
