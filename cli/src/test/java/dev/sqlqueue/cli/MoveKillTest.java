package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's proof: 'sqlqueue move' in a JVM of its own, killed with SIGKILL 20 times at random points of the move
 * (a random pause after its first progress line, so that every kill lands while it moves or after it finished),
 * then run to completion: every message is on the target exactly once and none is left on the source.
 */
class MoveKillTest {
    private static final int MESSAGES = 300;
    private static final int KILLS = Integer.getInteger("moveKills", 20);

    @TempDir
    Path dir;

    private String url(String db) {
        return db.equals("h2") ? "jdbc:h2:file:" + dir.resolve("h2db") + ";AUTO_SERVER=TRUE;WRITE_DELAY=0" : Cli.on(db, dir).url();
    }

    /** Both pairs at once, each in a thread of its own, so that the JVM starts of one overlap the other's. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 10, unit = TimeUnit.MINUTES) // 40 JVM starts; a loaded machine takes 10 s for one
    void killedTwentyTimesThenRunToTheEndEveryMessageIsOnTheTargetOnce() throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            var h2ToPostgres = pool.submit(() -> {
                killAndFinish("h2", "postgresql");
                return null;
            });
            var postgresToMariaDb = pool.submit(() -> {
                killAndFinish("postgresql", "mariadb");
                return null;
            });
            h2ToPostgres.get();
            postgresToMariaDb.get();
        } finally {
            pool.shutdownNow();
        }
    }

    private void killAndFinish(String from, String to) throws Exception {
        String fromUrl = url(from);
        String toUrl = url(to);
        QueueName queue = QueueName.of(Cli.uniqueQueue("kill"));
        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(fromUrl))) {
            List<Message> batch = new ArrayList<>();
            for (int i = 0; i < MESSAGES; i++) {
                batch.add(Message.ofText("m" + i));
            }
            source.enqueueAll(queue, batch);
        }
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String> log = new ArrayList<>();
        for (int kill = 0; kill < KILLS; kill++) {
            long started = System.nanoTime();
            Process p = Cli.quickProcess(dir, "move", "--from", fromUrl, "--to", toUrl, "--queue", queue.value(), "--batch", "1");
            try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null && !line.contains("move '")) {
                    log.add(line);
                }
                long firstLine = (System.nanoTime() - started) / 1_000_000;
                long pause = random.nextInt(150);
                Thread.sleep(pause);
                p.destroyForcibly(); // SIGKILL
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                log.add(from + " -> " + to + ": kill " + kill + " at " + firstLine + " ms (first progress line) + " + pause + " ms, exited after "
                        + (System.nanoTime() - started) / 1_000_000 + " ms: " + (line == null ? "ended before" : line));
            } finally {
                p.destroyForcibly();
            }
        }
        Cli.Run last = Cli.raw("move", "--from", fromUrl, "--to", toUrl, "--queue", queue.value());
        System.out.println(String.join("\n", log));
        String context = "seed " + seed + "\n" + String.join("\n", log) + "\n" + last;
        assertEquals(0, last.code(), context);

        try (SqlQueue source = SqlQueue.open(QueueConfig.ofUrl(fromUrl)); SqlQueue target = SqlQueue.open(QueueConfig.ofUrl(toUrl))) {
            QueueStats s = source.stats(queue);
            assertEquals(0, s.depth() + s.dead(), "nothing left on the source: " + s + "\n" + context);
            Map<String, Integer> seen = new TreeMap<>();
            while (true) {
                List<Delivery> got = target.consume(queue, ConsumeRequest.of(500));
                if (got.isEmpty()) {
                    break;
                }
                got.forEach(d -> seen.merge(d.text(), 1, Integer::sum));
                target.ackAll(got.stream().map(Delivery::receipt).toList());
            }
            assertEquals(MESSAGES, seen.size(), "every message on the target\n" + context);
            seen.forEach((m, n) -> assertEquals(1, n, m + " on the target once\n" + context));
            assertEquals(0, target.stats(queue).depth());
            source.dropQueue(queue); // the shared servers keep no queue of this test
            target.dropQueue(queue);
        }
    }
}
