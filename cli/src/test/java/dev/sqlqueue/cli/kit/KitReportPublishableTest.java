package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.KitOptions;
import dev.sqlqueue.conformance.kit.KitRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit's report directory is evidence a user publishes: no password, host name, OS user name or class
 * path in any file; the header names the sqlqueue version and commit; each case row says what it
 * checks. An unknown case id is a setup error (exit 2) reported on the error stream.
 */
class KitReportPublishableTest {
    private static final String PASSWORD = "pw-" + Long.toHexString(System.nanoTime()) + "-secret";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(KitOptions.Builder b, Path dir) {
        int rc = KitRunner.run(b.reportDir(dir).console(new PrintStream(out, true, StandardCharsets.UTF_8))
                .errors(new PrintStream(err, true, StandardCharsets.UTF_8)).build());
        System.out.println(out.toString(StandardCharsets.UTF_8));
        System.out.println(err.toString(StandardCharsets.UTF_8));
        return rc;
    }

    @Test
    void noReportFileHoldsTheCommandLineHostUserOrClassPath(@TempDir Path work) throws Exception {
        Path dir = work.resolve("report");
        String url = "jdbc:h2:file:" + work.resolve("db").toAbsolutePath();
        int rc = run(KitOptions.builder().url(url).user("sa").password(PASSWORD).modes("lease").cases("C01,C08"), dir);
        assertEquals(KitRunner.OK, rc, out.toString(StandardCharsets.UTF_8));

        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.toList();
        }
        assertTrue(files.stream().anyMatch(p -> p.getFileName().toString().startsWith("TEST-")), "JUnit XML written: " + files);
        String host = InetAddress.getLocalHost().getHostName();
        for (Path f : files) {
            String text = Files.readString(f);
            for (String secret : List.of(PASSWORD, "sun.java.command", "java.class.path", "user.name", "user.home",
                    "hostname=\"" + host + "\"", System.getProperty("java.class.path"))) {
                assertFalse(text.contains(secret), f.getFileName() + " contains " + shorten(secret));
            }
        }

        String md = Files.readString(dir.resolve("conformance.md"));
        assertTrue(Pattern.compile("\\| sqlqueue \\| \\d+\\.\\d+\\.\\d+\\S* \\(commit [^)]+\\) \\|").matcher(md).find(), md);
        if (Files.exists(Path.of("").toAbsolutePath().getParent().resolve(".git"))) {
            assertTrue(Pattern.compile("\\(commit [0-9a-f]{40}\\)").matcher(md).find(), "a source checkout names its commit: " + md);
        }
        assertTrue(md.contains("| C01 round trip: enqueue, consume, ack | lease | passed |"), md);
        assertTrue(md.contains("| enqueue, consume, ack: empty, all-byte and maximum-size payloads"), "C01 says what it checks: " + md);
        assertTrue(md.contains("| of two visible messages the higher priority is consumed first |"), "C08 says what it checks: " + md);
        assertEquals("", err.toString(StandardCharsets.UTF_8), "no error on a clean run");
    }

    @Test
    void anUnknownCaseIsASetupErrorOnTheErrorStreamAndRunsNothing(@TempDir Path work) {
        Path dir = work.resolve("report");
        int rc = run(KitOptions.builder().url("jdbc:h2:mem:unknowncase").user("sa").password("").cases("C01,C99"), dir);
        assertEquals(KitRunner.SETUP_ERROR, rc);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no such case C99"), err.toString(StandardCharsets.UTF_8));
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("C99"), "the error is not on the console stream");
        assertFalse(Files.exists(dir), "nothing ran, no report written");
    }

    @Test
    void anUnreachableDatabaseIsReportedOnTheErrorStream(@TempDir Path work) {
        int rc = run(KitOptions.builder().url("jdbc:postgresql://127.0.0.1:1/none").user("x").password(PASSWORD), work.resolve("r"));
        assertEquals(KitRunner.SETUP_ERROR, rc);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot open backend postgresql"), err.toString(StandardCharsets.UTF_8));
        assertFalse(out.toString(StandardCharsets.UTF_8).contains("cannot open backend"), out.toString(StandardCharsets.UTF_8));
        assertFalse(err.toString(StandardCharsets.UTF_8).contains(PASSWORD));
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
