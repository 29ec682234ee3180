package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.H3;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static dev.sqlqueue.sqlserver.broker.Fixture.RECEIVED_MS;
import static dev.sqlqueue.sqlserver.broker.Fixture.data;
import static dev.sqlqueue.sqlserver.broker.Fixture.grouped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Call sequences of message groups (each group on a dialog of its own), enqueue in the caller's
 * transaction, nack settlement and history, on the {@link RecordingJdbc} double (no database semantics).
 */
class BrokerGroupsTest {
    private static final ConsumeRequest TX = new ConsumeRequest(10, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);
    private static final int LIFETIME = 604_800;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String bytes(byte[] b) {
        return "bytes" + Arrays.toString(b);
    }

    @Test
    void groupedMessageGoesOnItsGroupsDialogWithoutBorrowingFromThePool() {
        Fixture f = new Fixture();
        String send = f.sql.sendGrouped(Q, LIFETIME);
        f.jdbc.rows(send, new Object[] {41L});
        long id = f.backend().enqueue(Q, Message.builder(utf8("a")).header("k", "v").group("order-7").build());
        assertEquals(41L, id);
        byte[] rest = Envelope.rest(Map.of("k", "v"), "order-7", "a".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("c1 autoCommit=false", "c1 exec " + send + " <-- [jobs, order-7, " + bytes(rest) + "]", "c1 commit",
                "c1 autoCommit=true", "c1 close"), f.jdbc.calls());
        assertTrue(f.jdbc.callsContaining(f.sql.fillDialogs(Q, LIFETIME)).isEmpty(), "no pooled dialog is begun for a group");
    }

