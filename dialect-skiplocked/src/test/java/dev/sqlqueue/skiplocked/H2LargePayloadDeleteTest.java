package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 31 point 2: deleting large messages must not grow an H2 file. With the payload stored inline
 * ({@code VARBINARY(1048576)}), H2 2.3.232's MVStore wrote every deleted row's whole value into the transaction's
 * undo log, page after page: purging 200 dead letters of 1 MiB took 204 s and grew the file from 0.9 to 10.3 GB
 * (100 of them in one transaction: 62 s and 0.2 to 3.5 GB, measured with the H2 jar alone). A {@code BLOB} keeps a
 * value of more than 256 bytes in H2's LOB storage and the row holds a reference, so a delete writes the reference.
 */
class H2LargePayloadDeleteTest {
    private static final int COUNT = 32;
    private static final int SIZE = 1024 * 1024;
    /** Head-room for the pages a delete and its commit write (a few MiB); far below one payload per message. */
    private static final long ALLOWED_GROWTH = 16L * 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void purgingAndAckingLargeMessagesDoesNotGrowTheFile() throws Exception {
        Path file = dir.resolve("big.mv.db");
        String url = "jdbc:h2:file:" + dir.resolve("big");
        QueueName dead = QueueName.of("bigdead");
        QueueName acked = QueueName.of("bigacked");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(url).user("sa").password("").build())) {
            queue.createQueue(dead);
            queue.createQueue(acked);
            byte[] payload = new byte[SIZE];
            ThreadLocalRandom.current().nextBytes(payload);
            for (int i = 0; i < COUNT; i++) {
                queue.enqueue(dead, Message.of(payload));
                queue.enqueue(acked, Message.of(payload));
            }
            List<Delivery> toKill = queue.consume(dead, ConsumeRequest.of(COUNT).withWait(Duration.ofSeconds(5)));
            assertEquals(COUNT, toKill.size());
            for (Delivery d : toKill) {
                queue.deadLetter(d.receipt(), "too big");
            }

            System.out.println("file after dead-lettering: " + Files.size(file) / 1024 / 1024 + " MiB");
            long beforePurge = Files.size(file);
            assertEquals(COUNT, queue.purgeDeadLetters(dead));
            long afterPurge = Files.size(file);

            List<Delivery> toAck = queue.consume(acked, ConsumeRequest.of(COUNT).withWait(Duration.ofSeconds(5)));
            assertEquals(COUNT, toAck.size());
            assertEquals(java.util.Set.of(), queue.ackAll(toAck.stream().map(Delivery::receipt).collect(Collectors.<Receipt>toList())),
                    "no receipt lost");
            long afterAck = Files.size(file);

            String sizes = "file before the purge " + beforePurge / 1024 / 1024 + " MiB, after it " + afterPurge / 1024 / 1024
                    + " MiB, after the ack " + afterAck / 1024 / 1024 + " MiB";
            System.out.println(sizes);
            assertTrue(afterPurge - beforePurge <= ALLOWED_GROWTH, "purging " + COUNT + " dead letters of 1 MiB: " + sizes);
            assertTrue(afterAck - afterPurge <= ALLOWED_GROWTH, "acking " + COUNT + " messages of 1 MiB at once: " + sizes);
        }
        // issue 34: with history on, an ack also copies the payload's first 64 bytes (SUBSTRING of the BLOB) into a
        // VARBINARY(64) of the history row; that writes 64 bytes, not the payload
        QueueName kept = QueueName.of("bigkept");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(url).user("sa").password("").history(true).build())) {
            queue.createQueue(kept);
            byte[] payload = new byte[SIZE];
            ThreadLocalRandom.current().nextBytes(payload);
            for (int i = 0; i < COUNT; i++) {
                queue.enqueue(kept, Message.of(payload));
            }
            List<Delivery> toAck = queue.consume(kept, ConsumeRequest.of(COUNT).withWait(Duration.ofSeconds(5)));
            assertEquals(COUNT, toAck.size());
            long before = Files.size(file);
            assertEquals(java.util.Set.of(), queue.ackAll(toAck.stream().map(Delivery::receipt).collect(Collectors.<Receipt>toList())),
                    "no receipt lost");
            long after = Files.size(file);
            String sizes = "file before the ack to history " + before / 1024 / 1024 + " MiB, after it " + after / 1024 / 1024 + " MiB";
            System.out.println(sizes);
            assertTrue(after - before <= ALLOWED_GROWTH, "acking " + COUNT + " messages of 1 MiB to history at once: " + sizes);
            assertEquals(COUNT, queue.history(kept, COUNT + 1).size());
            assertTrue(queue.history(kept, 1).get(0).payloadPreview().length == dev.sqlqueue.HistoryEntry.PREVIEW_BYTES);
        }
    }
}
