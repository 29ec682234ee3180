package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ctrl-C in the middle of a case: the kit runs in a child JVM ({@code KitMain}), the test waits until
 * the running case's tables exist, sends SIGINT with {@code kill -INT} (or SIGTERM), and checks that the
 * shutdown hook dropped every prefix the run used, that the report and the console summary say the run was
 * interrupted and by which signal, and that the exit code is 130 (143 for SIGTERM).
 */
@DisabledOnOs(OS.WINDOWS)
class KitInterruptTest {
    @ParameterizedTest
    @ValueSource(strings = {"postgresql:INT", "mariadb:INT", "postgresql:TERM"})
    void aSignalMidRunLeavesNoKitObjectsAndTheReportSaysSo(String backendAndSignal, @TempDir Path dir) throws Exception {
        String backend = backendAndSignal.split(":")[0];
        String signal = backendAndSignal.split(":")[1];
        String url = KitDatabases.url(backend);
        String user = KitDatabases.user(backend);
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path log = dir.resolve("child.out");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-cp", cp, "dev.sqlqueue.conformance.kit.KitMain",
                "--url", url, "--user", user, "--password", "", "--mode", "lease", "--cases", "C10",
                "--report", dir.resolve("report").toString()));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            // wait until C10 has created its tables: the ledger holds the probe's prefix, then C10's
            String casePrefix = null;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < until && child.isAlive()) {
                List<String> prefixes = KitDatabases.ledger(dir.resolve("report"));
                if (prefixes.size() >= 2) {
                    String p = prefixes.get(1);
                    if (!KitDatabases.objectsOf(List.of(p), url, user, "").isEmpty()) {
                        casePrefix = p;
                        break;
                    }
                }
                Thread.sleep(100);
            }
            if (casePrefix == null) {
                fail("the child never created C10's tables; its output:\n" + Files.readString(log));
            }
            Thread.sleep(1500); // mid-case: C10 is enqueueing and consuming
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the child ends after SIG" + signal);
            String out = Files.readString(log);
            assertEquals(signal.equals("INT") ? 130 : 143, child.exitValue(), out);
            String md = Files.readString(dir.resolve("report/conformance.md"));
            assertTrue(md.contains("| interrupted | yes, by SIG" + signal + ": the cases after it were skipped |"), md);
            assertTrue(md.contains("(interrupted by SIG" + signal + ")"), "the result row says so: " + md);
            assertTrue(out.contains("run interrupted by SIG" + signal), out);
            assertTrue(out.contains("conformance kit interrupted"), out);
            assertTrue(out.contains("objects left behind: none"), out);
            List<String> prefixes = KitDatabases.ledger(dir.resolve("report"));
            assertTrue(prefixes.contains(casePrefix));
            assertEquals(List.of(), KitDatabases.objectsOf(prefixes, url, user, ""),
                    "kit objects left after SIGINT; child output:\n" + out);
        } finally {
            child.destroyForcibly();
        }
    }
}
