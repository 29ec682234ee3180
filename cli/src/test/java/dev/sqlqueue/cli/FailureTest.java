package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failing and hung commands: retries with back-off, dead letters with the error kept, time-outs. */
class FailureTest {
    @TempDir
    Path dir;

    @Test
    void aFailingCommandIsRetriedThenDeadLetteredWithItsStderr() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "bad one\n");
        assertEquals(0, cli.run("enqueue", "-q", "fail", input.toString()).code());
        Path runs = dir.resolve("runs");
        Cli.Run work = cli.run("work", "-q", "fail", "--drain", "--poll", "100ms", "--max-attempts", "3",
                "--backoff", "10ms", "--max-backoff", "50ms",
                "--exec", "echo run >> '" + runs + "'; echo \"boom: $1\" >&2; exit 3");
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        assertTrue(work.out().contains("ok 0, retried 2, dead-lettered 1"), work::toString);
        assertEquals(3, Files.readAllLines(runs).size(), "three attempts");
        assertTrue(work.err().contains("attempt 1 failed (exit 3: boom: bad one)"), work::toString);

        try (SqlQueue q = cli.client()) {
            List<DeadLetter> dead = q.deadLetters(QueueName.of("fail"), 10);
            assertEquals(1, dead.size());
            assertEquals(3, dead.get(0).attempts());
            assertTrue(dead.get(0).reason().contains("exit 3: boom: bad one"), dead.get(0).reason());
            assertEquals("bad one", new String(dead.get(0).payload()));
            HistoryEntry h = q.history(QueueName.of("fail"), 1).get(0);
            assertEquals("dead-lettered", h.outcome());
        }

        Cli.Run list = cli.run("dlq", "list", "-q", "fail");
        assertEquals(0, list.code(), list::toString);
        assertTrue(list.out().contains("exit 3: boom: bad one"), list::toString);
        assertTrue(list.out().contains("bad one"), list::toString);

        Cli.Run requeue = cli.run("dlq", "requeue", "-q", "fail");
        assertEquals("requeued 1 dead letter to 'fail'", requeue.out().strip(), requeue::toString);
        Cli.Run ok = cli.run("work", "-q", "fail", "--drain", "--poll", "100ms", "--exec", "true");
        assertTrue(ok.out().contains("ok 1, retried 0, dead-lettered 0"), ok::toString);
        assertEquals(0, ok.code());
    }

    @Test
    void aHungCommandIsKilledWithItsChildrenByTheTimeout() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "hang\n");
        assertEquals(0, cli.run("enqueue", "-q", "hang", input.toString()).code());
        Path pid = dir.resolve("pid");
        long started = System.nanoTime();
        Cli.Run work = cli.run("work", "-q", "hang", "--drain", "--poll", "100ms", "--max-attempts", "1",
                "--timeout", "700ms", "--exec", "sleep 60 & echo $! > '" + pid + "'; wait");
        long tookMs = (System.nanoTime() - started) / 1_000_000;
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        assertTrue(tookMs < 30_000, "the command was not killed: " + tookMs + " ms");
        try (SqlQueue q = cli.client()) {
            DeadLetter d = q.deadLetters(QueueName.of("hang"), 1).get(0);
            assertTrue(d.reason().contains("timed out after 700ms"), d.reason());
        }
        long child = Long.parseLong(Files.readString(pid).strip());
        for (int i = 0; i < 50 && running(child); i++) {
            Thread.sleep(100);
        }
        assertFalse(running(child), "the command's child process survived");
    }

    /** Whether the process exists and is not a zombie (a killed orphan may wait for a reaper). */
    private static boolean running(long pid) throws java.io.IOException {
        Path stat = Path.of("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return false;
        }
        try {
            String s = Files.readString(stat);
            char state = s.charAt(s.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (java.nio.file.NoSuchFileException e) {
            return false;
        }
    }
}
