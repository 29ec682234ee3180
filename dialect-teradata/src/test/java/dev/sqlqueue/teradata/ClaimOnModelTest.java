package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Review findings 4 to 9 on claims, on the model (the database ignores Aborts where a test says so; Connection.abort does nothing, as in terajdbc). */
class ClaimOnModelTest {

    private static void waitUntil(java.util.function.BooleanSupplier cond) {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            while (!cond.getAsBoolean()) {
                Thread.sleep(5);
            }
        });
    }

    @Test
    void aConsumeBlockedOnTheCallersUncommittedEnqueueEndsEvenWhenCancelIsIgnored() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.abortHonoured = false;
        m.maxBlockMillis = 8_000;
        ModelFixture f = new ModelFixture(m, "teradata.consume-cancel-ms", "100");
        try (Connection c = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            f.queue.enqueue(c, JOBS, Message.ofText("outbox"));
            List<Delivery> got = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> f.queue.consume(JOBS, claim(1)),
                    "C14 on the same thread: the peek sees the uncommitted row, the consume waits on its lock");
            assertTrue(got.isEmpty());
            c.commit();
        }
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals("outbox", d.text());
        f.queue.ack(d.receipt());
    }

    @Test
    void aBatchThatLosesThePeekedRowGivesItsRowsBackEvenWhenCancelIsIgnored() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.abortHonoured = false;
        m.maxBlockMillis = 8_000;
        ModelFixture f = new ModelFixture(m, "teradata.consume-cancel-ms", "1000", "teradata.batch-consume-cancel-ms", "100");
        f.queue.enqueueAll(JOBS, List.of(Message.ofText("1"), Message.ofText("2")));
        SqlQueue rival = ModelFixture.open(m);
        Delivery[] stolen = new Delivery[1];
        String consume = TeradataStatements.consume(ModelFixture.N);
        // the second consume of the batch: another consumer takes the row the peek saw
        m.beforeNext(consume::equals, () -> { });
        m.beforeNext(consume::equals, () -> stolen[0] = rival.consume(JOBS, claim(1)).get(0));
        List<Delivery> got = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> f.queue.consume(JOBS, claim(2)));
        assertTrue(got.isEmpty(), "the aborted transaction gave back the first row: nothing is delivered twice");
        rival.ack(stolen[0].receipt());
        Delivery first = f.queue.consume(JOBS, claim(1)).get(0);
        assertEquals("1", first.text(), "the first row is back at once, not held until a producer commits");
        f.queue.ack(first.receipt());
    }

    @Test
    void aLostConnectionDuringCommitSaysTheOutcomeIsUnknown() {
        ModelFixture f = new ModelFixture();
        f.queue.enqueue(JOBS, Message.ofText("x"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.model.loseConnectionAfterNextCommit();
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.queue.ack(d.receipt()));
        assertFalse(e.getMessage().contains("back in the queue"), e.getMessage());
        assertTrue(e.getMessage().contains("outcome is unknown"), e.getMessage());
        assertTrue(f.queueRows().isEmpty(), "the model applied the COMMIT: saying 'rolled back' would be false");
    }

    @Test
    void aCancelArrivingAfterTheConsumeEndedDoesNotFailTheClaim() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.cancelArrivesLate = true;
        ModelFixture f = new ModelFixture(m, "teradata.consume-cancel-ms", "50");
        try (Connection producer = m.dataSource().getConnection()) {
            producer.setAutoCommit(false);
            f.queue.enqueue(producer, JOBS, Message.ofText("late"));
            f.queue.enqueue(JOBS, Message.ofText("next"));
            CompletableFuture<List<Delivery>> claim = CompletableFuture.supplyAsync(() -> f.queue.consume(JOBS, claim(2)));
            waitUntil(() -> m.log.stream().anyMatch(s -> s.endsWith(" cancel")));
            producer.commit();
            List<Delivery> got = assertDoesNotThrow(() -> claim.get(5, TimeUnit.SECONDS));
            for (Delivery d : got) {
                f.queue.ack(d.receipt());
            }
            int left = f.queueRows().size();
            assertEquals(2, got.size() + left, "each message is either delivered or back in the queue");
        }
    }

    @Test
    void aConsumerWaitsBrieflyForAPermitInsteadOfReturningEmpty() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ModelFixture f = new ModelFixture(m, "teradata.max-waiting-sessions", "1");
        try (Connection producer = m.dataSource().getConnection()) {
            producer.setAutoCommit(false);
            f.queue.enqueue(producer, JOBS, Message.ofText("first"));
            f.queue.enqueue(JOBS, Message.ofText("second"));
            CompletableFuture<List<Delivery>> a = CompletableFuture.supplyAsync(() -> f.queue.consume(JOBS, claim(1)));
            waitUntil(() -> m.blockedSessions() == 1);
            CompletableFuture<List<Delivery>> b = CompletableFuture.supplyAsync(() -> f.queue.consume(JOBS, claim(1)));
            Thread.sleep(20);
            producer.commit();
            List<Delivery> gotA = a.get(5, TimeUnit.SECONDS);
            List<Delivery> gotB = b.get(5, TimeUnit.SECONDS);
            assertEquals(1, gotA.size());
            assertEquals(1, gotB.size(), "B waited for the permit A held and took the other row");
            f.queue.ack(gotA.get(0).receipt());
            f.queue.ack(gotB.get(0).receipt());
        }
    }

    @Test
    void aReleasedMessageKeepsItsQitsAcrossADaylightSavingGapOfTheJvmZone() {
        TimeZone before = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Europe/Berlin"));
        try {
            TeradataModel m = new TeradataModel("qdb");
            m.sessionZone = java.time.ZoneOffset.UTC;
            m.clockStart = LocalDateTime.of(2026, 3, 29, 2, 30);
            ModelFixture f = new ModelFixture(m);
            f.queue.enqueueAll(JOBS, List.of(Message.ofText("a"), Message.ofText("b")));
            Object qits = f.queueRows().get(0).get("qits");
            Object enqueued = f.queueRows().get(0).get("enqueued_at");
            List<Delivery> got = f.queue.consume(JOBS, claim(2));
            f.queue.release(got.get(0).receipt());
            f.queue.ack(got.get(1).receipt());
            Map<String, Object> back = f.queueRows().get(0);
            assertEquals(qits, back.get("qits"), "QITS restored exactly, not shifted by the JVM zone's gap");
            assertEquals(enqueued, back.get("enqueued_at"));
        } finally {
            TimeZone.setDefault(before);
        }
    }
}
