package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.H2;
import static dev.sqlqueue.sqlserver.broker.Fixture.H3;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static dev.sqlqueue.sqlserver.broker.Fixture.data;
import static dev.sqlqueue.sqlserver.broker.Fixture.other;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.UnsupportedCapabilityException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Call sequences of consume and settlement on the {@link dev.sqlqueue.sqlserver.model.SqlServerModel}. */
class BrokerReceiverTest {
    private static final ConsumeRequest TX = new ConsumeRequest(10, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);

    private static String fill(Fixture f) {
        return f.sql.dialogs().fillDialogs(Q, f.options.dialogLifetimeSeconds());
    }

    @Test
    void receiveReturnsDeliveriesAndKeepsTheTransactionOpenUntilAck() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "hello", Map.of("k", "v")));
        List<Delivery> got = f.backend().consume(Q, TX.withWait(Duration.ofMillis(1500)));
        assertEquals(1, got.size());
        Delivery d = got.get(0);
        assertEquals(5L, d.id());
        assertEquals("hello", d.text());
        assertEquals(Map.of("k", "v"), d.headers());
        assertEquals(1, d.attempt());
        assertEquals(Instant.ofEpochMilli(1_700_000_000_005L), d.enqueuedAt());
        assertEquals(ClaimMode.TRANSACTIONAL, d.receipt().mode());
        String receive = f.jdbc.logContaining("exec " + f.sql.claims().receive(Q)).get(0);
        assertTrue(receive.startsWith("c1 exec " + f.sql.claims().receive(Q) + " <-- [1, 1"), "TOP 1 first, timeout about 1500 ms: " + receive);
        assertEquals(List.of("c1 exec " + f.sql.claims().attemptsOf(1) + " <-- [jobs, 5]"), f.jdbc.logContaining(f.sql.claims().attemptsOf(1)));
        assertTrue(f.jdbc.logContaining("commit").isEmpty(), "open until settled");
        assertTrue(f.jdbc.logContaining("close").isEmpty());
        f.backend().ack(d.receipt());
        List<String> c1 = f.jdbc.logContaining("c1 ");
        assertEquals(List.of("c1 exec " + f.sql.claims().clearAttempts() + " <-- [jobs, 5]", "c1 commit", "c1 autoCommit=true", "c1 close"),
                c1.subList(c1.size() - 4, c1.size()));
    }

    @Test
    void releaseOfTheWholeClaimRollsBackWithoutCounting() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().release(d.receipt());
        assertEquals(List.of("c1 exec " + f.sql.claims().releaseClaim(0) + " <-- [jobs]"), f.jdbc.logContaining(f.sql.claims().releaseClaim(0)));
        assertTrue(f.jdbc.logContaining("rollback").isEmpty());
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"), "no transaction is rolled back as a whole");
        assertTrue(f.jdbc.logContaining(f.sql.claims().raiseAttempts()).isEmpty());
        assertEquals(1, f.jdbc.sessionsOpened());
    }

    @Test
    void mixedClaimCommitsAndSendsTheNackedMessageAgainWithItsId() throws Exception {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of("h", "1")));
        f.broker.nextDialogs(H3);
        List<Delivery> got = f.backend().consume(Q, TX);
        assertEquals(2, got.size());
        f.backend().ack(got.get(0).receipt());
        assertTrue(f.jdbc.logContaining("commit").isEmpty(), "still one delivery pending");
        f.backend().nack(got.get(1).receipt(), Duration.ZERO, "later");
        List<String> c1 = f.jdbc.logContaining("c1 ");
        String resend = f.jdbc.logContaining("c1 exec " + f.sql.sending().resend(Q)).get(0);
        assertTrue(resend.startsWith("c1 exec " + f.sql.sending().resend(Q) + " <-- [" + H3 + ", bytes["), resend);
        byte[] expected = new Envelope(6L, 1_700_000_000_006L, "h=1", "b".getBytes(StandardCharsets.UTF_8)).encode();
        assertTrue(resend.endsWith("bytes" + java.util.Arrays.toString(expected) + "]"), "same id, enqueue time, headers, payload");
        assertTrue(c1.contains("c1 exec " + f.sql.claims().raiseAttempts() + " <-- [jobs, 6, later]"));
        assertTrue(c1.contains("c1 exec " + f.sql.claims().clearAttempts() + " <-- [jobs, 5]"));
        assertTrue(c1.indexOf("c1 commit") > c1.indexOf(resend));
        assertTrue(f.jdbc.logContaining("rollback").isEmpty());
    }

    /** N6: the settle's statement bound (its lease) is not the bound of the pool fill its resend triggers. */
    @Test
    void aPoolFillTriggeredByASettlementRunsWithoutTheClaimsQueryTimeout() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of()));
        f.broker.nextDialogs(H3);
        List<Delivery> got = f.backend().consume(Q, TX.withLease(Duration.ofSeconds(20)));
        f.backend().ack(got.get(0).receipt());
        f.backend().release(got.get(1).receipt());
        assertEquals(20, f.jdbc.queryTimeoutOf(f.sql.sending().resend(Q)), "the claim's own statements keep the lease bound");
        assertEquals(0, f.jdbc.queryTimeoutOf(fill(f)), "the fill, on another connection, is not the claim's statement");
        assertEquals(0, f.jdbc.queryTimeoutOf(f.sql.dialogs().adoptDialogs()));
        assertTrue(f.jdbc.logContaining("c1 commit").size() == 1, f.jdbc.log().toString());
    }

    @Test
    void deadLetterCopiesTheMessageAndCommits() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "bad", Map.of("k", "v")));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().deadLetter(d.receipt(), "handler gave up");
        List<String> c1 = f.jdbc.logContaining("c1 ");
        String dl = "c1 exec " + f.sql.deadLetters().insertDeadLetter() + " <-- [jobs, 5, bytes[98, 97, 100], k=v, 1, handler gave up, 1700000000005, null]";
        assertTrue(c1.indexOf(dl) >= 0, c1.toString());
        assertTrue(c1.indexOf("c1 commit") > c1.indexOf(dl));
    }

    @Test
    void messageAtTheAttemptLimitIsDeadLetteredOnReceiptAndNeverReturned() {
        Fixture f = new Fixture("broker.maxAttempts", "3");
        f.arrive(data(H1, 1, 5L, "poison", Map.of()));
        f.jdbc.rows(f.sql.claims().attemptsOf(1), new Object[] {5L, 3});
        List<Delivery> got = f.backend().consume(Q, TX);
        assertTrue(got.isEmpty());
        List<String> c1 = f.jdbc.logContaining("c1 ");
        int dl = c1.indexOf("c1 exec " + f.sql.deadLetters().insertDeadLetter()
                + " <-- [jobs, 5, bytes[112, 111, 105, 115, 111, 110], , 3, poison message: 3 attempts reached broker.maxAttempts = 3, 1700000000005, null]");
        assertTrue(dl > 0, c1.toString());
        assertEquals("c1 exec " + f.sql.claims().clearAttempts() + " <-- [jobs, 5]", c1.get(dl + 1));
        assertEquals("c1 commit", c1.get(dl + 2), "the transaction commits: no rollback can count against the queue");
        assertTrue(f.jdbc.logContaining("rollback").isEmpty());
    }

    @Test
    void undecodableBodyGoesToDeadLetterBytesIntact() {
        Fixture f = new Fixture();
        byte[] garbage = {9, 8, 7};
        f.arrive(other(H1, "sqlq_bk:jobs:msg", garbage));
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        String dl = f.jdbc.logContaining(f.sql.deadLetters().insertDeadLetter()).get(0);
        assertTrue(dl.endsWith(" <-- [jobs, 0, bytes[9, 8, 7], , 1, undecodable message: message body of 3 bytes is shorter than the 21-byte envelope header, null, null]"), dl);
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void malformedHeadersGoToDeadLetter() {
        Fixture f = new Fixture();
        byte[] body = new Envelope(8L, 1L, "no equals sign", new byte[] {1}).encode();
        f.arrive(other(H1, "sqlq_bk:jobs:msg", body));
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        String dl = f.jdbc.logContaining(f.sql.deadLetters().insertDeadLetter()).get(0);
        assertTrue(dl.contains(" <-- [jobs, 8, bytes" + java.util.Arrays.toString(body) + ", , 1, undecodable message: header line without '='"), dl);
    }

    @Test
    void endOfStreamAndEndDialogEndTheTargetSide() {
        // two conversations are two conversation groups: one RECEIVE, hence one consume, each
        Fixture f = new Fixture();
        f.arrive(other(H1, "sqlq_bk:jobs:eos", null), other(H2, BrokerStatements.END_DIALOG, null));
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        assertEquals(List.of("c1 exec DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; <-- [" + H1 + "]", "c2 exec DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; <-- [" + H2 + "]"),
                f.jdbc.logContaining("END CONVERSATION"));
        assertEquals(List.of("c1 commit", "c2 commit"), f.jdbc.logContaining("commit"));
        assertTrue(f.broker.messages(f.targetQueue()).isEmpty());
    }

    @Test
    void errorMessageEndsOurSideAndDataBeforeItInTheSameBatchIsStillDelivered() {
        // an Error (LIFETIME expired) arrives on the same conversation after its data messages
        Fixture f = new Fixture();
        byte[] err = ("<Error xmlns=\"http://schemas.microsoft.com/SQL/ServiceBroker/Error\"><Code>-8489</Code>"
                + "<Description>The dialog has exceeded the specified LIFETIME.</Description></Error>").getBytes(StandardCharsets.UTF_16LE);
        f.arrive(data(H1, 1, 5L, "x", Map.of()), other(H1, BrokerStatements.ERROR, err));
        assertEquals(1, f.backend().consume(Q, TX).size());
        assertEquals(List.of("c1 exec DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; <-- [" + H1 + "]"), f.jdbc.logContaining("END CONVERSATION"));
        assertEquals("code -8489: The dialog has exceeded the specified LIFETIME.", SystemMessages.describeError(err));
    }

    @Test
    void dialogTimerIsDroppedWithoutEndingTheConversation() {
        Fixture f = new Fixture();
        f.arrive(other(H1, BrokerStatements.DIALOG_TIMER, null));
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        assertTrue(f.jdbc.logContaining("END CONVERSATION").isEmpty());
    }

    @Test
    void disabledQueueIsReportedAndNotAskedAgainDuringTheQuietPeriod() {
        Fixture f = new Fixture();
        f.jdbc.fail(f.sql.claims().receive(Q), 9617, "S0001");
        QueueDisabledException e = assertThrows(QueueDisabledException.class, () -> f.backend().consume(Q, TX));
        assertTrue(e.getMessage().contains("is disabled (error 9617)"), e.getMessage());
        assertTrue(e.getMessage().contains("ALTER QUEUE [dbo].[sqlq_bk:jobs:queue] WITH STATUS = ON"), e.getMessage());
        int opened = f.jdbc.sessionsOpened();
        long t0 = System.nanoTime();
        assertThrows(QueueDisabledException.class, () -> f.backend().consume(Q, TX.withWait(Duration.ofMillis(200))));
        assertTrue(System.nanoTime() - t0 >= 150_000_000L, "waits out maxWait instead of spinning");
        assertEquals(opened, f.jdbc.sessionsOpened(), "no new connection, no statement");
        assertEquals(List.of("c1 rollback"), f.jdbc.logContaining("rollback"));
    }

    @Test
    void ackAllCommitsOnceAndReportsLostReceipts() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of()));
        List<Delivery> got = f.backend().consume(Q, TX);
        dev.sqlqueue.Receipt stale = new dev.sqlqueue.Receipt(Q, 99L, 12345L, ClaimMode.TRANSACTIONAL);
        var lost = f.backend().ackAll(List.of(got.get(0).receipt(), stale, got.get(1).receipt()));
        assertEquals(java.util.Set.of(stale), lost);
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void settledOrUnknownReceiptsAreLeaseLost() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().ack(d.receipt());
        assertThrows(LeaseLostException.class, () -> f.backend().ack(d.receipt()));
        assertThrows(LeaseLostException.class, () -> f.backend().nack(d.receipt(), Duration.ZERO, "late"));
        assertEquals(1, f.jdbc.logContaining("commit").size(), "nothing ran for the late calls");
    }

    @Test
    void unsupportedModesAndOptionsAreRefused() {
        Fixture f = new Fixture();
        assertThrows(InvalidInputException.class, () -> f.backend().consume(Q, TX.withMode(ClaimMode.LEASE)));
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        assertThrows(UnsupportedCapabilityException.class, () -> f.backend().nack(d.receipt(), Duration.ofSeconds(1), "e"));
        assertThrows(UnsupportedCapabilityException.class, () -> f.backend().extend(d.receipt(), Duration.ofSeconds(1)));
        f.backend().release(d.receipt());
    }

    @Test
    void emptyWaitCommitsAndReturnsTheConnection() {
        Fixture f = new Fixture();
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        assertEquals(List.of("c1 autoCommit=false", "c1 savepoint sqlq_receive (opened the transaction)", "c1 exec " + f.sql.claims().receive(Q) + " <-- [1, 0]", "c1 commit",
                "c1 autoCommit=true", "c1 close"), f.jdbc.log());
    }

    @Test
    void closeRollsBackOpenClaims() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().close();
        assertEquals(List.of("c1 rollback"), f.jdbc.logContaining("c1 rollback"));
        assertTrue(f.jdbc.log().contains("c1 close"));
        assertThrows(LeaseLostException.class, () -> f.backend().ack(d.receipt()));
        assertArrayEquals(new byte[] {'x'}, d.payload());
    }

    @Test
    void aResendThatGetsNoPooledDialogRollsTheClaimBackInsteadOfCommittingTheAcksAlone() throws Exception {
        Fixture f = new Fixture("broker.dialogPoolSize", "1", "broker.sendWaitMillis", "20");
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of()));
        List<Delivery> got = f.backend().consume(Q, TX);
        f.backend().ack(got.get(0).receipt());
        // a producer holds the pool's only dialog in its open transaction while the claim ends
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {9L});
        f.jdbc.beforeExecute((c, sql) -> {
            if (sql.equals(f.sql.sending().send(Q))) {
                holding.countDown();
                await(done);
            }
        });
        Thread producer = new Thread(() -> f.backend().enqueue(Q, dev.sqlqueue.Message.ofText("p")));
        producer.start();
        await(holding);
        assertThrows(dev.sqlqueue.TransientBackendException.class, () -> f.backend().release(got.get(1).receipt()));
        done.countDown();
        producer.join();
        List<String> c1 = f.jdbc.logContaining("c1 ");
        assertTrue(f.jdbc.logContaining("c1 commit").isEmpty(), "nothing committed: " + c1);
        assertTrue(c1.indexOf("c1 rollback") >= 0 && c1.indexOf("c1 autoCommit=true") > c1.indexOf("c1 rollback"),
                "rolled back before auto-commit is restored (which would commit): " + c1);
        assertThrows(LeaseLostException.class, () -> f.backend().ack(got.get(1).receipt()), "the claim is over");
    }

    private static void await(java.util.concurrent.CountDownLatch latch) {
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new AssertionError("the other thread never got there");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aFailedDeadLetterInsertEndsTheClaimSoNothingCommitsInAFreshTransactionLater() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of()));
        f.jdbc.fail(f.sql.deadLetters().insertDeadLetter(), 1205, "40001");
        List<Delivery> got = f.backend().consume(Q, TX);
        assertThrows(dev.sqlqueue.TransientBackendException.class, () -> f.backend().deadLetter(got.get(0).receipt(), "bad"));
        // 1205 ends the victim's transaction on the server; the driver's rollback then finds nothing open
        assertTrue(f.jdbc.log().contains("c1 transaction rolled back by error 1205"), f.jdbc.log().toString());
        assertEquals(List.of("c1 rollback (no-op: @@TRANCOUNT = 0)"), f.jdbc.logContaining("rollback ("));
        assertThrows(LeaseLostException.class, () -> f.backend().ack(got.get(1).receipt()));
        assertTrue(f.jdbc.logContaining("commit").isEmpty());
        assertEquals(2, f.broker.messages(f.targetQueue()).size(), "both messages are back on the queue");
    }
}
