package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
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
        sixMessages(cli);

        Path started = dir.resolve("started");
        Path done = dir.resolve("done");
        Path out = dir.resolve("stdout");
        Process p = startWork(cli, "echo {} >> '" + started + "'; sleep 2; echo {} >> '" + done + "'", "--grace", "30s");
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

    /**
     * Commands that outlast a short --grace on the default H2 database: they are killed and nacked, the
     * claimed messages never started are released (attempt not counted), and nothing is left in flight
     * nor logged as a failed nack or release (H2 closes its file when a thread is interrupted in I/O).
     */
    @Test
    void commandsOutlastingTheGraceAreKilledAndNothingStaysInFlightOnH2() throws Exception {
        Cli cli = Cli.h2AsDefault(dir);
        sixMessages(cli);
        Path started = dir.resolve("started");
        Path stderr = dir.resolve("stderr");
        Process p = startWork(cli, "echo {} >> '" + started + "'; sleep 30", "--grace", "2s", "--backoff", "100ms");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (lines(started) < 2 && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(50);
            }
            assertEquals(2, lines(started), () -> "two commands should be running; stderr: " + read(stderr));
            Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(p.waitFor(25, TimeUnit.SECONDS), "sqlqueue work did not stop");
            assertEquals(143, p.exitValue(), () -> read(stderr));
        } finally {
            p.destroyForcibly();
        }
        String err = read(stderr);
        assertFalse(err.contains("settling") || err.contains("nack failed") || err.contains("release failed")
                || err.contains("Exception") || err.contains("Interrupted"), err);
        assertTrue(read(dir.resolve("stdout")).contains("ok 0, retried 2, dead-lettered 0"), read(dir.resolve("stdout")) + err);
        try (SqlQueue q = cli.client()) {
            QueueStats s = q.stats(QueueName.of("slow"));
            assertEquals(0, s.inFlight(), "nothing waits for a lease to end");
            assertEquals(6, s.ready() + s.delayed());
            Thread.sleep(300); // the back-off of the two killed ones
            List<Delivery> all = q.consume(QueueName.of("slow"), ConsumeRequest.of(10));
            assertEquals(6, all.size());
            Map<Integer, Long> byAttempt = all.stream().collect(Collectors.groupingBy(Delivery::attempt, Collectors.counting()));
            assertEquals(Map.of(1, 4L, 2, 2L), byAttempt, "the four never started keep attempt 1; the two killed were nacked");
        }
    }

    /**
     * A second SIGTERM more than 2 s after the first exits at once (docs/cli.md), not when the grace period
     * ends: the running commands are killed rather than left behind, and no message is lost (the two that
     * were running come back when their lease ends).
     */
    @Test
    void aSecondSignalExitsAtOnceAndKillsTheRunningCommands() throws Exception {
        Cli cli = new Cli(dir);
        sixMessages(cli);
        Path pids = dir.resolve("pids");
        Path done = dir.resolve("done");
        Path stderr = dir.resolve("stderr");
        Process p = startWork(cli, "echo $$ >> '" + pids + "'; sleep 60; echo {} >> '" + done + "'", "--grace", "120s");
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (lines(pids) < 2 && System.nanoTime() < deadline && p.isAlive()) {
                Thread.sleep(50);
            }
            assertEquals(2, lines(pids), () -> "two commands should be running; stderr: " + read(stderr));
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start().waitFor());
            Thread.sleep(4000); // past the 2 s in which a repeat counts as the same signal, even if the first was handled late
            assertTrue(p.isAlive(), "the first signal waits for the running commands");
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start().waitFor());
            assertTrue(p.waitFor(15, TimeUnit.SECONDS), "a second signal must exit at once, not after the 120 s grace: "
                    + read(stderr));
            assertEquals(143, p.exitValue(), () -> read(stderr));
        } finally {
            p.destroyForcibly();
        }
        assertTrue(read(stderr).contains("SIGTERM again, exiting now"), read(stderr));
        // the killed commands' messages are not said to have outlived the grace period (120 s, not over)
        assertFalse(read(stderr).contains("grace period ("), read(stderr));
        assertFalse(read(stderr).contains("Ctrl-C again"), "a SIGTERM is no Ctrl-C: " + read(stderr));
        assertTrue(read(stderr).contains("killed by a second signal (exit") || !read(stderr).contains("attempt 1 failed"), read(stderr));
        Thread.sleep(500);
        for (String pid : Files.readAllLines(pids)) {
            assertTrue(ProcessHandle.of(Long.parseLong(pid.trim())).map(h -> !h.isAlive()).orElse(true),
                    "command " + pid + " was left running");
        }
        assertFalse(Files.exists(done), "no command ran to its end");
        try (SqlQueue q = cli.client()) {
            QueueStats s = q.stats(QueueName.of("slow"));
            assertEquals(6, s.ready() + s.inFlight() + s.delayed(), "no message lost: " + s);
        }
    }

    /** Enqueues m1..m6 to queue 'slow' of {@code cli}'s database. */
    private void sixMessages(Cli cli) throws Exception {
        Path input = dir.resolve("in.txt");
        Files.write(input, List.of("m1", "m2", "m3", "m4", "m5", "m6"));
        assertEquals(0, cli.run("enqueue", "-q", "slow", input.toString()).code());
    }

    /**
     * Starts {@code sqlqueue work -q slow --workers 2 --batch-size 3 --exec EXEC OPTIONS} in a JVM of its own;
     * its output goes to the files {@code stdout} and {@code stderr} of the test's directory.
     */
    private Process startWork(Cli cli, String exec, String... options) throws java.io.IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "work", "-q", "slow", "--workers", "2", "--batch-size", "3"));
        command.addAll(List.of(options));
        command.addAll(List.of("--exec", exec, "--url", cli.url()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectOutput(dir.resolve("stdout").toFile());
        pb.redirectError(dir.resolve("stderr").toFile());
        return pb.start();
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
