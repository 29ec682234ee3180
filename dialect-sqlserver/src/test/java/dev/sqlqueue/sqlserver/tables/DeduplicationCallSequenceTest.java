package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.Session;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import dev.sqlqueue.sqlserver.model.SqlServerModel.PrepareMethod;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys on the {@code sqlserver} backend: the call sequences on the recording double (one
 * keyed batch per single enqueue, in the backend's transaction or the caller's, the binds in the statement's
 * order; a batch's keys taken first, in key order; the bounded clean-up every 256th keyed enqueue, in a
 * transaction of its own) and, on the driver/server model, that the batch touches the keys table inside the
 * caller's open transaction without changing its session options. What the statements do under concurrency
 * runs on Babelfish (conformance C24-C26, {@link BabelfishDeduplicationTest}); key-range locks exist only on
 * SQL Server, on which nothing here has run.
 */
class DeduplicationCallSequenceTest {
    private static final QueueName Q = QueueName.of("jobs");
    private final Fixture f = new Fixture(false);

    private static Message keyed(String key) {
        return Message.builder("p".getBytes()).deduplicationKey(key).build();
    }

    private static List<String> oneTransaction(String statement) {
        return List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare " + statement, "executeQuery", "commit", "setAutoCommit(true)", "close");
    }

    @Test
    void declaresDeduplication() {
        assertTrue(f.backend.capabilities().has(Capability.DEDUPLICATION));
    }

    @Test
    void aKeyedEnqueueIsOneBatchInOneTransactionAndTellsADuplicateApart() {
        f.jdbc.rows(RecordingJdbc.row("id", 9L, "duplicate", 0));
        assertEquals(new EnqueueResult(9, false), f.backend.enqueueDeduplicated(Q, keyed("order-1")));
        assertEquals(oneTransaction("enqueueKeyed"), f.jdbc.sequence());
        // queue, key, window 5 min as seconds + ms, priority, delay s + ms, payload, headers
        List<String> binds = f.jdbc.binds();
        assertEquals(List.of("bind 1=jobs", "bind 2=order-1.", "bind 3=300", "bind 4=0", "bind 5=0", "bind 6=0", "bind 7=0"),
                binds.subList(0, 7));
        assertEquals(9, binds.size());

        f.jdbc.calls.clear();
        f.jdbc.rows(RecordingJdbc.row("id", 9L, "duplicate", 1));
        assertEquals(new EnqueueResult(9, true), f.backend.enqueueDeduplicated(Q, keyed("order-1")));
        f.jdbc.rows(RecordingJdbc.row("id", 9L, "duplicate", 1));
        assertEquals(9L, f.backend.enqueue(Q, keyed("order-1")), "plain enqueue returns the first id");
    }

    @Test
    void theConfiguredWindowIsBound() {
        Sessions sessions = new Sessions(f.jdbc.dataSource(), 0, retry -> { });
        SqlServerQueueBackend b = new SqlServerQueueBackend(f.sql, sessions, false, () -> { }, null, ClaimOrder.FIFO,
                Duration.ofMillis(2_345));
        f.jdbc.rows(RecordingJdbc.row("id", 1L, "duplicate", 0));
        b.enqueueDeduplicated(Q, keyed("k"));
        assertEquals(List.of("bind 2=k.", "bind 3=2", "bind 4=345"), f.jdbc.binds().subList(1, 4));
        assertEquals("k .", SqlServerEnqueues.storedKey("k "), "trailing spaces count: the stored key ends in a terminator");
    }

    private static java.util.Map<String, Object> taken() {
        return RecordingJdbc.row("message_id", null);
    }

    /** Review N1: a batch takes its keys first, each once, in stored-key order, then inserts its messages in order. */
    @Test
    void aBatchTakesItsKeysFirstInKeyOrderThenInsertsItsMessagesInTheirOrder() {
        f.jdbc.rows(taken()).rows(taken()) // takeKey a., b.
                .rows(RecordingJdbc.row("id", 1L)) // plain
                .rows(RecordingJdbc.row("id", 2L)).count(1) // b, bindKey b
                .rows(RecordingJdbc.row("id", 3L)).count(1); // a, bindKey a
        List<EnqueueResult> got = f.backend.enqueueAllDeduplicated(Q, List.of(Message.ofText("plain"), keyed("b"), keyed("a"),
                keyed("a")));
        assertEquals(List.of(new EnqueueResult(1, false), new EnqueueResult(2, false), new EnqueueResult(3, false),
                new EnqueueResult(3, true)), got, "the key given twice: the second message is a duplicate of the first");
        List<String> prepared = f.jdbc.sequence().stream().filter(x -> x.startsWith("prepare")).toList();
        assertEquals(List.of("prepare takeKey", "prepare takeKey", "prepare enqueue", "prepare enqueue", "prepare bindKey",
                "prepare enqueue", "prepare bindKey"), prepared);
        List<String> binds = f.jdbc.binds();
        assertEquals(List.of("bind 1=jobs", "bind 2=a.", "bind 3=300", "bind 4=0"), binds.subList(0, 4), "a before b");
        assertEquals(List.of("bind 1=jobs", "bind 2=b.", "bind 3=300", "bind 4=0"), binds.subList(4, 8));
        assertTrue(binds.containsAll(List.of("bind 1=2", "bind 3=b.")), "b's key gets b's id: " + binds);
        assertEquals(1, f.jdbc.sequence().stream().filter("commit"::equals).count(), "one transaction");
    }

