package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** enqueue from a file, then work --drain running a shell command per line, on a real H2 database. */
class EnqueueAndWorkTest {
    @TempDir
    Path dir;

    @Test
    void everyLineIsRunOnceAndMessagesCannotInjectShellSyntax() throws Exception {
        Cli cli = new Cli(dir);
        Path pwned = dir.resolve("pwned");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            lines.add("job " + i);
        }
        lines.add("x; touch '" + pwned + "'");
        lines.add("$(touch '" + pwned + "')");
        lines.add("`touch '" + pwned + "'`");
        lines.add("it's \"quoted\" * ? ~ {} $HOME");
        Path input = dir.resolve("in.txt");
        Files.write(input, lines, StandardCharsets.UTF_8);

        Cli.Run enq = cli.run("enqueue", "--queue", "jobs", "--file", input.toString());
        assertEquals(0, enq.code(), enq::toString);
        assertEquals("enqueued " + lines.size() + " messages to 'jobs'", enq.out().strip());

        Path out = dir.resolve("out");
        Cli.Run work = cli.run("work", "--queue", "jobs", "--workers", "6", "--drain", "--poll", "100ms",
                "--exec", "echo {} >> '" + out + "'");
        assertEquals(0, work.code(), work::toString);
        assertTrue(work.out().contains("ok " + lines.size() + ", retried 0, dead-lettered 0"), work::toString);

        List<String> done = Files.readAllLines(out, StandardCharsets.UTF_8);
        Map<String, Long> counts = done.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertEquals(lines.size(), done.size(), "one output line per message");
        for (String line : lines) {
            assertEquals(1L, counts.getOrDefault(line, 0L), "processed exactly once: " + line);
        }
        assertFalse(Files.exists(pwned), "a message ran as shell syntax");

        try (SqlQueue q = cli.client()) {
            QueueStats s = q.stats(QueueName.of("jobs"));
            assertEquals(0, s.depth());
            assertEquals(lines.size(), s.processed(), "work keeps history by default");
            List<HistoryEntry> h = q.history(QueueName.of("jobs"), 5);
            assertEquals("acked", h.get(0).outcome(), "exit 0 acks");
        }
        Cli.Run stats = cli.run("stats", "--queue", "jobs", "--history", "3");
        assertEquals(0, stats.code(), stats::toString);
        assertTrue(stats.out().contains("acked"), stats::toString);
    }

    @Test
    void theMessageIsOnStandardInputAndTheEnvironment() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "hello stdin\n");
        assertEquals(0, cli.run("enqueue", "-q", "in", input.toString()).code());
        Path out = dir.resolve("out");
        Cli.Run work = cli.run("work", "-q", "in", "--drain", "--poll", "100ms",
                "--exec", "cat > '" + out + "'; echo >> '" + out + "'; echo \"$SQLQUEUE_QUEUE $SQLQUEUE_ATTEMPT\" >> '" + out + "'");
        assertEquals(0, work.code(), work::toString);
        assertEquals(List.of("hello stdin", "in 1"), Files.readAllLines(out));
    }

    @Test
    void aGroupRunsOneAtATimeInLineOrderWhileFourWorkersServeTheQueue() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            lines.add(String.valueOf(i));
        }
        Files.write(input, lines);
        Cli.Run enq = cli.run("enqueue", "-q", "serial", "--group", "migrations", input.toString());
        assertEquals(0, enq.code(), enq::toString);
        Path out = dir.resolve("out");
        Cli.Run work = cli.run("work", "-q", "serial", "--workers", "4", "--drain", "--poll", "50ms",
                "--exec", "echo start {} >> '" + out + "'; sleep 0.05; echo end {} >> '" + out + "'");
        assertEquals(0, work.code(), work::toString);
        List<String> expected = new ArrayList<>();
        for (String l : lines) {
            expected.add("start " + l);
            expected.add("end " + l);
        }
        assertEquals(expected, Files.readAllLines(out), "never two of the group at once, and in line order");
    }

    @Test
    void delayedMessagesAreNotReadyYet() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "later\r\n\r\nlater too\n");
        Cli.Run enq = cli.run("enqueue", "-q", "later", "--delay", "5m", "--priority", "7",
                "--header", "source=test", "--header", "k=v=w", input.toString());
        assertEquals(0, enq.code(), enq::toString);
        assertTrue(enq.out().contains("enqueued 2 messages"), "empty lines are skipped: " + enq.out());
        try (SqlQueue q = cli.client()) {
            QueueStats s = q.stats(QueueName.of("later"));
            assertEquals(0, s.ready());
            assertEquals(2, s.delayed());
        }
    }

    /**
     * A queue dropped while {@code work} ran: the worker said "lease lost; it will be delivered again" and
     * went on polling a queue that was gone with its messages. Now it says so and stops, exit 1.
     */
    @Test
    void aQueueDroppedWhileWorkRunsStopsItAndSaysWhy() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("one.txt");
        Files.write(input, List.of("slow"), StandardCharsets.UTF_8);
        assertEquals(0, cli.run("enqueue", "--queue", "gone", "--file", input.toString()).code());
        Path started = dir.resolve("started");
        java.util.concurrent.CompletableFuture<Cli.Run> work = java.util.concurrent.CompletableFuture.supplyAsync(() ->
                cli.run("work", "--queue", "gone", "--poll", "100ms", "--exec", "touch '" + started + "'; sleep 2"));
        try (SqlQueue q = cli.client()) {
            long until = System.nanoTime() + 30_000_000_000L;
            while (!Files.exists(started) && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            assertTrue(Files.exists(started), "the command started");
            q.dropQueue(QueueName.of("gone"));
        }
        Cli.Run run = work.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ExitCodes.FAILURE, run.code(), run::toString);
        assertTrue(run.err().contains("queue 'gone' was dropped"), run::toString);
        assertFalse(run.err().contains("delivered again"), run::toString);
    }
}
