package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * JDBC call sequences of enqueue and administration, on the {@link RecordingJdbc} double (no database
 * semantics: only the calls are verified).
 */
class AdminCallSequenceTest {
    private static final QueueName Q = QueueName.of("jobs");
    private final Fixture f = new Fixture(false);

    @Test
    void enqueueAllWritesEveryMessageInOneTransaction() {
        f.jdbc.rows(RecordingJdbc.row("id", 11L)).rows(RecordingJdbc.row("id", 12L));
        List<Long> ids = f.backend.enqueueAll(Q, List.of(Message.ofText("a"),
                Message.builder(new byte[3]).delay(Duration.ofMillis(1500)).header("k", "v").build()));
        assertEquals(List.of(11L, 12L), ids);
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare enqueue", "executeQuery", "prepare enqueue", "executeQuery", "commit", "setAutoCommit(true)",
                "close"), f.jdbc.sequence());
        assertEquals(List.of("bind 1=0", "bind 2=1", "bind 3=500", "bind 4=bytes[3]", "bind 5=k=v", "bind 6=jobs"),
                f.jdbc.binds().subList(6, 12));
    }

    @Test
    void enqueueIntoAMissingQueueCreatesItInTheSameTransaction() {
        f.jdbc.rows().rows(RecordingJdbc.row("dropping", 0)).rows(RecordingJdbc.row("id", 3L));
        assertEquals(3L, f.backend.enqueue(Q, Message.ofText("a")));
        assertEquals(List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare enqueue", "executeQuery", "prepare createQueue", "executeQuery", "prepare enqueue", "executeQuery",
                "commit", "setAutoCommit(true)", "close"), f.jdbc.sequence());
    }

    @Test
    void queueDroppedUnderTheEnqueueRollsBack() {
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend.enqueue(Q, Message.ofText("a")));
        assertTrue(e.getMessage().contains("dropped"));
        assertTrue(f.jdbc.sequence().contains("rollback"));
        assertTrue(!f.jdbc.sequence().contains("commit"));
    }

    @Test
    void joinedEnqueueCreatesAMissingQueueInItsOwnTransaction() throws SQLException {
        f.jdbc.rows().rows(RecordingJdbc.row("dropping", 0)).rows(RecordingJdbc.row("id", 4L));
        try (var c = f.jdbc.dataSource().getConnection()) {
            f.jdbc.calls.clear();
            assertEquals(4L, f.backend.enqueue(c, Q, Message.ofText("a")));
        }
        assertEquals(List.of("prepare enqueueJoined", "executeQuery", "getConnection", "getTransactionIsolation",
                "getAutoCommit", "setAutoCommit(false)", "prepare createQueue", "executeQuery", "commit", "setAutoCommit(true)",
                "close", "prepare enqueueJoined", "executeQuery", "close"), f.jdbc.sequence());
    }

    @Test
    void dropSchemaRollsBackOpenClaimsFirst() {
        f.jdbc.rows(Fixture.claimed(7, 3, 1, "a", ""));
        f.backend.consume(Q, dev.sqlqueue.ConsumeRequest.of(1).withMode(dev.sqlqueue.ClaimMode.TRANSACTIONAL));
        f.jdbc.calls.clear();
        f.backend.dropSchema();
        assertEquals(List.of("rollback", "setAutoCommit(true)", "close", "getConnection", "getTransactionIsolation",
                "getAutoCommit", "setAutoCommit(false)", "prepare dropSchema", "execute", "commit", "setAutoCommit(true)",
                "close"), f.jdbc.sequence());
        assertTrue(f.backend.capabilities().has(dev.sqlqueue.Capability.DROP_SCHEMA));
    }

    @Test
    void enqueueInTheCallersTransactionTouchesNoConnectionSetting() throws SQLException {
        f.jdbc.rows(RecordingJdbc.row("id", 5L));
        try (var c = f.jdbc.dataSource().getConnection()) {
            f.jdbc.calls.clear();
            assertEquals(5L, f.backend.enqueue(c, Q, Message.ofText("a")));
            assertEquals(List.of("prepare enqueueJoined", "executeQuery"), f.jdbc.sequence());
        }
    }

    @Test
    void overlongDelayIsRejectedBeforeAnyCall() {
        // the message itself refuses the delay (core's Message.MAX_DELAY), so no message with it reaches the backend
        assertEquals("delay.max", assertThrows(InvalidInputException.class,
                () -> Message.builder(new byte[0]).delay(Duration.ofDays(30_000)).build()).rule());
        assertEquals(List.of(), f.jdbc.calls);
    }

    @Test
    void purgeRunsBatchesOfFiveHundredUntilAShortOne() {
        f.jdbc.count(500).count(500).count(3);
        assertEquals(1003, f.backend.purge(Q));
        assertEquals(3, f.jdbc.connections.size(), "each batch its own transaction");
        assertEquals(3, f.jdbc.sequence().stream().filter("commit"::equals).count());
        assertTrue(f.jdbc.binds().containsAll(List.of("bind 1=500", "bind 2=jobs")));
    }

    @Test
    void pruneHistoryDeletesByAgeThenByRowsInBatches() {
        java.time.LocalDateTime cut = Fixture.T0;
        f.jdbc.count(500).count(2).rows(RecordingJdbc.row("finished_at", cut, "id", 42L)).count(500).count(7);
        assertEquals(1009, f.backend.pruneHistory(Q, new dev.sqlqueue.HistoryRetention(java.time.Duration.ofMillis(90_250), 100L)));
        List<String> prepared = f.jdbc.sequence().stream().filter(s -> s.startsWith("prepare")).toList();
        // review N11: the last row kept is read once, not re-read by every batch
        assertEquals(List.of("prepare pruneHistoryAgeBatch", "prepare pruneHistoryAgeBatch", "prepare historyCutoff",
                "prepare pruneHistoryBeforeBatch", "prepare pruneHistoryBeforeBatch"), prepared);
        assertEquals(5, f.jdbc.sequence().stream().filter("commit"::equals).count(), "each batch its own transaction");
        assertTrue(f.jdbc.binds().containsAll(List.of("bind 1=500", "bind 2=jobs", "bind 3=-90", "bind 4=-250")), f.jdbc.binds().toString());
        assertTrue(f.jdbc.binds().containsAll(List.of("bind 1=jobs", "bind 2=99")), "the 100th newest row: " + f.jdbc.binds());
        assertTrue(f.jdbc.binds().containsAll(List.of("bind 3=" + cut, "bind 4=" + cut, "bind 5=42")), f.jdbc.binds().toString());
    }

    /**
     * Review finding 4: the queue row is marked dropping first (enqueue and auto-create then refuse the
     * queue, so no message committed during the drop is purged behind its producer's back) and deleted
     * last, after its rows.
     */
    @Test
    void dropMarksTheQueueFirstThenDeletesItsRowsThenTheQueueRowLast() {
        f.jdbc.count(1).count(0).count(0).count(0).count(0).count(1);
        f.backend.dropQueue(Q);
        List<String> prepared = f.jdbc.sequence().stream().filter(s -> s.startsWith("prepare")).toList();
        assertEquals(List.of("prepare markDropping", "prepare purgeBatch", "prepare purgeDeadLettersBatch",
                "prepare purgeHistoryBatch", "prepare purgeKeysBatch", "prepare deleteQueue"), prepared);
    }

    /** Review finding 4: an enqueue that meets a dropping queue fails; it does not re-create the queue. */
    @Test
    void enqueueIntoADroppingQueueFailsAndCommitsNothing() {
        f.jdbc.rows().rows(RecordingJdbc.row("dropping", 1));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend.enqueue(Q, Message.ofText("a")));
        assertTrue(e.getMessage().contains("is being dropped"), e.getMessage());
        assertTrue(f.sql.get("enqueue").endsWith("WHERE [q].[name] = ? AND [q].[dropping] = 0;"));
        assertTrue(f.sql.get("createQueue").contains("WHERE NOT EXISTS (SELECT 1 FROM [dbo].[sqlq_queues] WITH (UPDLOCK, "
                + "HOLDLOCK) WHERE [name] = ?)"), "auto-create sees the dropping row and inserts none");
        assertEquals(List.of("prepare enqueue", "executeQuery", "prepare createQueue", "executeQuery", "rollback"),
                f.jdbc.sequence().subList(4, 9));
        assertTrue(!f.jdbc.sequence().contains("commit"));
    }

    @Test
    void statsMapsEveryColumn() {
        f.jdbc.rows(RecordingJdbc.row("ready", 4L, "in_flight", 2L, "delayed", 1L, "dead", 3L, "oldest_ms", 1500L,
                "processed", 9L));
        assertEquals(new QueueStats(Q, 4, 2, 1, 3, 1500, 9), f.backend.stats(Q));
        assertEquals(List.of("bind 1=jobs"), f.jdbc.binds());
    }

    @Test
    void requeueOfListedIdsIsOneTransactionAndOfAllIsBatched() {
        f.jdbc.count(1).count(0);
        assertEquals(1, f.backend.requeueDeadLetters(Q, List.of(4L, 5L)));
        assertEquals(1, f.jdbc.connections.size());
        Fixture g = new Fixture(false);
        g.jdbc.count(2);
        assertEquals(2, g.backend.requeueDeadLetters(Q, List.of()));
        assertTrue(g.jdbc.sequence().contains("prepare requeueDeadLettersBatch"));
    }

    @Test
    void requeueOfManyIdsCommitsEveryFiveHundred() {
        List<Long> ids = java.util.stream.LongStream.rangeClosed(1, 1001).boxed().toList();
        for (int i = 0; i < 1001; i++) {
            f.jdbc.count(1);
        }
        assertEquals(1001, f.backend.requeueDeadLetters(Q, ids));
        assertEquals(3, f.jdbc.connections.size(), "500 + 500 + 1");
        assertEquals(3, f.jdbc.sequence().stream().filter("commit"::equals).count());
    }

    @Test
    void queuesAreSortedByName() {
        f.jdbc.rows(RecordingJdbc.row("name", "b"), RecordingJdbc.row("name", "A"), RecordingJdbc.row("name", "a"));
        assertEquals(List.of(QueueName.of("A"), QueueName.of("a"), QueueName.of("b")), f.backend.queues());
    }

    @Test
    void createQueueBindsTheNameTwice() {
        f.backend.createQueue(QueueName.of("select"));
        assertEquals(List.of("bind 1=select", "bind 2=select", "bind 3=select"), f.jdbc.binds());
        assertTrue(f.jdbc.sequence().containsAll(List.of("prepare createQueue", "executeQuery", "commit")));
    }

    /** Review N10: creating a queue whose drop did not finish says so and commits nothing, instead of a silent no-op. */
    @Test
    void createQueueOnAQueueWhoseDropDidNotFinishIsRefused() {
        f.jdbc.rows(RecordingJdbc.row("dropping", 1));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend.createQueue(Q));
        assertTrue(e.getMessage().contains("is being dropped: a drop of it has not finished"), e.getMessage());
        assertTrue(f.jdbc.sequence().contains("rollback") && !f.jdbc.sequence().contains("commit"), f.jdbc.sequence().toString());
    }

    /** The sequence of a read-only or single-statement operation on a READ COMMITTED, auto-commit pool. */
    private static List<String> oneTransaction(String statement, String execute) {
        return List.of("getConnection", "getTransactionIsolation", "getAutoCommit", "setAutoCommit(false)",
                "prepare " + statement, execute, "commit", "setAutoCommit(true)", "close");
    }

    @Test
    void listingsAndVersionRunOneStatementInOneTransaction() {
        f.backend.deadLetters(Q, 10);
        assertEquals(oneTransaction("listDeadLetters", "executeQuery"), f.jdbc.sequence());
        assertEquals(List.of("bind 1=10", "bind 2=jobs"), f.jdbc.binds());
        Fixture g = new Fixture(false);
        g.backend.history(Q, 5);
        assertEquals(oneTransaction("listHistory", "executeQuery"), g.jdbc.sequence());
        Fixture h = new Fixture(false);
        h.backend.queues();
        assertEquals(oneTransaction("listQueues", "executeQuery"), h.jdbc.sequence());
        Fixture v = new Fixture(false);
        v.jdbc.rows(RecordingJdbc.row("version", "16.0.4135.4", "edition", "Developer Edition (64-bit)"));
        assertEquals("Microsoft SQL Server 16.0.4135.4 (Developer Edition (64-bit))", v.backend.serverVersion());
        assertEquals(oneTransaction("serverVersion", "executeQuery"), v.jdbc.sequence());
        Fixture s = new Fixture(false);
        s.jdbc.rows(RecordingJdbc.row("ready", 0L, "in_flight", 0L, "delayed", 0L, "dead", 0L, "oldest_ms", 0L, "processed", 0L));
        s.backend.stats(Q);
        assertEquals(oneTransaction("stats", "executeQuery"), s.jdbc.sequence());
    }

    @Test
    void purgeDeadLettersAndCreateQueueSequences() {
        f.jdbc.count(2);
        assertEquals(2, f.backend.purgeDeadLetters(Q));
        assertEquals(oneTransaction("purgeDeadLettersBatch", "executeQuery"), f.jdbc.sequence());
        Fixture g = new Fixture(false);
        g.backend.createQueue(Q);
        assertEquals(oneTransaction("createQueue", "executeQuery"), g.jdbc.sequence());
    }

    @Test
    void dropQueueCommitsEachStepSeparately() {
        f.jdbc.count(1).count(0).count(0).count(0).count(0).count(1);
        f.backend.dropQueue(Q);
        List<String> expected = new java.util.ArrayList<>();
        for (String st : List.of("markDropping", "purgeBatch", "purgeDeadLettersBatch", "purgeHistoryBatch", "purgeKeysBatch", "deleteQueue")) {
            expected.addAll(oneTransaction(st, "executeQuery"));
        }
        assertEquals(expected, f.jdbc.sequence());
    }

    @Test
    void brokenPoolIsTransientForAdminToo() {
        f.jdbc.failOn("getConnection", new SQLException("refused", "08S01", 0));
        assertThrows(TransientBackendException.class, () -> f.backend.stats(Q));
    }

    /**
     * Review finding 5 (accepted, documented): a purge batch and an ack on the same row can deadlock
     * (the purge seeks the claim index first, the ack the primary key); the purge batch chosen as victim
     * is retried whole and the purge goes on.
     */
    @Test
    void purgeBatchChosenAsDeadlockVictimIsRetriedAndThePurgeGoesOn() {
        f.jdbc.failOn("executeQuery", new SQLException("deadlock", "40001", 1205));
        f.jdbc.count(500).count(2);
        assertEquals(502, f.backend.purge(Q));
        assertEquals(List.of(1), f.pauses);
        assertEquals(3, f.jdbc.connections.size(), "victim, retry, last batch");
        assertEquals("rollback", f.jdbc.sequence().get(6));
    }
}
