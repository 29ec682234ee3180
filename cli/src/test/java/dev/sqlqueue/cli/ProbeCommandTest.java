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

    @Test
    void anUnreachableSqlServerIsAUsageErrorOnOneLineAndRunsNoProbe() {
        // port 1 on the loopback: nothing listens, the driver is refused at once
        Cli.Run run = Cli.raw("probe", "--backend", "sqlserver-broker", "--url",
                "jdbc:sqlserver://127.0.0.1:1;encrypt=false;loginTimeout=2");
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        String err = run.err().strip();
        assertTrue(err.startsWith("sqlqueue: error: cannot connect to jdbc:sqlserver://127.0.0.1:1"), run::toString);
        assertTrue(err.contains("Connection refused"), "the driver's reason is kept: " + err);
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertEquals("", run.out(), "no probe ran: " + run);
    }
}
