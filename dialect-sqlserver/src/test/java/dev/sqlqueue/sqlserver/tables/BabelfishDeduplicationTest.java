package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys of the {@code sqlserver} backend under concurrency, on Babelfish ({@link BabelfishServer}):
 * the races the keyed statements must answer as "duplicate" rather than as an error (review N1, issue 29: the
 * former read-then-insert design failed C24 there with error 2627), and keyed batches in opposite key orders, with
 * the library's deadlock retries off so that a deadlock would surface. Key-range locks, which made the former design
 * serialise producers on SQL Server, do not exist on Babelfish; that part is settled by the model and the probe.
 */
class BabelfishDeduplicationTest {
    private String prefix;
    private SqlQueue queue;
    private final QueueName q = QueueName.of("keys");

    @BeforeEach
    void open() {
        assumeTrue(BabelfishServer.unavailable().isEmpty(), () -> BabelfishServer.unavailable().orElse(""));
        prefix = "kd" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        queue = SqlQueue.open(QueueConfig.builder().url(BabelfishServer.get().url()).tablePrefix(prefix).poolSize(12)
                .option("deadlock-retries", "0").build());
        queue.createQueue(q);
    }

    @AfterEach
    void close() throws Exception {
        if (queue == null) {
            return;
        }
        queue.close();
        try (Connection c = DriverManager.getConnection(BabelfishServer.get().url()); Statement s = c.createStatement()) {
            s.execute(new SqlServerStatements(prefix, "dbo", ClaimOrder.FIFO).get("dropSchema"));
        }
    }

    private static Message keyed(String key) {
        return Message.builder(key.getBytes(StandardCharsets.UTF_8)).deduplicationKey(key).build();
    }

    /** A producer of a key that a caller's open transaction has just taken waits, and then gets its id as a duplicate. */
    @Test
    void aKeyTakenInACallersOpenTransactionIsADuplicateOnceItCommits() throws Exception {
        try (Connection caller = DriverManager.getConnection(BabelfishServer.get().url())) {
            caller.setAutoCommit(false);
            EnqueueResult first = queue.enqueueDeduplicated(caller, q, keyed("order-1"));
            assertFalse(first.duplicate());
            CompletableFuture<EnqueueResult> second = CompletableFuture.supplyAsync(
                    () -> queue.enqueueDeduplicated(q, keyed("order-1")));
            Thread.sleep(1_000);
            caller.commit();
            EnqueueResult r = second.get(60, TimeUnit.SECONDS);
            assertTrue(r.duplicate(), "the second producer's answer is 'duplicate', not an error: " + r);
            assertEquals(first.id(), r.id(), "and names the first message");
        }
        assertEquals(1, queue.stats(q).depth());
    }

    /** The same race when the first producer rolls back: the waiting producer takes the key itself. */
    @Test
    void aKeyWhoseFirstProducerRollsBackIsTakenByTheWaitingOne() throws Exception {
        try (Connection caller = DriverManager.getConnection(BabelfishServer.get().url())) {
            caller.setAutoCommit(false);
            queue.enqueueDeduplicated(caller, q, keyed("order-2"));
            CompletableFuture<EnqueueResult> second = CompletableFuture.supplyAsync(
                    () -> queue.enqueueDeduplicated(q, keyed("order-2")));
            Thread.sleep(1_000);
            caller.rollback();
            EnqueueResult r = second.get(60, TimeUnit.SECONDS);
            assertFalse(r.duplicate(), "the key is free again: " + r);
        }
        assertEquals(1, queue.stats(q).depth());
    }

    /**
     * Eight producers, each sending batches of the same twenty keys in its own order (half ascending, half
     * descending), with no deadlock retries: every call succeeds, and each key has exactly one message.
     */
    @Test
    void keyedBatchesInOppositeOrdersNeitherDeadlockNorDuplicate() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keys.add(String.format("k%02d", i));
        }
        List<CompletableFuture<List<EnqueueResult>>> producers = new ArrayList<>();
        for (int p = 0; p < 8; p++) {
            List<String> order = new ArrayList<>(keys);
            if (p % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            List<Message> batch = order.stream().map(BabelfishDeduplicationTest::keyed).toList();
            producers.add(CompletableFuture.supplyAsync(() -> queue.enqueueAllDeduplicated(q, batch)));
        }
        Set<Long> ids = new HashSet<>();
        int fresh = 0;
        for (CompletableFuture<List<EnqueueResult>> f : producers) {
            for (EnqueueResult r : f.get(120, TimeUnit.SECONDS)) {
                ids.add(r.id());
                fresh += r.duplicate() ? 0 : 1;
            }
        }
        assertEquals(20, fresh, "each key enqueued once");
        assertEquals(20, ids.size(), "every answer names one of the twenty messages");
        assertEquals(20, queue.stats(q).depth());
    }
}
