package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM or SIGINT (Ctrl-C) to a running 'sqlqueue work' process (a separate JVM): running commands finish, claimed but
 * unstarted messages are released at once, and the summary is printed.
 */
class SignalTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"TERM, 143", "INT, 130"})
    void aSignalLetsRunningCommandsFinishAndReleasesTheRest(String signal, int exitCode) throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.write(input, List.of("m1", "m2", "m3", "m4", "m5", "m6"));
        assertEquals(0, cli.run("enqueue", "-q", "slow", input.toString()).code());

        Path started = dir.resolve("started");
        Path done = dir.resolve("done");
        Path out = dir.resolve("stdout");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "work", "-q", "slow", "--workers", "2", "--batch-size", "3", "--grace", "30s",
                "--exec", "echo {} >> '" + started + "'; sleep 2; echo {} >> '" + done + "'",
                "--url", cli.url());
        pb.redirectOutput(out.toFile());
        pb.redirectError(dir.resolve("stderr").toFile());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (lines(started) < 2 && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(50);
            }
            assertEquals(2, lines(started), () -> "two commands should be running; stderr: " + read(dir.resolve("stderr")));
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "sqlqueue work did not stop");
            assertEquals(exitCode, p.exitValue(), () -> read(dir.resolve("stderr")));
        } finally {
            p.destroyForcibly();
        }
        assertEquals(Files.readAllLines(started).stream().sorted().toList(),
                Files.readAllLines(done).stream().sorted().toList(), "the running commands finished");
        String summary = read(out);
        assertTrue(summary.contains("stopped 'slow'") && summary.contains("ok 2, retried 0, dead-lettered 0"),
                summary + read(dir.resolve("stderr")));
        try (SqlQueue q = cli.client()) {
            QueueStats s = q.stats(QueueName.of("slow"));
            assertEquals(4, s.ready(), "claimed but unstarted messages are released, visible at once");
            assertEquals(0, s.inFlight());
            assertEquals(2, s.processed());
        }
    }

    private static int lines(Path p) throws Exception {
        return Files.exists(p) ? Files.readAllLines(p).size() : 0;
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
