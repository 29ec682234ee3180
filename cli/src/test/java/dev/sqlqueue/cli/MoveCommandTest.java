package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 'sqlqueue move' on two H2 databases: bad input refused before anything moves, a dry run, a move and its summary. */
class MoveCommandTest {
    @TempDir
    Path dir;
    private String from;
    private String to;

    @BeforeEach
    void twoDatabases() {
        from = "jdbc:h2:file:" + dir.resolve("from") + ";AUTO_SERVER=TRUE";
        to = "jdbc:h2:file:" + dir.resolve("to") + ";AUTO_SERVER=TRUE";
        try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl(from))) {
            for (int i = 0; i < 5; i++) {
                q.enqueue(QueueName.of("jobs"), Message.ofText("job " + i));
            }
            q.enqueue(QueueName.of("jobs"), Message.builder("later".getBytes()).delay(Duration.ofHours(1)).build());
        }
    }

    private long depth(String url, String queue) {
        try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl(url))) {
            return q.queues().contains(QueueName.of(queue)) ? q.stats(QueueName.of(queue)).depth() : -1;
        }
    }

    @Test
    void badInputIsRefusedBeforeAnythingMoves() {
        Cli.Run same = Cli.raw("move", "--from", from, "--to", from, "--queue", "jobs");
        assertEquals(ExitCodes.USAGE, same.code(), same::toString);
        assertTrue(same.err().contains("[rule: move.same-database]"), same::toString);

        Cli.Run missing = Cli.raw("move", "--from", from, "--to", to, "--queue", "jobs", "--queue", "nope");
        assertEquals(ExitCodes.USAGE, missing.code(), missing::toString);
        assertTrue(missing.err().contains("[rule: move.queue-missing]") && missing.err().contains("'nope'"), missing::toString);
        assertEquals(-1, depth(to, "jobs"), "nothing moved, not even 'jobs', which exists");

        assertEquals(6, depth(from, "jobs"));
    }

    /**
     * {@code --history}: the history rows move and the summary counts them; without it they stay on the source (the dry
     * run's count: MoveBetweenBackendsTest).
     */
    @Test
    void historyMovesOnlyWithTheOption() {
        QueueName hist = QueueName.of("hist");
        try (SqlQueue q = SqlQueue.open(QueueConfig.builder().url(from).history(true).build())) {
            q.enqueue(hist, Message.ofText("a"));
            q.enqueue(hist, Message.ofText("b"));
            q.ackAll(q.consume(hist, dev.sqlqueue.ConsumeRequest.of(10)).stream().map(dev.sqlqueue.Delivery::receipt).toList());
        }
        Cli.Run without = Cli.raw("move", "--from", from, "--to", to, "--queue", "hist");
        assertEquals(0, without.code(), without::toString);
        assertTrue(!without.out().contains("history"), without::toString);
        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(from))) {
            assertEquals(2, source.history(hist, 10).size(), "without --history the history stays on the source");
        }
        Cli.Run run = Cli.raw("move", "--from", from, "--to", to, "--queue", "hist", "--history");
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.out().startsWith("moved 0 messages of 'hist' from h2 to the target (0 already on the target, 0 refused"
                + " and dead-lettered on the source); moved 2 history rows; left on the source:"), run::toString);
        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(from)); SqlQueue target = SqlQueue.open(QueueConfig.ofUrl(to))) {
            assertEquals(0, source.history(hist, 10).size(), "the history left the source");
            assertEquals(java.util.List.of("acked", "acked"), target.history(hist, 10).stream()
                    .map(dev.sqlqueue.HistoryEntry::outcome).toList());
        }
    }

    @Test
    void aDryRunMovesNothingAndARunMovesEverything() {
        Cli.Run dry = Cli.raw("move", "--from", from, "--to", to, "--all", "--dry-run");
        assertEquals(0, dry.code(), dry::toString);
        assertTrue(dry.out().startsWith("would move 6 messages of 'jobs' from h2"), dry::toString);
        assertEquals(6, depth(from, "jobs"));
        assertEquals(-1, depth(to, "jobs"));

        Cli.Run run = Cli.raw("move", "--from", from, "--to", to, "--queue", "jobs", "--batch", "2");
        assertEquals(0, run.code(), run::toString);
        assertEquals("moved 6 messages of 'jobs' from h2 to the target (0 already on the target, 0 refused and"
                + " dead-lettered on the source); left on the source: 0 in flight, 0 delayed, 0 dead letters", run.out().strip());
        assertEquals(0, depth(from, "jobs"));
        assertEquals(6, depth(to, "jobs"));
    }

    /**
     * {@code --until-empty}: a producer keeps writing to the source while the move runs, then stops; the move goes on
     * until the source has stayed empty for the given time. Every message, those written during the move too, ends
     * on the target exactly once, and the source is empty.
     */
    @Test
    void untilEmptyMovesWhatAProducerWritesMeanwhile() throws Exception {
        int produced = 40;
        java.util.concurrent.atomic.AtomicLong producerDone = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        Thread producer = new Thread(() -> {
            try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl(from))) {
                started.countDown();
                for (int i = 0; i < produced; i++) {
                    q.enqueue(QueueName.of("jobs"), Message.ofText("live " + i));
                    Thread.sleep(25);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                producerDone.set(System.nanoTime());
            }
        }, "producer");
        producer.start();
        assertTrue(started.await(30, java.util.concurrent.TimeUnit.SECONDS));
        Cli.Run run = Cli.raw("move", "--from", from, "--to", to, "--queue", "jobs", "--batch", "5", "--until-empty", "2s");
        long moveDone = System.nanoTime();
        producer.join(60_000);
        assertEquals(0, run.code(), run::toString);
        assertTrue(producerDone.get() != 0 && producerDone.get() < moveDone,
                "the move ended only after the producer had stopped: " + run);
        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(from)); SqlQueue target = SqlQueue.open(QueueConfig.ofUrl(to))) {
            assertEquals(0, source.stats(QueueName.of("jobs")).depth(), "the source is empty");
            dev.sqlqueue.QueueStats t = target.stats(QueueName.of("jobs"));
            assertEquals(6 + produced, t.ready() + t.delayed(), t.toString());
            java.util.Map<String, Integer> seen = new java.util.HashMap<>();
            for (int round = 0; round < 100; round++) {
                java.util.List<dev.sqlqueue.Delivery> got = target.consume(QueueName.of("jobs"), dev.sqlqueue.ConsumeRequest.of(100));
                if (got.isEmpty()) {
                    break;
                }
                got.forEach(d -> seen.merge(d.text(), 1, Integer::sum));
                target.ackAll(got.stream().map(dev.sqlqueue.Delivery::receipt).toList());
            }
            assertEquals(5 + produced, seen.size(), "every ready message once (the delayed one stays delayed): " + seen);
            assertTrue(seen.values().stream().allMatch(n -> n == 1), seen::toString);
            for (int i = 0; i < produced; i++) {
                assertTrue(seen.containsKey("live " + i), "live " + i + " on the target");
            }
        }
    }

    /**
     * Ctrl-C (SIGINT) to a running move (a JVM of its own) ends it after the step in progress: exit 130, nothing left
     * held on the source, every message on exactly one side; the same command again finishes the job.
     */
    @Test
    void ctrlCStopsAfterTheStepInProgressAndTheSameCommandFinishes() throws Exception {
        QueueName queue = QueueName.of("many");
        try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl(from))) {
            java.util.List<Message> batch = new java.util.ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                batch.add(Message.ofText("m" + i));
            }
            q.enqueueAll(queue, batch);
        }
        Process p = Cli.quickProcess(dir, "move", "--from", from, "--to", to, "--queue", "many", "--batch", "1");
        StringBuilder output = new StringBuilder();
        try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.contains("move 'many'")) {
                output.append(line).append('\n');
            }
            assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor());
            out.lines().forEach(l -> output.append(l).append('\n'));
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        } finally {
            p.destroyForcibly();
        }
        assertEquals(130, p.exitValue(), output::toString);
        assertTrue(output.toString().contains("stopped after the step in progress"), output::toString);
        long left;
        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(from)); SqlQueue target = SqlQueue.open(QueueConfig.ofUrl(to))) {
            dev.sqlqueue.QueueStats s = source.stats(queue);
            assertEquals(0, s.inFlight(), "nothing held on the source: " + s);
            left = s.ready();
            assertEquals(2000, left + target.stats(queue).ready(), "every message on exactly one side");
            assertTrue(left > 0 && left < 2000, "stopped part way: " + left + " left\n" + output);
        }
        Cli.Run rest = Cli.raw("move", "--from", from, "--to", to, "--queue", "many");
        assertTrue(rest.out().startsWith("moved " + left + " messages of 'many'"), rest::toString);
        assertEquals(0, depth(from, "many"));
        assertEquals(2000, depth(to, "many"));
    }
}
