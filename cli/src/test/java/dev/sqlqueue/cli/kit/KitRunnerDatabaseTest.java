package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.KitOptions;
import dev.sqlqueue.conformance.kit.KitRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kit run in-process against the project's PostgreSQL and MariaDB and an H2 file database: the
 * cases pass, the report has a row per case and mode, and afterwards the catalog holds no object of
 * any prefix the run used.
 */
class KitRunnerDatabaseTest {
    private static String run(KitOptions.Builder b, Path dir, int expectedRc) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(buf, true, StandardCharsets.UTF_8);
        int rc = KitRunner.run(b.reportDir(dir).console(console).errors(console).build());
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(expectedRc, rc, out);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void aRunLeavesNoKitObjects(String backend, @TempDir Path dir) throws Exception {
        String url = KitDatabases.url(backend);
        String out = run(KitOptions.builder().url(url).user(KitDatabases.user(backend)).password("")
                .cases("C01,C12,C13,C16,C20"), dir, KitRunner.OK);

        List<String> prefixes = KitDatabases.ledger(dir);
        // the probe, then C01, C12, C13, C16, C20 in two modes
        assertEquals(11, prefixes.size(), "prefixes recorded: " + prefixes);
        assertEquals(List.of(), KitDatabases.objectsOf(prefixes, url, KitDatabases.user(backend), ""),
                "kit objects left in information_schema");

        String md = Files.readString(dir.resolve("conformance.md"));
        assertTrue(md.contains("| backend | " + backend + " |"), md);
        assertTrue(md.contains("| C01 round trip: enqueue, consume, ack | lease | passed |"), md);
        assertTrue(md.contains("| C01 round trip: enqueue, consume, ack | transactional | passed |"), md);
        assertTrue(md.contains("| C13 crash in lease mode | transactional | skipped |"), md);
        assertTrue(md.contains("| objects left behind | none (11 table prefixes used, all dropped) |"), md);
        // the raw-row hook ships with the kit for the built-in backends: C16 runs, never skips
        assertTrue(md.contains("| C16 garbage rows | lease | passed |"), md);
        assertTrue(md.contains("| C16 garbage rows | transactional | passed |"), md);
        // the header states the JVM, the OS and the server settings that change the results
        assertTrue(md.contains("| Java | " + System.getProperty("java.version")), md);
        assertTrue(md.contains("| OS | " + System.getProperty("os.name")), md);
        assertTrue(md.contains("| server settings | isolation "), md);
        assertTrue(md.contains(backend.equals("postgresql") ? "autovacuum=" : "innodb_lock_wait_timeout="), md);
        assertTrue(Files.list(dir).anyMatch(p -> p.getFileName().toString().startsWith("TEST-")
                && p.toString().endsWith(".xml")), "JUnit XML beside the report");
        assertTrue(out.contains("objects left behind: none"), out);
        if (backend.equals("postgresql")) {
            // the kit's own kill hook (pg_terminate_backend by application_name) makes C13 run, not skip
            assertTrue(md.contains("| C13 crash in lease mode | lease | passed |"), md);
        }
    }

    @Test
    void aRunOnAnH2FileDatabaseLeavesNothing(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        String out = run(KitOptions.builder().url(url).user("sa").password("").modes("lease").cases("C01,C13,C16,C19"),
                dir.resolve("report"), KitRunner.OK);
        List<String> prefixes = KitDatabases.ledger(dir.resolve("report"));
        assertEquals(5, prefixes.size(), "probe + 4 cases in one mode: " + prefixes);
        assertEquals(List.of(), KitDatabases.ktObjects(url, "sa", ""));
        String md = Files.readString(dir.resolve("report/conformance.md"));
        assertTrue(md.contains("| C13 crash in lease mode | lease | passed |"), md);
        assertTrue(md.contains("| claim modes | lease |"), md);
        // the raw-row hook the kit ships for H2 (a KitHooks extension found through ServiceLoader)
        assertTrue(out.contains("fault hooks: dev.sqlqueue.conformance.kit.BuiltInKitHooks$H2"), out);
        assertTrue(md.contains("| C16 garbage rows | lease | passed |"), md);
    }

    @Test
    void withoutRestartCommandsTheOutageCaseIsSkippedWithTheReason(@TempDir Path dir) throws Exception {
        String out = run(KitOptions.builder().url(KitDatabases.PG_URL).user("postgres").password("").modes("lease")
                .cases("C17"), dir, KitRunner.OK);
        String md = Files.readString(dir.resolve("conformance.md"));
        assertTrue(md.contains("| C17 database outage | lease | skipped |"), md);
        assertTrue(md.contains("needs --restart-command and --start-command"), md);
        assertTrue(out.contains("It creates tables named kt<random>_*"), out);
    }

    @Test
    void anUnreachableDatabaseIsASetupErrorAndCreatesNothing(@TempDir Path dir) {
        String out = run(KitOptions.builder().url("jdbc:postgresql://127.0.0.1:1/none").user("x").password("y"),
                dir, KitRunner.SETUP_ERROR);
        assertTrue(out.contains("cannot open backend postgresql"), out);
    }

    @Test
    void aFailingCaseMakesTheExitCodeNonZero(@TempDir Path dir) throws Exception {
        // C17 with a stop command that fails: the case fails, the run reports it and still cleans up
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath();
        String out = run(KitOptions.builder().url(url).user("sa").password("").modes("lease").cases("C17")
                .restartCommand("exit 3").startCommand("true"), dir.resolve("report"), KitRunner.FAILURES);
        String md = Files.readString(dir.resolve("report/conformance.md"));
        assertTrue(md.contains("| C17 database outage | lease | **failed** |"), md);
        assertTrue(out.contains("objects left behind: none"), out);
        assertEquals(List.of(), KitDatabases.ktObjects(url, "sa", ""));
    }
}
