package dev.sqlqueue.sqlserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
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
 * keyed batch per enqueue, in the backend's transaction or the caller's, the binds in the statement's
 * order, the bounded clean-up every 256th keyed enqueue) and, on the driver/server model, that the batch
 * touches the keys table inside the caller's open transaction without changing its session options.
 * What the batch's UPDLOCK, HOLDLOCK read does under concurrency is the server's; it has not run on one.
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
        assertEquals("k .", SqlServerQueueBackend.storedKey("k "), "trailing spaces count: the stored key ends in a terminator");
    }

    @Test
    void aBatchUsesTheKeyedStatementOnlyForKeyedMessages() {
        f.jdbc.rows(RecordingJdbc.row("id", 1L)).rows(RecordingJdbc.row("id", 1L, "duplicate", 0))
                .rows(RecordingJdbc.row("id", 1L, "duplicate", 1));
        assertEquals(List.of(1L, 1L, 1L), f.backend.enqueueAll(Q, List.of(Message.ofText("plain"), keyed("a"), keyed("a"))));
        List<String> prepared = f.jdbc.sequence().stream().filter(s -> s.startsWith("prepare")).toList();
        assertEquals(List.of("prepare enqueue", "prepare enqueueKeyed", "prepare enqueueKeyed"), prepared);
        assertEquals(1, f.jdbc.sequence().stream().filter("commit"::equals).count(), "one transaction");
    }

    @Test
    void aBatchSaysWhichOfItsMessagesWereDuplicates() {
        f.jdbc.rows(RecordingJdbc.row("id", 3L)).rows(RecordingJdbc.row("id", 4L, "duplicate", 0))
                .rows(RecordingJdbc.row("id", 4L, "duplicate", 1));
        assertEquals(List.of(new EnqueueResult(3, false), new EnqueueResult(4, false), new EnqueueResult(4, true)),
                f.backend.enqueueAllDeduplicated(Q, List.of(Message.ofText("plain"), keyed("a"), keyed("a"))));
        assertEquals(1, f.jdbc.sequence().stream().filter("commit"::equals).count(), "one transaction");
    }

    @Test
    void everyTwoHundredFiftySixthKeyedEnqueueDeletesABatchOfExpiredKeys() {
        List<String> prepared = new ArrayList<>();
        for (int i = 1; i <= SqlServerQueueBackend.CLEANUP_EVERY; i++) {
            f.jdbc.rows(RecordingJdbc.row("id", (long) i, "duplicate", 0));
            if (i == SqlServerQueueBackend.CLEANUP_EVERY) {
                f.jdbc.count(0);
            }
            f.jdbc.calls.clear();
            f.backend.enqueueDeduplicated(Q, keyed("k" + i));
            prepared = f.jdbc.sequence().stream().filter(s -> s.startsWith("prepare")).toList();
            if (i < SqlServerQueueBackend.CLEANUP_EVERY) {
                assertEquals(List.of("prepare enqueueKeyed"), prepared);
            }
        }
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare enqueueKeyed", "executeQuery", "prepare deleteExpiredKeysBatch", "executeQuery", "commit",
                "setAutoCommit(true)", "close"), f.jdbc.sequence(), "in the same transaction, bounded");
        assertEquals(List.of("bind 1=" + SqlServerStatements.MAINTENANCE_BATCH), f.jdbc.binds().subList(9, 10));
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
