package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static dev.sqlqueue.teradata.RecordingJdbc.row;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys on the teradata backend, on the recording double: the key is taken in the keys
 * table in the same transaction as the INSERT of the message, with a MERGE that raises no error when the
 * key is taken (activity count 0), a taken key returns the message recorded on it, a batch takes its keys
 * in sorted order, and the caller's transaction is left open. The statement texts are pinned here too.
 * Behaviour under concurrency and session modes: {@code DeduplicationOnModelTest}. Nothing ran on a
 * Teradata system.
 */
class DeduplicationSequenceTest {
    private static final String DELETE_EXPIRED = "DELETE FROM \"qdb\".\"sqlq_jobs$dk\" WHERE dedupe_key = ? AND expires_at <= CURRENT_TIMESTAMP(6)";
    private static final String MERGE_KEY = "MERGE INTO \"qdb\".\"sqlq_jobs$dk\" AS t USING VALUES (?, CURRENT_TIMESTAMP(6)"
            + " + CAST(? AS INTERVAL DAY(4)) + CAST(? AS INTERVAL MINUTE(4)) + CAST(? AS INTERVAL SECOND(4))) AS s (dedupe_key,"
            + " expires_at) ON t.dedupe_key = s.dedupe_key WHEN NOT MATCHED THEN INSERT (dedupe_key, expires_at)"
            + " VALUES (s.dedupe_key, s.expires_at)";
    private static final String KEY_MESSAGE = "SELECT msg_id FROM \"qdb\".\"sqlq_jobs$dk\" WHERE dedupe_key = ?";
    private static final String SET_KEY_MESSAGE = "UPDATE \"qdb\".\"sqlq_jobs$dk\" SET msg_id = ? WHERE dedupe_key = ?";
    private static final String INSERT = TeradataStatements.insertMessage(N);

    private static Message keyed(String key) {
        return Message.builder("p".getBytes()).deduplicationKey(key).build();
    }

    @Test
    void statementTextsArePinned() {
        assertEquals(DELETE_EXPIRED, TeradataStatements.deleteExpiredKey(N));
        assertEquals(MERGE_KEY, TeradataStatements.mergeKey(N));
        assertEquals(KEY_MESSAGE, TeradataStatements.keyMessage(N));
        assertEquals(SET_KEY_MESSAGE, TeradataStatements.setKeyMessage(N));
        assertEquals("LOCKING TABLE \"qdb\".\"sqlq_jobs$dk\" FOR ACCESS SELECT TOP 1000 dedupe_key FROM \"qdb\".\"sqlq_jobs$dk\""
                + " WHERE expires_at <= CURRENT_TIMESTAMP(6)", TeradataStatements.expiredKeys(N, 1000));
        assertEquals("CREATE MULTISET TABLE \"qdb\".\"sqlq_jobs$dk\", NO FALLBACK (\n"
                + "  dedupe_key VARCHAR(129) CHARACTER SET UNICODE CASESPECIFIC NOT NULL,\n"
                + "  msg_id BIGINT,\n"
                + "  expires_at TIMESTAMP(6) NOT NULL\n"
                + ") UNIQUE PRIMARY INDEX (dedupe_key)", TeradataStatements.createKeysTable(N, false));
    }

    @Test
    void aFreeKeyIsTakenInTheTransactionOfTheInsert() {
        Fixture f = new Fixture();
        assertTrue(f.queue.capabilities().has(Capability.DEDUPLICATION));
        assertEquals(new EnqueueResult(1000, false), f.queue.enqueueDeduplicated(JOBS, keyed("order-1")));
        assertEquals(List.of("U " + DELETE_EXPIRED + " [order-1.]", "U " + MERGE_KEY + " [order-1., 0, 5, 0]",
                "U " + INSERT + " [, bytes[1]]", "U " + SET_KEY_MESSAGE + " [1000, order-1.]", "commit"), f.jdbc.calls());
    }

    @Test
    void aTakenKeyReturnsItsMessageAndEnqueuesNothing() {
        Fixture f = new Fixture();
        f.jdbc.on(MERGE_KEY, 0);
        f.jdbc.on(KEY_MESSAGE, rows(row(77L)));
        assertEquals(new EnqueueResult(77, true), f.queue.enqueueDeduplicated(JOBS, keyed("order-1")));
        List<String> calls = f.jdbc.calls();
        assertTrue(calls.stream().noneMatch(c -> c.contains(INSERT)), "no message inserted: " + calls);
        assertEquals("Q " + KEY_MESSAGE + " [order-1.]", calls.get(calls.size() - 2));
        assertEquals("commit", calls.get(calls.size() - 1));
    }

