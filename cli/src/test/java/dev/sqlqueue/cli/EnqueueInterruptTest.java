package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 31, point 7: Ctrl-C during a large {@code enqueue} exited 130 silently with 200,000 of 1,000,000 lines
 * committed, and running it again queued them twice. A SIGINT now stops the enqueue after the batch being written,
 * and it says on standard error how many messages were committed, up to which line, and the command that enqueues
 * the rest ({@code --from-line}); running that command leaves each line queued exactly once. The command runs in a
 * JVM of its own; the signal is sent once the database holds a committed batch (polled, not slept).
 */
class EnqueueInterruptTest {
    private static final int LINES = 50_000;
    private static final Pattern SAID = Pattern.compile("enqueued (\\d+) of (\\d+) messages to '([^']+)' \\(lines 1 to (\\d+)");
    private static final Pattern RESUME = Pattern.compile("--from-line (\\d+)");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void ctrlCSaysWhatWasCommittedAndTheResumeCommandEnqueuesTheRestOnce(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("interrupted");
        Path input = dir.resolve("lines.txt");
        try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.UTF_8)) {
            for (int i = 1; i <= LINES; i++) {
                w.write("line-" + i);
                w.newLine();
            }
        }
        List<String> args = List.of("enqueue", "-q", queue, "--batch", "500", input.toString(), "--url=" + cli.url());
        Path log = dir.resolve("enqueue.log");
        Process p = new ProcessBuilder(command(args)).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long committed;
        try (SqlQueue client = cli.client()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (depth(client, queue) == 0 && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive(), () -> "the enqueue ended before a batch was seen committed: " + read(log));
            assertTrue(depth(client, queue) > 0, () -> "no batch committed within 120 s: " + read(log));
            assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).inheritIO().start().waitFor());
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the enqueue did not stop");
            assertEquals(130, p.exitValue(), () -> read(log));
            committed = depth(client, queue);
        } finally {
            p.destroyForcibly();
        }
        String said = read(log);
        System.err.println("EnqueueInterruptTest " + db + ": " + said.strip());
        Matcher m = SAID.matcher(said);
        assertTrue(m.find(), said);
        assertEquals(committed, Long.parseLong(m.group(1)), "the count said is what the database holds: " + said);
        assertEquals(LINES, Long.parseLong(m.group(2)), said);
        assertEquals(queue, m.group(3), said);
        assertTrue(committed < LINES, "stopped before the end: " + said);
        long lastLine = Long.parseLong(m.group(4));
        assertEquals(committed, lastLine, "every line is non-empty, so the last committed line is the count: " + said);
        Matcher r = RESUME.matcher(said);
        assertTrue(r.find(), said);
        assertEquals(lastLine + 1, Long.parseLong(r.group(1)), said);
        String expected = "sqlqueue enqueue -q " + queue + " --batch 500 " + input + " '--url=" + cli.url() + "' --from-line "
                + (lastLine + 1);
        assertTrue(said.contains(expected), "the resume command is the one that ran, with --from-line: " + said);

        // the printed command, run: each line queued exactly once
        List<String> resume = new ArrayList<>(args);
        resume.add("--from-line");
        resume.add(r.group(1));
        Cli.Run again = Cli.raw(resume.toArray(String[]::new));
        assertEquals(0, again.code(), again::toString);
        assertTrue(again.out().contains("enqueued " + (LINES - committed) + " messages"), again::toString);
        try (SqlQueue client = cli.client()) {
            assertEquals(LINES, depth(client, queue));
            assertEquals(LINES, distinctPayloads(cli.url(), queue), "no line queued twice");
            client.dropQueue(QueueName.of(queue));
        }
    }

    /** {@code --from-line N} skips the input's lines before line N, empty lines counted; N must be 1 or more. */
    @org.junit.jupiter.api.Test
    void fromLineSkipsTheLinesBeforeIt() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("five.txt");
        Files.write(input, List.of("a", "", "c", "d", "e"));
        Cli.Run bad = cli.run("enqueue", "-q", "jobs", "--from-line", "0", input.toString());
        assertEquals(ExitCodes.USAGE, bad.code(), bad::toString);
        assertTrue(bad.err().contains("[rule: from-line.range]"), bad::toString);
        Cli.Run run = cli.run("enqueue", "-q", "jobs", "--from-line", "3", input.toString());
        assertEquals(0, run.code(), run::toString);
        Cli.Run past = cli.run("enqueue", "-q", "jobs", "--from-line", "6", input.toString());
        assertEquals(0, past.code(), past::toString);
        assertTrue(past.out().contains("enqueued 0 messages") && past.out().contains("from line 6"), past::toString);
        try (SqlQueue client = cli.client()) {
            List<String> got = new ArrayList<>();
            for (var d : client.consume(QueueName.of("jobs"), dev.sqlqueue.ConsumeRequest.of(10))) {
                got.add(new String(d.payload(), StandardCharsets.UTF_8));
            }
            assertEquals(Set.of("c", "d", "e"), Set.copyOf(got));
            assertEquals(3, got.size());
        }
    }

    private static long depth(SqlQueue client, String queue) {
        return client.queues().contains(QueueName.of(queue)) ? client.stats(QueueName.of(queue)).depth() : 0;
    }

    /** The number of distinct payloads of the queue, counted here (a DISTINCT over a BLOB needs a temporary table on disk in MariaDB). */
    private static long distinctPayloads(String url, String queue) throws Exception {
        Set<String> seen = new HashSet<>();
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("select payload from "
                     + (url.startsWith("jdbc:mariadb:") ? "sqlq_message" : "\"sqlq_message\"") + " where queue = ?")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    seen.add(new String(rs.getBytes(1), StandardCharsets.UTF_8));
                }
            }
        }
        return seen.size();
    }

    private static List<String> command(List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args);
        return command;
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