    @Test
    void aBatchSaysWhichOfItsMessagesWereDuplicatesAndInsertsNothingForThem() {
        f.jdbc.rows(RecordingJdbc.row("message_id", 4L)) // takeKey a.: held by message 4
                .rows(RecordingJdbc.row("id", 3L)); // plain
        assertEquals(List.of(new EnqueueResult(3, false), new EnqueueResult(4, true)),
                f.backend.enqueueAllDeduplicated(Q, List.of(Message.ofText("plain"), keyed("a"))));
        List<String> prepared = f.jdbc.sequence().stream().filter(x -> x.startsWith("prepare")).toList();
        assertEquals(List.of("prepare takeKey", "prepare enqueue"), prepared);
    }

    /** Review N9: every 256th keyed enqueue, on any path, deletes a batch of expired keys in a transaction of its own. */
    @Test
    void everyTwoHundredFiftySixthKeyedEnqueueDeletesABatchOfExpiredKeysInATransactionOfItsOwn() {
        for (int i = 1; i < SqlServerEnqueues.CLEANUP_EVERY; i += 2) {
            f.jdbc.rows(taken()).rows(taken()).rows(RecordingJdbc.row("id", (long) i)).count(1)
                    .rows(RecordingJdbc.row("id", (long) i + 1)).count(1);
            f.jdbc.calls.clear();
            f.backend.enqueueAll(Q, List.of(keyed("k" + i), keyed("k" + (i + 1))));
            if (i + 2 < SqlServerEnqueues.CLEANUP_EVERY) {
                assertTrue(f.jdbc.sequence().stream().noneMatch("prepare deleteExpiredKeysBatch"::equals), "call " + i);
            }
        }
        List<String> seq = f.jdbc.sequence();
        int commit = seq.indexOf("commit");
        assertEquals(List.of("close", "getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare deleteExpiredKeysBatch", "executeQuery", "commit"), seq.subList(commit + 2, commit + 10),
                "after the enqueue's own commit, on a session of its own: " + seq);
        assertTrue(f.allConnectionsReturnedAsTheyCame());
    }

    /** Review N9 and N2: keyed enqueues in the caller's transaction count too, but never clean up there. */
    @Test
    void keyedEnqueuesInTheCallersTransactionCountButTheCleanUpRunsOnTheBackendsOwnSession() throws SQLException {
        try (Connection c = f.jdbc.dataSource().getConnection()) {
            for (int i = 1; i <= SqlServerEnqueues.CLEANUP_EVERY; i++) {
                f.jdbc.rows(RecordingJdbc.row("id", (long) i, "duplicate", 0));
                f.jdbc.calls.clear();
                f.backend.enqueueDeduplicated(c, Q, keyed("k" + i));
                assertEquals(List.of("prepare enqueueKeyedJoined", "executeQuery"), f.jdbc.sequence(), "call " + i);
            }
        }
        f.jdbc.count(0).rows(RecordingJdbc.row("id", 1L));
        f.jdbc.calls.clear();
        f.backend.enqueue(Q, Message.ofText("plain"));
        List<String> prepared = f.jdbc.sequence().stream().filter(x -> x.startsWith("prepare")).toList();
        assertEquals(List.of("prepare enqueue", "prepare deleteExpiredKeysBatch"), prepared,
                "the next enqueue of the backend's own runs it, after its own transaction");
    }

    @Test
    void inTheCallersTransactionOneBatchAndNothingElse() throws SQLException {
        f.jdbc.rows(RecordingJdbc.row("id", 5L, "duplicate", 1));
        try (Connection c = f.jdbc.dataSource().getConnection()) {
            f.jdbc.calls.clear();
            assertEquals(new EnqueueResult(5, true), f.backend.enqueueDeduplicated(c, Q, keyed("k")));
            assertEquals(List.of("prepare enqueueKeyedJoined", "executeQuery"), f.jdbc.sequence());
        }
    }

    /** On the model: the keyed batch runs in the caller's open transaction and leaves its session options alone. */
    @Test
    void onTheModelTheKeysTableIsWrittenInTheCallersTransaction() throws SQLException {
        SqlServerModel model = new SqlServerModel().prepareMethod(PrepareMethod.NONE);
        ModelFixture m = new ModelFixture(model);
        model.labelled(m.sql.get("enqueueKeyedJoined"), List.of("id", "duplicate"), new Object[] {5L, 0});
        try (Connection c = model.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertEquals(new EnqueueResult(5, false), m.backend.enqueueDeduplicated(c, Q, keyed("k")));
            Session s = model.session(1);
            assertFalse(s.nocount() || s.xactAbort(), s.toString());
            assertEquals(1, s.tranCount(), "the keyed batch is in the caller's open transaction");
            List<Effect> keyEffects = model.effects("DELETE", "[dbo].[sqlq_dedupe_keys]");
            assertEquals(Effect.State.PENDING, keyEffects.get(0).state(), "the key's statements wait for the caller's commit");
            c.rollback();
            assertEquals(Effect.State.ROLLED_BACK, model.effects("DELETE", "[dbo].[sqlq_dedupe_keys]").get(0).state());
        }
    }

    @Test
    void onTheModelTheBackendsOwnKeyedEnqueueCommitsAndRestoresTheSession() {
        SqlServerModel model = new SqlServerModel().prepareMethod(PrepareMethod.NONE);
        ModelFixture m = new ModelFixture(model);
        model.labelled(m.sql.get("enqueueKeyed"), List.of("id", "duplicate"), new Object[] {7L, 1});
        assertEquals(new EnqueueResult(7, true), m.backend.enqueueDeduplicated(Q, keyed("k")));
        Session s = model.session(1);
        assertFalse(s.nocount() || s.xactAbort(), "NOCOUNT and XACT_ABORT do not stay on the pooled session: " + s);
        assertEquals(0, s.tranCount());
        assertEquals(Effect.State.COMMITTED, model.effects("DELETE", "[dbo].[sqlq_dedupe_keys]").get(0).state());
    }
}