    @Test
    void aBatchSaysWhichOfItsMessagesWereDuplicates() {
        Fixture f = new Fixture();
        f.jdbc.on(MERGE_KEY, 0);
        f.jdbc.on(KEY_MESSAGE, rows(row(77L)));
        List<EnqueueResult> rs = f.queue.enqueueAllDeduplicated(JOBS, List.of(keyed("taken"), Message.ofText("plain")));
        assertEquals(2, rs.size());
        assertEquals(new EnqueueResult(77, true), rs.get(0));
        assertTrue(!rs.get(1).duplicate() && rs.get(1).id() != 77, "the plain message was inserted: " + rs);
        assertEquals(1, f.jdbc.calls().stream().filter(c -> c.startsWith("U " + INSERT + " ")).count(), "one message inserted");
        assertEquals(1, f.jdbc.calls().stream().filter("commit"::equals).count(), "one transaction");
    }

    @Test
    void trailingSpacesCountAndTheWindowIsBoundInWholeSeconds() {
        Fixture f = new Fixture();
        f.queue.enqueueDeduplicated(JOBS, keyed("k "));
        assertEquals("U " + DELETE_EXPIRED + " [k .]", f.jdbc.calls().get(0), "the key is stored with a terminator");
        assertEquals("k .", KeyedEnqueue.stored("k "));
    }

    @Test
    void inTheCallersTransactionNothingIsCommitted() throws Exception {
        Fixture f = new Fixture();
        try (Connection c = f.jdbc.dataSource().getConnection()) {
            c.setAutoCommit(false);
            f.jdbc.clear();
            assertEquals(new EnqueueResult(1000, false), f.queue.enqueueDeduplicated(c, JOBS, keyed("k")));
            assertEquals(4, f.jdbc.calls().size(), f.jdbc.calls().toString());
            assertTrue(f.jdbc.calls().stream().noneMatch(s -> s.equals("commit") || s.equals("rollback")), f.jdbc.calls().toString());
        }
    }

    @Test
    void aKeyOutsideTheBmpIsRefusedBeforeAnythingIsSent() {
        Fixture f = new Fixture();
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> f.queue.enqueueDeduplicated(JOBS, keyed("\uD834\uDD1E")));
        assertEquals("dedupe.charset", e.rule());
        assertEquals(List.of(), f.jdbc.calls());
    }

    @Test
    void aBatchTakesItsKeysInSortedOrderThenInsertsInBatchOrder() {
        Fixture f = new Fixture();
        List<EnqueueResult> rs = f.queue.enqueueAllDeduplicated(JOBS, List.of(keyed("b"), keyed("a"), keyed("b")));
        List<String> merges = f.jdbc.calls().stream().filter(c -> c.startsWith("U " + MERGE_KEY)).toList();
        assertEquals(List.of("U " + MERGE_KEY + " [a., 0, 5, 0]", "U " + MERGE_KEY + " [b., 0, 5, 0]"), merges,
                "each key once, in sorted order");
        List<String> keyOfInsert = f.jdbc.calls().stream().filter(c -> c.startsWith("U " + SET_KEY_MESSAGE)).toList();
        assertEquals(List.of("U " + SET_KEY_MESSAGE + " [1000, b.]", "U " + SET_KEY_MESSAGE + " [1001, a.]"), keyOfInsert,
                "messages in batch order");
        assertEquals(List.of(new EnqueueResult(1000, false), new EnqueueResult(1001, false), new EnqueueResult(1000, true)), rs);
    }

    @Test
    void aKeyedEnqueueOnACallersConnectionInAutoCommitModeIsRefused() throws Exception {
        Fixture f = new Fixture();
        try (Connection c = f.jdbc.dataSource().getConnection()) {
            c.setAutoCommit(true);
            f.jdbc.clear();
            InvalidInputException e = assertThrows(InvalidInputException.class,
                    () -> f.queue.enqueueDeduplicated(c, JOBS, keyed("k")));
            assertEquals("dedupe.auto-commit", e.rule());
            assertEquals(List.of(), f.jdbc.calls(), "nothing sent");
        }
    }
}
