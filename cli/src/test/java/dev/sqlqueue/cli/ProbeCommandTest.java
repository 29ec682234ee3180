package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code sqlqueue probe}: the errors a user can meet before any experiment runs. */
class ProbeCommandTest {
    @Test
    void aBackendWithoutProbesIsAUsageError() {
        Cli.Run run = Cli.raw("probe", "--backend", "h2", "--url", "jdbc:h2:mem:probe");
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertTrue(run.err().contains("has no probes"), run::toString);
        assertEquals("", run.out(), run::toString);
    }

    @Test
    void anUnknownBackendIsAUsageError() {
        Cli.Run run = Cli.raw("probe", "--backend", "nosuch", "--url", "jdbc:h2:mem:probe");
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertTrue(run.err().contains("unknown backend 'nosuch'"), run::toString);
    }
}
