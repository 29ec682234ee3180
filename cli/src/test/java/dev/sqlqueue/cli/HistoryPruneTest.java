package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The history can be pruned: by 'history prune', by 'work' itself (retention), and by the library API. */
class HistoryPruneTest {
    @TempDir
    Path dir;

    private static List<String> lines(int n) {
        List<String> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add("m" + i);
        }
        return l;
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void historyPruneKeepsTheNewestRowsAndDropsOldOnes(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("hist");
        String other = Cli.uniqueQueue("other");
        Path input = dir.resolve("in.txt");
        Files.write(input, lines(12));
        try {
            for (String q : List.of(queue, other)) {
                assertEquals(0, cli.run("enqueue", "-q", q, input.toString()).code());
                Cli.Run work = cli.run("work", "-q", q, "--drain", "--exec", "true");
                assertEquals(0, work.code(), work::toString);
            }
            try (SqlQueue c = cli.client()) {
                assertEquals(12, c.stats(QueueName.of(queue)).processed());
                List<HistoryEntry> before = c.history(QueueName.of(queue), 100);
                Cli.Run prune = cli.run("history", "prune", "-q", queue, "--max-rows", "5");
                assertEquals(0, prune.code(), prune::toString);
                assertEquals("pruned 7 history rows of '" + queue + "'", prune.out().strip());
                List<HistoryEntry> after = c.history(QueueName.of(queue), 100);
                assertEquals(before.subList(0, 5), after, "the newest 5 are kept");
                assertEquals(12, c.stats(QueueName.of(other)).processed(), "other queues untouched");

                // by age (database clock): nothing is a day old, everything is older than 1 ms after a pause
                assertEquals(0, c.pruneHistory(QueueName.of(queue), HistoryRetention.ofAge(Duration.ofDays(1))));
                Thread.sleep(20);
                Cli.Run byAge = cli.run("history", "prune", "--max-age", "1ms");
                assertEquals(0, byAge.code(), byAge::toString);
                assertTrue(byAge.out().contains("pruned 5 history rows of '" + queue + "'"), byAge::toString);
                assertTrue(byAge.out().contains("pruned 12 history rows of '" + other + "'"), byAge::toString);
                assertEquals(0, c.stats(QueueName.of(queue)).processed());
            }
        } finally {
            cli.run("drop", "-q", queue);
            cli.run("drop", "-q", other);
        }
    }

    @Test
    void workAppliesItsRetention() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.write(input, lines(10));
        assertEquals(0, cli.run("enqueue", "-q", "kept", input.toString()).code());
        Cli.Run work = cli.run("work", "-q", "kept", "--drain", "--history-max-rows", "3", "--exec", "true");
        assertEquals(0, work.code(), work::toString);
        try (SqlQueue c = cli.client()) {
            assertEquals(3, c.stats(QueueName.of("kept")).processed(), "work pruned the history to its newest 3 rows");
        }
    }

    @Test
    void badRetentionsAreRefused() {
        Cli cli = new Cli(dir);
        Cli.Run none = cli.run("history", "prune", "-q", "x");
        assertEquals(ExitCodes.USAGE, none.code(), none::toString);
        assertTrue(none.err().contains("give --max-age, --max-rows or both"), none::toString);
        Cli.Run negative = cli.run("history", "prune", "--max-rows", "-1");
        assertEquals(ExitCodes.USAGE, negative.code(), negative::toString);
        assertTrue(negative.err().contains("[rule: history-retention.rows]"), negative::toString);
        Cli.Run missing = cli.run("history", "prune", "-q", "nosuchqueue", "--max-rows", "1");
        assertEquals(ExitCodes.FAILURE, missing.code(), missing::toString);
        assertTrue(missing.err().contains("no queue 'nosuchqueue'"), missing::toString);
        org.junit.jupiter.api.Assertions.assertThrows(InvalidInputException.class, () -> new HistoryRetention(null, null));
    }
}
