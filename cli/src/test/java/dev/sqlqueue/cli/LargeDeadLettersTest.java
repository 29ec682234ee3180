package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 31 point 2: listing and requeueing dead letters reads previews and ids, never whole payloads, so memory does
 * not depend on the payloads' sizes. 96 dead letters of 1 MiB (96 MiB of payload) are listed and one is requeued by
 * commands whose JVM has a 64 MiB heap: before, {@code dlq list} read every payload whole (1,000 of 1 MiB took 4.4 GB
 * on PostgreSQL) and so did {@code dlq requeue --id}, to check the ids.
 */
class LargeDeadLettersTest {
    private static final int COUNT = 96;
    private static final int SIZE = 1024 * 1024;
    /** The commands' heap: less than the 96 MiB of payload, enough for H2 embedded in the command itself. */
    private static final int HEAP_MB = 64;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void listingAndRequeueingLargeDeadLettersNeedsNoMemoryForTheirPayloads(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("bigdead");
        QueueName q = QueueName.of(queue);
        long someId;
        try (SqlQueue client = cli.client()) {
            byte[] payload = new byte[SIZE];
            ThreadLocalRandom.current().nextBytes(payload);
            System.arraycopy("big".getBytes(StandardCharsets.UTF_8), 0, payload, 0, 3);
            for (int i = 0; i < COUNT; i++) {
                client.enqueue(q, Message.of(payload));
                List<Delivery> got = client.consume(q, ConsumeRequest.of(1).withWait(Duration.ofSeconds(5)));
                client.deadLetter(got.get(0).receipt(), "too big");
            }
            List<DeadLetterSummary> summaries = client.deadLetterSummaries(q, 100);
            assertEquals(COUNT, summaries.size());
            for (DeadLetterSummary s : summaries) {
                assertEquals(SIZE, s.payloadBytes(), "the length of the whole payload");
                assertEquals(DeadLetterSummary.PREVIEW_BYTES, s.payloadPreview().length, "only its first bytes");
                assertEquals("big", new String(s.payloadPreview(), 0, 3, StandardCharsets.UTF_8));
            }
            someId = summaries.get(COUNT / 2).messageId();
        }
        try {
            String list = run(HEAP_MB, "dlq", "list", "--queue", queue, "--limit", "1000", "--url=" + cli.url());
            assertEquals(COUNT, list.lines().filter(l -> l.contains("too big")).count(), list);
            String requeue = run(HEAP_MB, "dlq", "requeue", "--queue", queue, "--id", Long.toString(someId), "--url=" + cli.url());
            assertTrue(requeue.contains("requeued 1 dead letter"), requeue);
        } finally {
            try (SqlQueue client = cli.client()) {
                client.dropQueue(q);
            }
        }
    }

    /** Runs the command in a JVM with a heap of {@code heapMb} MiB; returns its output, failing on a non-zero exit. */
    private String run(int heapMb, String... args) throws Exception {
        Process p = Cli.processWithHeap(dir, heapMb, args);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the command ends");
        assertEquals(0, p.exitValue(), "exit code of " + String.join(" ", args) + ":\n" + out);
        return out;
    }
}
