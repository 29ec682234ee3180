package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sqlqueue conformance --case-timeout}: checked before anything runs, and shown in the report header. */
class CaseTimeoutCommandTest {
    @Test
    void aBadLimitIsAUsageErrorNamingTheRule(@TempDir Path dir) {
        Cli.Run run = Cli.raw("conformance", "--url", "jdbc:h2:file:" + dir.resolve("db"), "--case-timeout", "0",
                "--report", dir.resolve("report").toString());
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertTrue(run.err().contains("case-timeout: must be whole seconds from 1 s to 24 h"), run::toString);
        assertTrue(!Files.exists(dir.resolve("report")), "nothing ran");
    }

    @Test
    void theLimitIsPrintedInTheReportHeader(@TempDir Path dir) throws Exception {
        Cli.Run run = Cli.raw("conformance", "--url", "jdbc:h2:file:" + dir.resolve("db"), "--user", "sa", "--password", "",
                "--mode", "lease", "--cases", "C01", "--case-timeout", "2m", "--report", dir.resolve("report").toString());
        assertEquals(ExitCodes.OK, run.code(), run::toString);
        String md = Files.readString(dir.resolve("report/conformance.md"));
        assertTrue(md.contains("| case time limit | 120 s (--case-timeout) |"), md);
        assertTrue(md.contains("| C01 round trip: enqueue, consume, ack | lease | passed |"), md);
    }
}
