package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.H3;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static dev.sqlqueue.sqlserver.broker.Fixture.data;
import static dev.sqlqueue.sqlserver.broker.Fixture.grouped;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
 * transaction, nack settlement and history, on the {@link dev.sqlqueue.sqlserver.model.SqlServerModel}.
 */
class BrokerGroupsTest {
    private static final ConsumeRequest TX = new ConsumeRequest(10, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);
    /** The model's clock at start (2025-01-01T00:00Z) in ms since 1970: what clockMillis computes. */
    private static final long NOW_MS = 1_735_689_600_000L;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String bytes(byte[] b) {
        return "bytes" + Arrays.toString(b);
    }

    @Test
    void groupedMessageGoesOnItsGroupsDialogWithoutBorrowingFromThePool() {
        Fixture f = new Fixture();
        String send = f.sql.sending().sendGrouped(Q);
        f.jdbc.rows(send, new Object[] {41L});
        long id = f.backend().enqueue(Q, Message.builder(utf8("a")).header("k", "v").group("order-7").build());
        assertEquals(41L, id);
        byte[] rest = Envelope.rest(Map.of("k", "v"), "order-7", "a".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of("c1 autoCommit=false", "c1 savepoint sqlq_begin (opened the transaction)", "c1 exec " + send + " <-- [jobs, order-7, " + bytes(rest) + "]", "c1 commit",
                "c1 autoCommit=true", "c1 close"), f.jdbc.log());
        assertTrue(f.jdbc.logContaining("fill").isEmpty() && f.jdbc.sessionsOpened() == 1, "no pooled dialog is begun for a group");
    }