    @Test
    void batchSendsGroupsFirstInGroupOrderKeepingEachGroupsOwnOrderAndReturnsIdsInInputOrder() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        String send = f.sql.sendGrouped(Q, LIFETIME);
        f.jdbc.rows(send, new Object[] {10L}).rows(send, new Object[] {11L}).rows(send, new Object[] {12L});
        f.jdbc.rows(f.sql.fillDialogs(Q, LIFETIME), new Object[] {H3});
        f.jdbc.rows(f.sql.send(Q), new Object[] {13L});
        List<Long> ids = f.backend().enqueueAll(Q, List.of(Message.ofText("plain"), Message.builder(utf8("b1")).group("b").build(),
                Message.builder(utf8("a1")).group("a").build(), Message.builder(utf8("b2")).group("b").build()));
        List<String> sends = f.jdbc.callsContaining(" exec " + send);
        assertEquals(3, sends.size());
        assertTrue(sends.get(0).contains("<-- [jobs, a, "), sends.toString());
        assertTrue(sends.get(1).contains("<-- [jobs, b, ") && sends.get(1).endsWith(bytes(Envelope.rest(Map.of(), "b",
                "b1".getBytes(StandardCharsets.UTF_8))) + "]"), "b1 before b2: " + sends);
        assertTrue(sends.get(2).endsWith(bytes(Envelope.rest(Map.of(), "b", "b2".getBytes(StandardCharsets.UTF_8))) + "]"));
        assertEquals(List.of(13L, 11L, 10L, 12L), ids, "ids in the caller's order");
        List<String> c = f.jdbc.callsContaining("c2 ");
        assertTrue(c.indexOf(c.stream().filter(x -> x.contains(f.sql.send(Q))).findFirst().orElseThrow()) > c.indexOf(sends.get(2)),
                "the pooled send comes after the group sends, in the same transaction");
        assertEquals(List.of("c2 commit"), f.jdbc.callsContaining("commit"));
    }

    @Test
    void enqueueInTheCallersTransactionRunsOnItsConnectionAndNeitherCommitsNorChangesItsMode() throws Exception {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.sendOnOwnDialog(Q, LIFETIME), new Object[] {5L});
        f.jdbc.rows(f.sql.sendGrouped(Q, LIFETIME), new Object[] {6L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        assertEquals(5L, f.backend().enqueue(caller, Q, Message.ofText("x")));
        assertEquals(6L, f.backend().enqueue(caller, Q, Message.builder(utf8("y")).group("g").build()));
        assertEquals(List.of("c1 autoCommit=false",
                "c1 exec " + f.sql.sendOnOwnDialog(Q, LIFETIME) + " <-- [" + bytes(Envelope.rest(Map.of(), "x".getBytes(StandardCharsets.UTF_8))) + "]",
                "c1 exec " + f.sql.sendGrouped(Q, LIFETIME) + " <-- [jobs, g, "
                        + bytes(Envelope.rest(Map.of(), "g", "y".getBytes(StandardCharsets.UTF_8))) + "]"), f.jdbc.calls());
        assertEquals(1, f.jdbc.connectionsOpened(), "no connection of its own, no pooled dialog");
        assertTrue(f.sql.sendOnOwnDialog(Q, LIFETIME).contains("MESSAGE TYPE [sqlq_bk:jobs:eos]"),
                "its own dialog carries end-of-stream, so the target ends it");
    }

    @Test
    void groupedDeliveryCarriesItsGroupAndAckLowersThePendingCountBeforeCommit() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.receive(Q), grouped(H1, 1, 5L, "order-7", "a", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        assertEquals("order-7", d.group());
        f.backend().ack(d.receipt());
        List<String> c1 = f.jdbc.callsContaining("c1 ");
        int settled = c1.indexOf("c1 exec " + f.sql.groupSettled() + " <-- [jobs, order-7]");
        assertTrue(settled > 0 && c1.indexOf("c1 commit") > settled, c1.toString());
    }

    @Test
    void nackOfAGroupsClaimRollsBackSoTheGroupKeepsItsOrderAndCountsTheAttemptElsewhereFirst() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.receive(Q), grouped(H1, 1, 5L, "g", "x", Map.of()));
        f.jdbc.rows(f.sql.attemptsOf(1), new Object[] {5L, 2});
        Delivery d = f.backend().consume(Q, TX).get(0);
        assertEquals(3, d.attempt());
        f.backend().nack(d.receipt(), Duration.ZERO, "boom");
        List<String> calls = f.jdbc.calls();
        int raise = calls.indexOf("c2 exec " + f.sql.raiseAttempts() + " <-- [jobs, 5, boom]");
        assertTrue(raise >= 0 && calls.indexOf("c1 rollback") > raise, calls.toString());
        assertTrue(f.jdbc.callsContaining("c1 commit").isEmpty());
        assertTrue(f.jdbc.callsContaining(f.sql.resendGrouped(Q, LIFETIME)).isEmpty(), "rolled back in place, not sent again");
        assertTrue(f.jdbc.callsContaining(f.sql.groupSettled()).isEmpty(), "still pending");
    }

    @Test
    void nackWithoutAGroupIsOneCommittedTransactionOnTheClaimsConnection() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.jdbc.rows(f.sql.receive(Q), data(H1, 1, 5L, "x", Map.of("h", "1")));
        f.jdbc.rows(f.sql.fillDialogs(Q, LIFETIME), new Object[] {H3});
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().nack(d.receipt(), Duration.ZERO, "boom");
        List<String> c1 = f.jdbc.callsContaining("c1 ");
        int raise = c1.indexOf("c1 exec " + f.sql.raiseAttempts() + " <-- [jobs, 5, boom]");
        byte[] again = new Envelope(5L, 1_700_000_000_005L, "h=1", "x".getBytes(StandardCharsets.UTF_8)).encode();
        int resend = c1.indexOf("c1 exec " + f.sql.resend(Q) + " <-- [" + H3 + ", " + bytes(again) + "]");
        assertTrue(raise > 0 && resend > raise && c1.indexOf("c1 commit") > resend, c1.toString());
        assertTrue(f.jdbc.callsContaining("rollback").isEmpty(), "no rollback, so nothing can count toward poison handling");
        assertTrue(f.jdbc.callsContaining("c3 ").isEmpty() && f.jdbc.callsContaining("c2 exec " + f.sql.raiseAttempts()).isEmpty(),
                "the attempt is counted on the claim's own connection (c2 only fills the pool)");
    }

    @Test
    void groupClaimThatAlsoAcksCommitsAndSendsTheNackedMessageBackOnItsGroupsDialog() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.receive(Q), grouped(H1, 1, 5L, "g", "a", Map.of()), grouped(H1, 2, 6L, "g", "b", Map.of()));
        List<Delivery> got = f.backend().consume(Q, TX);
        f.backend().ack(got.get(0).receipt());
        f.backend().nack(got.get(1).receipt(), Duration.ZERO, "later");
        List<String> c1 = f.jdbc.callsContaining("c1 ");
        byte[] again = new Envelope(6L, 1_700_000_000_006L, "", "g", "b".getBytes(StandardCharsets.UTF_8)).encode();
        int resend = c1.indexOf("c1 exec " + f.sql.resendGrouped(Q, LIFETIME) + " <-- [jobs, g, " + bytes(again) + "]");
        assertTrue(resend > 0 && c1.indexOf("c1 commit") > resend, c1.toString());
        assertEquals(2, f.jdbc.callsContaining("c1 exec " + f.sql.groupSettled() + " <-- [jobs, g]").size(),
                "both leave the queue (the resend raises the count again)");
        assertTrue(f.jdbc.callsContaining(f.sql.fillDialogs(Q, LIFETIME)).isEmpty());
    }

    @Test
    void historyRowIsWrittenInTheAckTransactionWithTheReceiveTimeAndDetail() {
        Fixture f = new Fixture();
        ServiceBrokerBackend b = new ServiceBrokerBackend(f.jdbc.dataSource(), null,
                dev.sqlqueue.QueueConfig.builder().url("jdbc:sqlserver://nowhere").backend("sqlserver-broker").history(true).build(),
                f.options, false);
        f.jdbc.rows(f.sql.receive(Q), data(H1, 1, 5L, "x", Map.of()));
        Delivery d = b.consume(Q, TX).get(0);
        b.ack(d.receipt(), "exit 0");
        List<String> c1 = f.jdbc.callsContaining("c1 ");
        int h = c1.indexOf("c1 exec " + f.sql.insertHistory() + " <-- [jobs, 5, 1700000000005, " + RECEIVED_MS + ", 1, acked, exit 0]");
        assertTrue(h > 0 && c1.indexOf("c1 commit") > h, c1.toString());
        f.jdbc.rows(f.sql.listHistory(), new Object[] {5L, 1_700_000_000_005L, RECEIVED_MS, RECEIVED_MS + 250, 250L, 1, "acked", "exit 0"});
        var e = b.history(Q, 10).get(0);
        assertEquals(5L, e.messageId());
        assertEquals(250L, e.durationMillis());
        assertEquals("acked", e.outcome());
        assertEquals("exit 0", e.detail());
        assertEquals(RECEIVED_MS, e.startedAt().toEpochMilli());
    }

    @Test
    void withoutHistoryNoHistoryRowIsWritten() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.receive(Q), data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().ack(d.receipt(), "exit 0");
        assertTrue(f.jdbc.callsContaining(f.sql.insertHistory()).isEmpty());
        assertEquals(List.of("c1 commit"), f.jdbc.callsContaining("commit"));
    }

    @Test
    void poisonMessageOfAGroupLeavesTheGroupsPendingCountInTheSameTransaction() {
        Fixture f = new Fixture("broker.maxAttempts", "2");
        f.jdbc.rows(f.sql.receive(Q), grouped(H1, 1, 5L, "g", "p", Map.of())).rows(f.sql.receive(Q));
        f.jdbc.rows(f.sql.attemptsOf(1), new Object[] {5L, 2});
        assertTrue(f.backend().consume(Q, TX).isEmpty());
        List<String> c1 = f.jdbc.callsContaining("c1 ");
        int settled = c1.indexOf("c1 exec " + f.sql.groupSettled() + " <-- [jobs, g]");
        String dead = f.jdbc.callsContaining(f.sql.insertDeadLetter()).get(0);
        assertTrue(dead.endsWith(", 1700000000005, g]"), "the dead letter keeps its group: " + dead);
        assertTrue(settled > c1.indexOf(dead) && c1.indexOf("c1 commit") > settled, c1.toString());
    }
}
