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

        Cli.Run history = Cli.raw("move", "--from", from, "--to", to, "--queue", "jobs", "--history");
        assertEquals(ExitCodes.USAGE, history.code(), history::toString);
        assertTrue(history.err().contains("[rule: move.history]"), history::toString);
        assertEquals(6, depth(from, "jobs"));
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
}