    @Test
    void batchSendsGroupsFirstInGroupOrderKeepingEachGroupsOwnOrderAndReturnsIdsInInputOrder() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        String send = f.sql.sending().sendGrouped(Q);
        f.jdbc.rows(send, new Object[] {10L}).rows(send, new Object[] {11L}).rows(send, new Object[] {12L});
        f.broker.nextDialogs(H3);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {13L});
        List<Long> ids = f.backend().enqueueAll(Q, List.of(Message.ofText("plain"), Message.builder(utf8("b1")).group("b").build(),
                Message.builder(utf8("a1")).group("a").build(), Message.builder(utf8("b2")).group("b").build()));
        List<String> sends = f.jdbc.logContaining(" exec " + send);
        assertEquals(3, sends.size());
        assertTrue(sends.get(0).contains("<-- [jobs, a, "), sends.toString());
        assertTrue(sends.get(1).contains("<-- [jobs, b, ") && sends.get(1).endsWith(bytes(Envelope.rest(Map.of(), "b",
                "b1".getBytes(StandardCharsets.UTF_8))) + "]"), "b1 before b2: " + sends);
        assertTrue(sends.get(2).endsWith(bytes(Envelope.rest(Map.of(), "b", "b2".getBytes(StandardCharsets.UTF_8))) + "]"));
        assertEquals(List.of(13L, 11L, 10L, 12L), ids, "ids in the caller's order");
        List<String> c = f.jdbc.logContaining("c2 ");
        assertTrue(c.indexOf(c.stream().filter(x -> x.contains(f.sql.sending().send(Q))).findFirst().orElseThrow()) > c.indexOf(sends.get(2)),
                "the pooled send comes after the group sends, in the same transaction");
        assertEquals(List.of("c2 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void enqueueInTheCallersTransactionRunsOnItsConnectionAndNeitherCommitsNorChangesItsMode() throws Exception {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.sending().sendOnOwnDialog(Q), new Object[] {5L});
        f.jdbc.rows(f.sql.sending().sendGrouped(Q), new Object[] {6L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        assertEquals(5L, f.backend().enqueue(caller, Q, Message.ofText("x")));
        assertEquals(6L, f.backend().enqueue(caller, Q, Message.builder(utf8("y")).group("g").build()));
        assertEquals(List.of("c1 autoCommit=false",
                "c1 exec " + f.sql.sending().sendOnOwnDialog(Q) + " <-- [" + bytes(Envelope.rest(Map.of(), "x".getBytes(StandardCharsets.UTF_8))) + "]",
                "c1 exec " + f.sql.sending().sendGrouped(Q) + " <-- [jobs, g, "
                        + bytes(Envelope.rest(Map.of(), "g", "y".getBytes(StandardCharsets.UTF_8))) + "]"), f.jdbc.log());
        // L1: the first batch's SELECT from the registry opened the caller's transaction before any SEND
        assertEquals(1, f.jdbc.session(1).tranCount(), "the caller's transaction is open and not ours to end");
        assertTrue(f.jdbc.effects("SEND", "").stream().allMatch(e -> e.inTransaction()
                && e.state() == dev.sqlqueue.sqlserver.model.Effect.State.PENDING), "nothing was sent outside the caller's transaction");
        caller.rollback();
        assertTrue(f.jdbc.effects("SEND", "").stream().allMatch(e -> e.state() == dev.sqlqueue.sqlserver.model.Effect.State.ROLLED_BACK),
                "the caller's rollback takes the messages back (C14)");
        assertEquals(1, f.jdbc.sessionsOpened(), "no connection of its own, no pooled dialog");
        assertTrue(f.sql.sending().sendOnOwnDialog(Q).contains("MESSAGE TYPE [sqlq_bk:jobs:eos]"),
                "its own dialog carries end-of-stream, so the target ends it");
    }

    @Test
    void enqueueWithAnAutoCommitConnectionHasNoTransactionToJoinAndIsSentByTheBackend() throws Exception {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.sending().sendGrouped(Q), new Object[] {9L});
        Connection caller = f.jdbc.dataSource().getConnection();
        assertEquals(9L, f.backend().enqueue(caller, Q, Message.builder(utf8("z")).group("g").build()));
        assertTrue(f.jdbc.logContaining("c1 exec").isEmpty(), "nothing on the caller's auto-commit connection");
        assertEquals(List.of("c2 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void groupedDeliveryCarriesItsGroupAndAckDeletesItsPendingRowBeforeCommit() {
        Fixture f = new Fixture();
        f.arrive(grouped(H1, 1, 5L, "order-7", "a", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        assertEquals("order-7", d.group());
        f.backend().ack(d.receipt());
        List<String> c1 = f.jdbc.logContaining("c1 ");
        int settled = c1.indexOf("c1 exec " + f.sql.claims().groupSettled() + " <-- [jobs, 5]");
        assertTrue(settled > 0 && c1.indexOf("c1 commit") > settled, c1.toString());
    }

    @Test
    void nackOnlyClaimRollsBackToTheSavepointCountsOnItsOwnConnectionAndCommits() {
        for (String group : new String[] {null, "g"}) {
            Fixture f = new Fixture();
            f.arrive(grouped(H1, 1, 5L, group, "x", Map.of()));
            f.jdbc.rows(f.sql.claims().attemptsOf(1), new Object[] {5L, 2});
            Delivery d = f.backend().consume(Q, TX).get(0);
            assertEquals(3, d.attempt());
            f.backend().nack(d.receipt(), Duration.ZERO, "boom");
            List<String> c1 = f.jdbc.logContaining("c1 ");
            int savepoint = c1.indexOf("c1 savepoint sqlq_receive (opened the transaction)");
            int receive = c1.indexOf(c1.stream().filter(x -> x.contains(f.sql.claims().receive(Q))).findFirst().orElseThrow());
            int check = c1.indexOf("c1 exec " + f.sql.claims().requireOpenTransaction() + " <-- []");
            int release = c1.indexOf("c1 exec " + f.sql.claims().releaseClaim(1) + " <-- [jobs, 5, boom]");
            int commit = c1.indexOf("c1 commit");
            assertTrue(savepoint >= 0 && receive > savepoint && check > receive && release > check && commit > release,
                    "group " + group + ": " + c1);
            assertTrue(f.sql.claims().releaseClaim(1).contains("ROLLBACK TRANSACTION [sqlq_receive];"), "the savepoint the consume took");
            assertEquals(1, f.jdbc.sessionsOpened(), "no second connection");
            assertTrue(f.jdbc.logContaining("rollback").isEmpty(),
                    "the transaction itself is never rolled back, so poison handling never counts it");
            assertTrue(f.jdbc.logContaining("resend").isEmpty() && f.jdbc.logContaining(f.sql.claims().groupSettled()).isEmpty(),
                    "returned in place and still pending");
        }
    }

    @Test
    void aBatchClaimTakesOneMessageOfAGroupSoAckOneNackTwoAckThreeKeepsTheGroupsOrder() {
        // M3: a group's dialog is one conversation group, so RECEIVE TOP (10) returned a, b and c in one
        // claim; acking a and c and nacking b then re-sent b behind c
        Fixture f = new Fixture();
        f.arrive(grouped(H1, 1, 5L, "g", "a", Map.of()), grouped(H1, 2, 6L, "g", "b", Map.of()), grouped(H1, 3, 7L, "g", "c", Map.of()));
        f.jdbc.rows(f.sql.claims().attemptsOf(1));
        List<String> order = new java.util.ArrayList<>();
        for (String outcome : List.of("ack", "nack", "ack", "ack")) {
            List<Delivery> got = f.backend().consume(Q, TX);
            assertEquals(1, got.size(), "one message of a group per claim");
            order.add(new String(got.get(0).payload(), StandardCharsets.UTF_8));
            if (outcome.equals("ack")) {
                f.backend().ack(got.get(0).receipt());
            } else {
                f.backend().nack(got.get(0).receipt(), Duration.ZERO, "later");
            }
        }
        assertEquals(List.of("a", "b", "b", "c"), order, "b is retried before c runs");
        assertTrue(f.broker.messages(f.targetQueue()).isEmpty());
        assertTrue(f.jdbc.logContaining(f.sql.sending().resendGrouped(Q)).isEmpty(), "nothing is re-sent to the group's tail");
    }

    @Test
    void aBatchClaimOfMessagesWithoutAGroupFillsUpFromTheSameConversation() {
        Fixture f = new Fixture();
        f.arrive(Fixture.data(Fixture.H2, 1, 5L, "a", Map.of()), Fixture.data(Fixture.H2, 2, 6L, "b", Map.of()), Fixture.data(Fixture.H2, 3, 7L, "c", Map.of()));
        List<Delivery> got = f.backend().consume(Q, TX);
        assertEquals(3, got.size());
        assertEquals(List.of("c1 exec " + f.sql.claims().receive(Q) + " <-- [1, 0]", "c1 exec " + f.sql.claims().receiveMore(Q) + " <-- [9, " + Fixture.H2 + "]"),
                f.jdbc.logContaining("RECEIVE"));
    }

    @Test
    void historyRowIsWrittenInTheAckTransactionWithTheDatabaseClockAfterTheReceive() {
        Fixture f = new Fixture();
        ServiceBrokerBackend b = new ServiceBrokerBackend(f.jdbc.dataSource(), null,
                dev.sqlqueue.QueueConfig.builder().url("jdbc:sqlserver://nowhere").backend("sqlserver-broker").history(true).build(),
                f.options, false);
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = b.consume(Q, TX).get(0);
        b.ack(d.receipt(), "exit 0");
        List<String> c1 = f.jdbc.logContaining("c1 ");
        int clock = c1.indexOf("c1 exec " + f.sql.claims().clockMillis() + " <-- []");
        int h = c1.indexOf("c1 exec " + f.sql.deadLetters().insertHistory() + " <-- [jobs, 5, 1700000000005, " + NOW_MS + ", 1, acked, exit 0]");
        assertTrue(clock > 0 && h > clock && c1.indexOf("c1 commit") > h, c1.toString());
        f.jdbc.rows(f.sql.deadLetters().listHistory(), new Object[] {5L, 1_700_000_000_005L, NOW_MS, NOW_MS + 250, 250L, 1, "acked", "exit 0"});
        var e = b.history(Q, 10).get(0);
        assertEquals(5L, e.messageId());
        assertEquals(250L, e.durationMillis());
        assertEquals("acked", e.outcome());
        assertEquals("exit 0", e.detail());
        assertEquals(NOW_MS, e.startedAt().toEpochMilli());
    }

    @Test
    void withoutHistoryNeitherTheClockNorTheHistoryIsTouched() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, TX).get(0);
        f.backend().ack(d.receipt(), "exit 0");
        assertTrue(f.jdbc.logContaining(f.sql.deadLetters().insertHistory()).isEmpty() && f.jdbc.logContaining(f.sql.claims().clockMillis()).isEmpty());
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void poisonMessageAtAGroupsHeadIsDeadLetteredAndCommittedBeforeTheNextOfItsGroupIsClaimed() {
        Fixture f = new Fixture("broker.maxAttempts", "2");
        f.arrive(grouped(H1, 1, 5L, "g", "p", Map.of()), grouped(H1, 2, 6L, "g", "q", Map.of()));
        f.jdbc.rows(f.sql.claims().attemptsOf(1), new Object[] {5L, 2});
        assertTrue(f.backend().consume(Q, TX).isEmpty(), "the claim of p only dead-letters it");
        String dead = f.jdbc.logContaining(f.sql.deadLetters().insertDeadLetter()).get(0);
        assertTrue(dead.endsWith(", 1700000000005, g]"), "the dead letter keeps its group: " + dead);
        assertTrue(f.jdbc.log().contains("c1 exec " + f.sql.claims().groupSettled() + " <-- [jobs, 5]"));
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
        List<Delivery> got = f.backend().consume(Q, TX);
        assertEquals(List.of(6L), got.stream().map(Delivery::id).toList());
        f.backend().nack(got.get(0).receipt(), Duration.ZERO, "no");
        assertEquals(dev.sqlqueue.sqlserver.model.Effect.State.COMMITTED,
                f.jdbc.effects("INSERT", "sqlq_bk_dead").get(0).state(), "the dead letter stays");
        assertEquals(List.of(6L), f.broker.messages(f.targetQueue()).stream().map(m -> Envelope.idOrZero(m.body())).toList(),
                "q is back in place, at the head of its group");
        assertTrue(f.jdbc.logContaining(f.sql.sending().resendGrouped(Q)).isEmpty());
    }

    @Test
    void errorOnAConversationDeadLettersWhatIsLeftOfItBeforeEndingIt() {
        Fixture f = new Fixture();
        byte[] left = new Envelope(8L, 1L, "", "g", utf8("left")).encode();
        // the claim's RECEIVE (TOP 1) takes the Error; the rest of that conversation is received by handle
        f.arrive(Fixture.other(H1, BrokerStatements.ERROR, null), Fixture.grouped(H1, 2, 8L, "g", "left", Map.of()),
                Fixture.other(H1, BrokerStatements.END_DIALOG, null));
        assertTrue(f.backend().consume(Q, new ConsumeRequest(1, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL)).isEmpty());
        assertTrue(f.broker.messages(f.targetQueue()).isEmpty(), "nothing of the conversation is left");
        List<String> c1 = f.jdbc.logContaining("c1 ");
        int rest = c1.indexOf("c1 exec " + f.sql.claims().receiveRest(Q) + " <-- [" + H1 + "]");
        int dead = c1.indexOf(f.jdbc.logContaining(f.sql.deadLetters().insertDeadLetter()).get(0));
        int settled = c1.indexOf("c1 exec " + f.sql.claims().groupSettled() + " <-- [jobs, 8]");
        int end = c1.indexOf("c1 exec " + f.sql.dialogs().endConversation() + " <-- [" + H1 + "]");
        assertTrue(rest > 0 && dead > rest && settled > dead && end > settled, c1.toString());
        assertTrue(c1.get(dead).contains("its conversation ended with an error before it was received"), c1.get(dead));
        assertEquals(1, f.jdbc.logContaining(f.sql.deadLetters().insertDeadLetter()).size(), "only data messages are dead-lettered");
    }

    @Test
    void aPooledDialogWhoseResendFailedIsEndedOnlyAfterTheClaimRolledBack() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.arrive(data(H1, 1, 5L, "a", Map.of()), data(H1, 2, 6L, "b", Map.of()));
        f.broker.nextDialogs(H3);
        f.jdbc.fail(f.sql.sending().resend(Q), 8429, "S0001");
        List<Delivery> got = f.backend().consume(Q, TX);
        f.backend().ack(got.get(0).receipt());
        assertThrows(dev.sqlqueue.SqlQueueException.class, () -> f.backend().nack(got.get(1).receipt(), Duration.ZERO, "x"));
        List<String> calls = f.jdbc.log();
        int rollback = calls.indexOf("c1 rollback");
        int discard = calls.indexOf(calls.stream().filter(x -> x.contains(f.sql.dialogs().discardDialog())).findFirst().orElseThrow());
        assertTrue(rollback > 0 && discard > rollback, "END CONVERSATION on another connection would wait for this claim's lock: "
                + calls);
    }
}
