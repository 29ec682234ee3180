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
}
