package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sqlqueue conformance}: a bad option is a usage error (exit 2) with one clear line and nothing run;
 * {@code --case-timeout} takes the CLI's durations within the kit's 1 s to 24 h.
 */
class ConformanceOptionsCommandTest {
    private static Cli.Run conformance(Path dir, String... args) {
        String[] all = new String[args.length + 6];
        all[0] = "conformance";
        all[1] = "--url";
        all[2] = "jdbc:h2:file:" + dir.resolve("db");
        all[3] = "--report";
        all[4] = dir.resolve("report").toString();
        all[5] = "--user=sa";
        System.arraycopy(args, 0, all, 6, args.length);
        return Cli.raw(all);
    }

    private static void assertUsageError(Cli.Run run, String expected, Path dir) {
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.err().startsWith(ErrorHandler.PREFIX), run::toString);
        assertTrue(run.err().contains(expected), run::toString);
        assertFalse(run.err().contains("unexpected"), run::toString);
        assertFalse(Files.exists(dir.resolve("report")), "nothing ran");
    }

    @Test
    void anUnknownModeIsAUsageError(@TempDir Path dir) {
        assertUsageError(conformance(dir, "--mode", "bogus"), "mode: must be lease, transactional or all, was 'bogus'", dir);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "C01,,C02", "C01,", ",C01"})
    void anEmptyCaseListOrItemIsAUsageError(String cases, @TempDir Path dir) {
        assertUsageError(conformance(dir, "--cases", cases), "cases: ", dir);
    }

    @ParameterizedTest
    @ValueSource(strings = {"25h", "0s", "500ms", "1d1s", "soon"})
    void aCaseTimeoutOutsideOneSecondToADayIsAUsageError(String limit, @TempDir Path dir) {
        assertUsageError(conformance(dir, "--case-timeout", limit), "case-timeout", dir);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1h=3600", "PT2H=7200", "1d=86400", "1m30s=90", "90=90", "10m=600"})
    void aCaseTimeoutTakesTheCliDurations(String limitAndSeconds, @TempDir Path dir) throws Exception {
        String[] p = limitAndSeconds.split("=");
        Cli.Run run = conformance(dir, "--password", "", "--mode", "lease", "--cases", "C01", "--case-timeout", p[0]);
        assertEquals(ExitCodes.OK, run.code(), run::toString);
        String md = Files.readString(dir.resolve("report/conformance.md"));
        assertTrue(md.contains("| case time limit | " + p[1] + " s (--case-timeout) |"), md);
    }
}
