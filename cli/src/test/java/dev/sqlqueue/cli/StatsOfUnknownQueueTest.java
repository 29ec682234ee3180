package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stats()} of a queue that does not exist refuses through the API with rule {@code queue.exists}, as the
 * command does, instead of answering zeros; an empty queue that exists still answers zeros. H2 file database.
 */
class StatsOfUnknownQueueTest {
    @TempDir
    Path dir;

    @Test
    void theApiRefusesAnUnknownQueueAndAnswersAnEmptyOne() {
        try (SqlQueue q = new Cli(dir).client()) {
            q.enqueue(QueueName.of("jobs"), Message.ofText("x"));
            q.createQueue(QueueName.of("empty"));
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> q.stats(QueueName.of("jbos")));
            assertEquals("queue.exists", e.rule());
            assertTrue(e.getMessage().contains("no queue 'jbos' (queues: empty, jobs)"), e.getMessage());
            assertEquals(0, q.stats(QueueName.of("empty")).depth());
            assertEquals(1, q.stats(QueueName.of("jobs")).ready());
            assertEquals(List.of(QueueName.of("empty"), QueueName.of("jobs")), q.queues(), "the refusal created nothing");
        }
    }
}
