package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static dev.sqlqueue.teradata.Fixture.T0;
import static dev.sqlqueue.teradata.Fixture.consume;
import static dev.sqlqueue.teradata.Fixture.consumed;
import static dev.sqlqueue.teradata.Fixture.peek;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Call sequences of transactional claims, through {@link dev.sqlqueue.SqlQueue} on the recording JDBC
 * double. The double does not consume or roll back anything; these tests pin which statements, commits
 * and rollbacks the backend sends, in which order.
 */
class ClaimSequenceTest {
    private static final String COMMIT = "commit";
    private static final String ROLLBACK = "rollback";

    private static ConsumeRequest claim(int n) {
        return ConsumeRequest.of(n).withMode(ClaimMode.TRANSACTIONAL);
    }

    @Test
    void emptyQueueIsPeekedAndNeverConsumed() {
        Fixture f = new Fixture();
        assertTrue(f.queue.consume(JOBS, claim(5)).isEmpty());
        assertEquals(List.of(peek(), ROLLBACK), f.jdbc.calls());
        assertTrue(f.jdbc.log.contains("autocommit=false") == false, "pool connections already had auto-commit off");
    }

    @Test
    void batchIsOneConsumePerMessageAfterAPeekAndCommitsWhenTheLastIsAcked() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(7, Map.of("k", "v"), "a"), consumed(8, Map.of(), "b"));
        List<Delivery> got = f.queue.consume(JOBS, claim(5));
        assertEquals(2, got.size());
        assertEquals(List.of(7L, 8L), got.stream().map(Delivery::id).toList());
        assertEquals(Map.of("k", "v"), got.get(0).headers());
        assertEquals("a", got.get(0).text());
        assertEquals(1, got.get(0).attempt());
        assertEquals(T0.toInstant(), got.get(0).enqueuedAt());
        assertEquals(got.get(0).receipt().token(), got.get(1).receipt().token(), "one claim, one token");
        assertEquals(List.of(peek(), consume(), peek(), consume(), peek()), f.jdbc.calls());

        f.queue.ack(got.get(0).receipt());
        assertEquals(5, f.jdbc.calls().size(), "nothing sent before the last delivery is settled");
        f.queue.ack(got.get(1).receipt());
        assertEquals(List.of(peek(), consume(), peek(), consume(), peek(), COMMIT), f.jdbc.calls());
        assertEquals("close", f.jdbc.log.get(f.jdbc.log.size() - 1), "connection returned after the commit");
    }

    @Test
    void aReceiptNamingAnotherQueueIsRefusedAndChangesNothing() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(7, Map.of(), "a"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        dev.sqlqueue.Receipt forged = new dev.sqlqueue.Receipt(dev.sqlqueue.QueueName.of("other"), d.id(),
                d.receipt().token(), d.receipt().mode());
        dev.sqlqueue.InvalidInputException e = assertThrows(dev.sqlqueue.InvalidInputException.class, () -> f.queue.ack(forged));
        assertEquals("receipt.queue", e.rule());
        assertEquals(List.of(peek(), consume()), f.jdbc.calls(), "nothing sent");
        f.queue.ack(d.receipt());
        assertEquals(List.of(peek(), consume(), COMMIT), f.jdbc.calls(), "the claim is intact and commits");
    }

    @Test
    void batchStopsAtMaxMessages() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"), consumed(2, Map.of(), "b"));
        assertEquals(1, f.queue.consume(JOBS, claim(1)).size());
        assertEquals(List.of(peek(), consume()), f.jdbc.calls());
    }

    @Test
    void msgIdOfAReinsertedRowIsTheMessageId() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(99, 7L, 2, "", new byte[0]));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals(7L, d.id());
        assertEquals(3, d.attempt());
    }

    @Test
    void nackReinsertsWithTheAttemptRaisedAndCommitsWithTheConsume() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(5, Map.of("h", "1"), "x"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.nack(d.receipt(), Duration.ZERO, "boom");
        assertEquals(List.of(peek(), consume(),
                "U " + TeradataStatements.reinsert(N) + " [5, 1, " + T0 + ", boom, h=1, bytes[1]]", COMMIT), f.jdbc.calls());
    }

    @Test
    void deadLetterInsertsIntoTheDeadLetterTableInTheSameTransaction() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(5, 3L, 4, "h=1", new byte[] {1, 2}));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.deadLetter(d.receipt(), "poison");
        assertEquals(List.of(peek(), consume(),
                "U " + TeradataStatements.insertDeadLetter(N) + " [3, 5, poison, " + T0 + ", h=1, bytes[2]]", COMMIT),
                f.jdbc.calls());
    }

    @Test
    void releasingEveryDeliveryRollsBack() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"), consumed(2, Map.of(), "b"));
        List<Delivery> got = f.queue.consume(JOBS, claim(2));
        got.forEach(d -> f.queue.release(d.receipt()));
        assertEquals(List.of(peek(), consume(), peek(), consume(), ROLLBACK), f.jdbc.calls());
    }

    @Test
    void releaseInACommittingClaimRestoresTheRowWithItsQitsAndAttempts() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"), consumed(2, null, 1, "", new byte[0]));
        List<Delivery> got = f.queue.consume(JOBS, claim(2));
        f.queue.release(got.get(1).receipt());
        f.queue.ack(got.get(0).receipt());
        assertEquals(List.of(peek(), consume(), peek(), consume(),
                "U " + TeradataStatements.restore(N) + " [" + T0 + ", 2, 1, " + T0 + ", null, , bytes[0]]", COMMIT),
                f.jdbc.calls());
    }

    @Test
    void malformedHeadersGoToDeadLetterAndAreNotReturned() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, null, 0, "no equals sign", new byte[] {9}), consumed(2, Map.of(), "good"));
        List<Delivery> got = f.queue.consume(JOBS, claim(1));
        assertEquals(List.of(2L), got.stream().map(Delivery::id).toList());
        f.queue.ack(got.get(0).receipt());
        List<String> calls = f.jdbc.calls();
        assertEquals(List.of(peek(), consume(), peek(), consume()), calls.subList(0, 4));
        assertTrue(calls.get(4).startsWith("U " + TeradataStatements.insertDeadLetter(N) + " [1, 1, malformed headers: "),
                calls.get(4));
        assertEquals(COMMIT, calls.get(5));
    }

    @Test
    void onlyMalformedRowsCommitTheirDeadLettersAtOnce() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, null, 0, "a\\q=1", new byte[0]));
        assertTrue(f.queue.consume(JOBS, claim(3)).isEmpty());
        List<String> calls = f.jdbc.calls();
        assertEquals(List.of(peek(), consume(), peek()), calls.subList(0, 3));
        assertTrue(calls.get(3).startsWith("U " + TeradataStatements.insertDeadLetter(N)));
        assertEquals(COMMIT, calls.get(4));
    }

    @Test
    void settlingTwiceOrAfterTheClaimEndedIsLeaseLost() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"), consumed(2, Map.of(), "b"));
        List<Delivery> got = f.queue.consume(JOBS, claim(2));
        f.queue.ack(got.get(0).receipt());
        assertThrows(LeaseLostException.class, () -> f.queue.ack(got.get(0).receipt()));
        f.queue.ack(got.get(1).receipt());
        int sent = f.jdbc.calls().size();
        assertThrows(LeaseLostException.class, () -> f.queue.nack(got.get(1).receipt(), Duration.ZERO, "late"));
        assertEquals(Set.of(got.get(0).receipt()), f.queue.ackAll(List.of(got.get(0).receipt())));
        assertEquals(sent, f.jdbc.calls().size(), "nothing sent for lost receipts");
    }

    @Test
    void closeRollsBackOpenClaims() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.close();
        assertEquals(List.of(peek(), consume(), ROLLBACK), f.jdbc.calls());
        assertThrows(LeaseLostException.class, () -> f.queue.ack(d.receipt()));
        int sent = f.jdbc.calls().size();
        assertThrows(dev.sqlqueue.SqlQueueException.class, () -> f.queue.consume(JOBS, claim(1)));
        assertEquals(sent, f.jdbc.calls().size(), "a closed backend sends nothing");
    }

    @Test
    void statsCountRowsAndThisProcessesOpenDeliveries() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"));
        f.queue.consume(JOBS, claim(1));
        f.jdbc.on(TeradataStatements.queueStats(N),
                rows(RecordingJdbc.row(3L, T0, new java.sql.Timestamp(T0.getTime() + 1500))));
        f.jdbc.on(TeradataStatements.deadLetterCount(N), rows(RecordingJdbc.row(2L)));
        var s = f.queue.stats(JOBS);
        assertEquals(3, s.ready());
        assertEquals(1, s.inFlight());
        assertEquals(2, s.dead());
        assertEquals(1500, s.oldestReadyAgeMillis());
        assertEquals(4, s.depth());
    }

    @Test
    void payloadBytesAreReturnedIntact() {
        Fixture f = new Fixture();
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        f.queueHolds(consumed(1, null, 0, "", all));
        assertArrayEquals(all, f.queue.consume(JOBS, claim(1)).get(0).payload());
    }
}
