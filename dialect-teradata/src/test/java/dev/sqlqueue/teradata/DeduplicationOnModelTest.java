package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Deduplication keys on the model: session modes (N3), key order in batches (N6) and the clean-up (N5). */
class DeduplicationOnModelTest {
    private static Message keyed(String key, String text) {
        return Message.builder(text.getBytes()).deduplicationKey(key).build();
    }

    private static List<String> texts(ModelFixture f) {
        return f.queueRows().stream().map(r -> new String((byte[]) r.get("payload"))).sorted().toList();
    }

    @Test
    void aDuplicateOnACallersConnectionInTeradataModeKeepsTheCallersEarlierWork() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m);
        EnqueueResult first = f.queue.enqueueDeduplicated(JOBS, keyed("order-1", "first"));
        m.ansiSessions = false; // the caller's session: TMODE=TERA, or DEFAULT on a system whose default is Teradata mode
        Connection caller = m.dataSource().getConnection();
        m.ansiSessions = true;
        try (caller) {
            caller.setAutoCommit(false);
            f.queue.enqueue(caller, JOBS, Message.ofText("business"));
            EnqueueResult again = f.queue.enqueueDeduplicated(caller, JOBS, keyed("order-1", "again"));
            caller.commit();
            assertTrue(again.duplicate());
            assertEquals(first.id(), again.id());
        }
        assertEquals(List.of("business", "first"), texts(f), "the caller's earlier enqueue was not aborted with its transaction");
    }

    @Test
    void twoBatchesWithTheSameKeysInOppositeOrdersDoNotDeadlockAcrossAmps() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.amps = 64;
        m.maxBlockMillis = 3_000; // a cross-AMP deadlock would wait DeadLockTimeout (240 s)
        ModelFixture f = new ModelFixture(m);
        String a = "a";
        String b = "b";
        for (int i = 1; m.amp(N.keysTableName(), a + ".") == m.amp(N.keysTableName(), b + "."); i++) {
            b = "b" + i;
        }
        String takeKey = TeradataStatements.deleteExpiredKey(N); // the first statement on each key: its row-hash lock
        AtomicReference<CompletableFuture<List<EnqueueResult>>> other = new AtomicReference<>();
        List<Message> second = List.of(keyed(a, "2a"), keyed(b, "2b"));
        m.beforeNext(takeKey::equals, () -> { });
        m.beforeNext(takeKey::equals, () -> { // the first batch holds one key; the second batch starts and waits
            other.set(CompletableFuture.supplyAsync(() -> ModelFixture.open(m).enqueueAllDeduplicated(JOBS, second)));
            long end = System.nanoTime() + 5_000_000_000L;
            while (m.blockedSessions() == 0 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
        });
        List<EnqueueResult> firstBatch = f.queue.enqueueAllDeduplicated(JOBS, List.of(keyed(b, "1b"), keyed(a, "1a")));
        List<EnqueueResult> secondBatch = other.get().get(10, TimeUnit.SECONDS);
        assertTrue(firstBatch.stream().noneMatch(EnqueueResult::duplicate));
        assertTrue(secondBatch.stream().allMatch(EnqueueResult::duplicate), "the second batch found both keys taken");
        assertEquals(List.of("1a", "1b"), texts(f));
    }

    @Test
    void theKeyCleanUpRunsOffTheProducersThreadAndNeverWaitsForAnOpenKeyedTransaction() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.maxBlockMillis = 3_000;
        ModelFixture f = new ModelFixture(m);
        f.queue.enqueueDeduplicated(JOBS, keyed("old", "o"));
        m.clockStart = java.time.LocalDateTime.now(m.sessionZone).plusYears(1); // the database clock moves on: "old" expired
        try (Connection caller = m.dataSource().getConnection()) {
            caller.setAutoCommit(false);
            f.queue.enqueueDeduplicated(caller, JOBS, keyed("held", "h")); // holds a row-hash lock in the keys table
            AtomicReference<Thread> cleaner = new AtomicReference<>();
            String scan = TeradataStatements.expiredKeys(N, KeyCleaner.BATCH);
            m.beforeNext(scan::equals, () -> cleaner.set(Thread.currentThread()));
            for (int i = 0; i < KeyCleaner.EVERY; i++) {
                f.queue.enqueueDeduplicated(JOBS, keyed("k" + i, "m" + i)); // the 256th must not wait for the caller
            }
            Waits.until(() -> m.committedRows(N.keysTableName()).stream().noneMatch(r -> "old.".equals(r.get("dedupe_key"))));
            assertNotEquals(Thread.currentThread(), cleaner.get(), "the clean-up ran on its own thread");
            caller.commit();
        }
    }
}
