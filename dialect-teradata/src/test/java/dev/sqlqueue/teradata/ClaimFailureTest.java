package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static dev.sqlqueue.teradata.Fixture.consume;
import static dev.sqlqueue.teradata.Fixture.consumed;
import static dev.sqlqueue.teradata.Fixture.peek;
import static dev.sqlqueue.teradata.RecordingJdbc.error;
import static dev.sqlqueue.teradata.RecordingJdbc.row;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Error handling, retries and the bound on waiting sessions, as call sequences on the recording double. */
class ClaimFailureTest {
    private static ConsumeRequest claim(int n) {
        return ConsumeRequest.of(n).withMode(ClaimMode.TRANSACTIONAL);
    }

    @Test
    void consumeLimit3128IsRetriedAfterARollback() {
        Fixture f = new Fixture("teradata.retry-backoff-ms", "1");
        f.jdbc.on(TeradataStatements.peek(N), rows(row(Fixture.T0)));
        f.jdbc.on(TeradataStatements.consume(N), error(3128, "40001"));
        f.queueHolds(consumed(4, Map.of(), "a"));
        List<Delivery> got = f.queue.consume(JOBS, claim(1));
        assertEquals(1, got.size());
        assertEquals(List.of(peek(), consume(), "rollback", peek(), consume()), f.jdbc.calls());
    }

    @Test
    void deadlockRetriesRunOutAsTransient() {
        Fixture f = new Fixture("teradata.retry-backoff-ms", "1", "teradata.retry-attempts", "2");
        for (int i = 0; i < 3; i++) {
            f.jdbc.on(TeradataStatements.peek(N), rows(row(Fixture.T0)));
            f.jdbc.on(TeradataStatements.consume(N), error(2631, "40001"));
        }
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.queue.consume(JOBS, claim(1)));
        assertTrue(e.getMessage().contains("2631"), e.getMessage());
        assertEquals(List.of(peek(), consume(), "rollback", peek(), consume(), "rollback", peek(), consume(), "rollback"),
                f.jdbc.calls());
    }

    @Test
    void outputLost2826IsSurfacedNotRetried() {
        Fixture f = new Fixture("teradata.retry-backoff-ms", "1");
        f.jdbc.on(TeradataStatements.peek(N), rows(row(Fixture.T0)));
        f.jdbc.on(TeradataStatements.consume(N), error(2826, "HY000"));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.queue.consume(JOBS, claim(1)));
        assertFalse(e instanceof TransientBackendException);
        assertTrue(e.getMessage().contains("2826"));
        assertEquals(List.of(peek(), consume(), "rollback"), f.jdbc.calls());
    }

    @Test
    void lostConnectionIsTransientAndNotRetriedHere() {
        Fixture f = new Fixture();
        f.jdbc.on(TeradataStatements.peek(N), error(0, "08S01"));
        assertThrows(TransientBackendException.class, () -> f.queue.consume(JOBS, claim(1)));
        assertEquals(List.of(peek(), "rollback"), f.jdbc.calls());
    }

    @Test
    void anUnknownErrorOnADeadConnectionIsTransient() {
        Fixture f = new Fixture();
        f.jdbc.valid = false;
        f.jdbc.on(TeradataStatements.peek(N), error(1234, "HY000"));
        assertThrows(TransientBackendException.class, () -> f.queue.consume(JOBS, claim(1)));
    }

    @Test
    void failedCommitRollsBackAndSaysTheMessagesAreBack() {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "a"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.jdbc.on(TeradataStatements.reinsert(N), error(2631, "40001"));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.queue.nack(d.receipt(), java.time.Duration.ZERO, "x"));
        assertTrue(e.getMessage().contains("back in the queue"), e.getMessage());
        List<String> calls = f.jdbc.calls();
        assertEquals("rollback", calls.get(calls.size() - 1));
        assertFalse(calls.contains("commit"));
    }

    @Test
    void noFreePermitMeansNoConsumeIsSent() throws Exception {
        Fixture f = new Fixture("teradata.max-waiting-sessions", "1", "teradata.consume-cancel-ms", "0");
        f.jdbc.on(TeradataStatements.peek(N), rows(row(Fixture.T0)), rows(row(Fixture.T0)));
        f.jdbc.on(TeradataStatements.consume(N), RecordingJdbc.BLOCK);
        CompletableFuture<List<Delivery>> parked = CompletableFuture.supplyAsync(() -> f.queue.consume(JOBS, claim(1)));
        waitFor(() -> f.jdbc.calls().contains(consume()));
        assertTrue(f.queue.consume(JOBS, claim(1)).isEmpty(), "second consumer gets nothing");
        assertEquals(1, f.jdbc.calls().stream().filter(consume()::equals).count(), "only the parked session consumed");

        f.queue.close();
        assertTrue(parked.get(5, TimeUnit.SECONDS).isEmpty(), "close cancels the parked consume, which returns empty");
        assertTrue(f.jdbc.calls().contains("cancel"));
    }

    @Test
    void aConsumeStillWaitingAfterTheCancelTimeIsCancelledAndRolledBack() {
        Fixture f = new Fixture("teradata.consume-cancel-ms", "50");
        f.jdbc.on(TeradataStatements.peek(N), rows(row(Fixture.T0)));
        f.jdbc.on(TeradataStatements.consume(N), RecordingJdbc.BLOCK);
        assertTrue(f.queue.consume(JOBS, claim(1)).isEmpty());
        assertEquals(List.of(peek(), consume(), "cancel", "rollback"), f.jdbc.calls());
    }

    @Test
    void callerPoolWithAutoCommitOnGetsItsConnectionsBackAsTheyCame() {
        Fixture f = new Fixture();
        f.jdbc.autoCommitOnBorrow = true;
        f.queueHolds(consumed(1, Map.of(), "a"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.ack(d.receipt());
        assertEquals(List.of("autocommit=false", peek(), consume(), "commit", "autocommit=true", "close"), f.jdbc.log);
    }

    @Test
    void errorTypesAreKept() {
        assertInstanceOf(TransientBackendException.class, TeradataErrors.translate("x", error(3111, "HY000"), false));
    }

    private static void waitFor(java.util.function.BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("condition not reached");
            }
            Thread.sleep(5);
        }
    }
}
