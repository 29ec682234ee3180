package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** enqueue --dedupe on a real H2 database: the same file enqueued twice queues each line once. */
class EnqueueDedupeTest {
    @TempDir
    Path dir;

    private static List<String> texts(SqlQueue q, String queue) {
        List<Delivery> got = q.consume(QueueName.of(queue), ConsumeRequest.of(100));
        q.ackAll(got.stream().map(Delivery::receipt).toList());
        return got.stream().map(Delivery::text).sorted().toList();
    }

    @Test
    void theSameFileTwiceQueuesEachLineOnce() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.write(input, List.of("alpha", "beta", "alpha", "Alpha", "gamma "), StandardCharsets.UTF_8);

        Cli.Run first = cli.run("enqueue", "--queue", "jobs", "--dedupe", input.toString());
        assertEquals(0, first.code(), first::toString);
        assertEquals("enqueued 4 messages to 'jobs' (1 duplicate skipped)", first.out().strip());
        Cli.Run second = cli.run("enqueue", "--queue", "jobs", "--dedupe", input.toString());
        assertEquals(0, second.code(), second::toString);
        assertEquals("enqueued 0 messages to 'jobs' (5 duplicates skipped)", second.out().strip());
        // without --dedupe nothing is deduplicated
        Cli.Run plain = cli.run("enqueue", "--queue", "plain", input.toString());
        assertEquals("enqueued 5 messages to 'plain'", plain.out().strip());

        try (SqlQueue q = cli.client()) {
            assertEquals(List.of("Alpha", "alpha", "beta", "gamma "), texts(q, "jobs"), "each distinct line once, compared exactly");
        }
    }

    @Test
    void aKeyColumnIsTheKeyAsWritten() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("orders.tsv");
        Files.write(input, List.of("order-1\tfirst try", "order-2\tonce", "order-1\tretry"), StandardCharsets.UTF_8);
        Cli.Run run = cli.run("enqueue", "--queue", "orders", "--dedupe-column", "1", input.toString());
        assertEquals(0, run.code(), run::toString);
        assertEquals("enqueued 2 messages to 'orders' (1 duplicate skipped)", run.out().strip());
        try (SqlQueue q = cli.client()) {
            assertEquals(List.of("order-1\tfirst try", "order-2\tonce"), texts(q, "orders"));
        }

        Path bad = dir.resolve("bad.tsv");
        Files.write(bad, List.of("order-3\tok", "no tab here"), StandardCharsets.UTF_8);
        Cli.Run refused = cli.run("enqueue", "--queue", "orders", "--dedupe-column", "2", bad.toString());
        assertTrue(refused.code() != 0, refused::toString);
        assertTrue(refused.err().contains("line 2") && refused.err().contains("dedupe.column"), refused::toString);
        try (SqlQueue q = cli.client()) {
            assertEquals(0, q.stats(QueueName.of("orders")).depth(), "a bad line writes nothing");
        }
    }

    /**
     * A key column that is not UTF-8 cannot be kept "exactly as written" as a text key: decoding made every
     * invalid byte U+FFFD, so {@code caf\xe9.txt} and {@code caf\xe8.txt} were one key and the second line was
     * skipped as a duplicate. Such a line is refused, naming the line and the rule, and nothing is enqueued.
     * A refused key names its rule once.
     */
    @Test
    void aKeyColumnThatIsNotUtf8IsRefusedNotMerged() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("latin1.tsv");
        Files.write(input, new byte[] {'c', 'a', 'f', (byte) 0xe9, '\t', '1', '\n', 'c', 'a', 'f', (byte) 0xe8, '\t', '2', '\n'});
        Cli.Run refused = cli.run("enqueue", "--queue", "names", "--dedupe-column", "1", input.toString());
        assertEquals(ExitCodes.USAGE, refused.code(), refused::toString);
        assertTrue(refused.err().contains("line 1") && refused.err().contains("[rule: dedupe.utf8]"), refused::toString);
        Path empty = dir.resolve("empty.tsv");
        Files.write(empty, List.of("\tx"), StandardCharsets.UTF_8);
        Cli.Run once = cli.run("enqueue", "--queue", "names", "--dedupe-column", "1", empty.toString());
        assertEquals(1, once.err().split("\\[rule: ", -1).length - 1, once::toString);
        try (SqlQueue q = cli.client()) {
            assertTrue(q.queues().stream().noneMatch(n -> n.value().equals("names")) || q.stats(QueueName.of("names")).depth() == 0,
                    "nothing was enqueued");
        }
    }
}
