package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.H2;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.TransientBackendException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Call sequences of enqueue and the dialog pool on the {@link dev.sqlqueue.sqlserver.model.SqlServerModel}. */
class BrokerSenderTest {
    private static Fixture fixture(String... options) {
        Fixture f = new Fixture(options);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L}).rows(f.sql.sending().send(Q), new Object[] {42L});
        return f;
    }

    private static String fill(Fixture f) {
        return f.sql.dialogs().fillDialogs(Q, f.options.dialogLifetimeSeconds());
    }

    @Test
    void firstSendFillsThePoolThenSendsAndCommits() {
        Fixture f = fixture("broker.dialogPoolSize", "2");
        f.broker.nextDialogs(H1, H2);
        long id = f.backend().enqueue(Q, Message.ofText("hi"));
        assertEquals(41L, id);
        List<String> calls = f.jdbc.log();
        // the pool's connection arrives in auto-commit mode: setAutoCommit(true) sends nothing (mssql-jdbc)
        assertTrue(calls.get(0).startsWith("c1 exec " + f.sql.dialogs().adoptDialogs() + " <-- [2, "), calls.get(0));
        assertTrue(calls.get(0).endsWith(", jobs]"), "adopts for this queue: " + calls.get(0));
        assertTrue(calls.get(1).startsWith("c1 exec " + fill(f) + " <-- [2, 1, jobs, "), "want 2, spread 1: " + calls.get(1));
        List<String> c2 = f.jdbc.logContaining("c2 ");
        assertEquals(List.of("c2 autoCommit=false", "c2 savepoint sqlq_begin (opened the transaction)"), c2.subList(0, 2));
        assertTrue(c2.get(2).startsWith("c2 exec " + f.sql.sending().send(Q) + " <-- [" + H1 + ", bytes["), c2.get(2));
        assertEquals(List.of("c2 commit", "c2 autoCommit=true", "c2 close"), c2.subList(3, 6));
        assertTrue(f.jdbc.effects("SEND", "").stream().allMatch(e -> e.inTransaction()
                && e.state() == dev.sqlqueue.sqlserver.model.Effect.State.COMMITTED), "the SEND committed with the transaction");
    }

    @Test
    void dialogsAreReusedAcrossSends() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        for (int i = 0; i < 3; i++) {
            f.backend().enqueue(Q, Message.ofText("m" + i));
        }
        assertEquals(1, f.jdbc.logContaining(fill(f)).size(), "one fill for three sends");
        assertEquals(3, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H1).size());
    }

    @Test
    void spreadFactorIsPassedToTheFill() {
        Fixture f = fixture("broker.dialogPoolSize", "3", "broker.spreadFactor", "150");
        f.broker.nextDialogs(H1);
        f.backend().enqueue(Q, Message.ofText("x"));
        assertTrue(f.jdbc.logContaining(fill(f)).get(0).contains(" <-- [3, 150, jobs, "));
    }

    @Test
    void adoptedDialogsAreUsedBeforeNewOnesAreBegun() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.jdbc.rows(f.sql.dialogs().adoptDialogs(), new Object[] {H1, 5_000L});
        f.backend().enqueue(Q, Message.ofText("x"));
        assertTrue(f.jdbc.logContaining(fill(f)).isEmpty());
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H1).size());
    }

    @Test
    void concurrentSendersGetDifferentDialogs() throws Exception {
        Fixture f = fixture("broker.dialogPoolSize", "2");
        f.broker.nextDialogs(H1, H2);
        f.backend();
        DialogPool pool = new DialogPool(Q, f.jdbc.dataSource(), f.sql, f.options, "owner");
        f.broker.nextDialogs(H1, H2);
        DialogPool.Dialog a = pool.acquire();
        DialogPool.Dialog b = pool.acquire();
        assertNotEquals(a.handle(), b.handle());
        assertEquals(2, pool.open());
    }

    @Test
    void exhaustedPoolFailsTransientlyAfterTheWait() throws Exception {
        Fixture f = fixture("broker.dialogPoolSize", "1", "broker.sendWaitMillis", "20");
        f.broker.nextDialogs(H1);
        DialogPool pool = new DialogPool(Q, f.jdbc.dataSource(), f.sql, f.options, "owner");
        pool.acquire();
        assertThrows(TransientBackendException.class, pool::acquire);
    }

    @Test
    void dialogAtItsMessageLimitIsRecycledWithEndOfStreamInTheSameTransaction() {
        Fixture f = fixture("broker.dialogPoolSize", "1", "broker.dialogMaxMessages", "2");
        f.broker.nextDialogs(H1, H2);
        f.backend().enqueue(Q, Message.ofText("1"));
        assertTrue(f.jdbc.logContaining(f.sql.dialogs().retireDialog(Q)).isEmpty(), "not due after one send");
        f.backend().enqueue(Q, Message.ofText("2"));
        List<String> c3 = f.jdbc.logContaining("c3 ");
        assertTrue(c3.get(2).startsWith("c3 exec " + f.sql.sending().send(Q) + " <-- [" + H1));
        assertEquals("c3 exec " + f.sql.dialogs().retireDialog(Q) + " <-- [" + H1 + "]", c3.get(3));
        assertEquals("c3 commit", c3.get(4));
        f.backend().enqueue(Q, Message.ofText("3"));
        assertEquals(2, f.jdbc.logContaining(fill(f)).size(), "a new dialog replaces the recycled one");
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H2).size());
    }

    @Test
    void brokenDialogIsDiscardedAndTheSendRetriedOnAnother() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1, H2);
        f.jdbc.fail(f.sql.sending().send(Q), 8429, "S0001").rows(f.sql.sending().send(Q), new Object[] {7L});
        assertEquals(7L, f.backend().enqueue(Q, Message.ofText("x")));
        List<String> ran = f.jdbc.log();
        int failed = ran.indexOf(f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H1).get(0));
        assertTrue(ran.get(failed + 1).endsWith(" rollback"), ran.get(failed + 1));
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.dialogs().discardDialog() + " <-- [" + H1 + "]").size());
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H2).size());
        assertEquals(1, f.jdbc.logContaining(" commit").size());
    }

    @Test
    void aDeadlockVictimIsRolledBackAndSentAgainOnTheSameDialog() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.fail(f.sql.sending().send(Q), 1205, "40001").rows(f.sql.sending().send(Q), new Object[] {9L});
        assertEquals(9L, f.backend().enqueue(Q, Message.ofText("x")));
        assertTrue(f.jdbc.logContaining(f.sql.dialogs().discardDialog()).isEmpty());
        assertEquals(2, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H1).size());
        List<String> log = f.jdbc.log();
        int victim = log.indexOf("c2 transaction rolled back by error 1205");
        assertTrue(victim >= 0 && log.indexOf("c3 commit") > victim, "the victim's transaction ended, a new one committed: " + log);
    }

    /** N2: the backend's own send runs at READ COMMITTED whatever the pool's sessions start at, and puts the level back. */
    @Test
    void aSendRunsAtReadCommittedOnAPoolConfiguredForSnapshot() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.jdbc.sessionIsolation(dev.sqlqueue.sqlserver.model.SqlServerModel.TRANSACTION_SNAPSHOT);
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {9L});
        f.backend().enqueue(Q, Message.ofText("x"));
        List<String> c2 = f.jdbc.logContaining("c2 ");
        assertEquals("c2 isolation=2", c2.get(0), c2.toString());
        assertTrue(c2.indexOf("c2 isolation=4096") > c2.indexOf("c2 commit"), "put back after the commit: " + c2);
    }

    @Test
    void aSendThatLosesEveryDeadlockRetryIsTransientAndKeepsTheDialog() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.fail(f.sql.sending().send(Q), 1205, "40001");
        assertThrows(TransientBackendException.class, () -> f.backend().enqueue(Q, Message.ofText("x")));
        assertEquals(1 + BrokerSender.DEADLOCK_RETRIES, f.jdbc.logContaining("exec " + f.sql.sending().send(Q) + " <-- [" + H1).size());
        assertTrue(f.jdbc.logContaining(f.sql.dialogs().discardDialog()).isEmpty(), "a deadlock is not the dialog's fault");
        assertEquals(1 + BrokerSender.DEADLOCK_RETRIES, f.jdbc.logContaining("transaction rolled back by error 1205").size());
    }

    @Test
    void enqueueAllSendsEveryMessageInOneTransaction() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        assertEquals(List.of(41L, 42L), f.backend().enqueueAll(Q, List.of(Message.ofText("a"), Message.ofText("b"))));
        List<String> c2 = f.jdbc.logContaining("c2 ");
        assertEquals(2, f.jdbc.logContaining("c2 exec " + f.sql.sending().send(Q)).size());
        assertEquals(List.of("c2 commit"), f.jdbc.logContaining("c2 commit"));
        assertTrue(c2.indexOf("c2 commit") > c2.lastIndexOf(f.jdbc.logContaining("c2 exec").get(1)));
    }

    @Test
    void oneProducersConsecutiveSendsReachConsumersOnDifferentConversationGroups() throws Exception {
        // M4: a LIFO pool lent one thread the dialog it had just returned, so all its messages were one
        // conversation group and a second consumer found the group locked by the first
        Fixture f = fixture("broker.dialogPoolSize", "2");
        f.broker.nextDialogs(H1, H2);
        f.broker.route(java.util.UUID.fromString(H1), f.targetQueue()).route(java.util.UUID.fromString(H2), f.targetQueue());
        f.backend().enqueue(Q, Message.ofText("a"));
        f.backend().enqueue(Q, Message.ofText("b"));
        List<Object[]> first;
        List<Object[]> second;
        try (java.sql.Connection c1 = f.jdbc.dataSource().getConnection(); java.sql.Connection c2 = f.jdbc.dataSource().getConnection()) {
            for (java.sql.Connection c : List.of(c1, c2)) {
                c.setAutoCommit(false);
                c.setSavepoint("x");
            }
            first = Sql.query(c1, f.sql.claims().receive(Q), 10, 0);
            second = Sql.query(c2, f.sql.claims().receive(Q), 10, 0);
        }
        assertEquals(1, first.size());
        assertEquals(1, second.size(), "the second consumer has a conversation group of its own to work on");
    }

    @Test
    void retiringADialogEndsNoSpacerInTheSendersTransaction() {
        // M5: the sender's transaction ended every spacer of the fill, one full scan each
        Fixture f = fixture("broker.dialogPoolSize", "1", "broker.dialogMaxMessages", "1");
        f.broker.nextDialogs(H1);
        f.backend().enqueue(Q, Message.ofText("1"));
        assertEquals(1, f.jdbc.logContaining(f.sql.dialogs().retireDialog(Q)).size());
        assertFalse(f.sql.dialogs().retireDialog(Q).contains("END CONVERSATION"), "spacers are the sweeper's, in batches");
        assertTrue(f.jdbc.effects("END CONVERSATION", "").isEmpty());
    }

    @Test
    void aFailedRollbackClosesTheConnectionInsteadOfCommittingHalfABatch() {
        // m2: restore() turned auto-commit back on, and mssql-jdbc then commits the open transaction
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L}).fail(f.sql.sending().send(Q), 9002, "S0001");
        f.jdbc.failNextRollback(10054);
        assertThrows(dev.sqlqueue.SqlQueueException.class,
                () -> f.backend().enqueueAll(Q, List.of(Message.ofText("a"), Message.ofText("b"))));
        assertEquals(dev.sqlqueue.sqlserver.model.Effect.State.ROLLED_BACK, f.jdbc.effects("SEND", "").get(0).state(),
                "message a was not committed alone");
        assertTrue(f.jdbc.session(2).closed());
    }

    @Test
    void anErrorThatIsNotTheDialogsIsRethrownWithoutBurningDialogs() {
        // m5: a full log (9002) fails on every dialog alike
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.fail(f.sql.sending().send(Q), 9002, "S0001");
        assertThrows(dev.sqlqueue.SqlQueueException.class, () -> f.backend().enqueue(Q, Message.ofText("a")));
        assertTrue(f.jdbc.logContaining(f.sql.dialogs().discardDialog()).isEmpty(), "the dialog is kept");
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().send(Q)).size(), "no retry on a second dialog");
    }

    @Test
    void enqueueAllIsOneTransactionSoAFailureTakesBackTheMessagesAlreadySent() {
        // L1: SEND opens no implicit transaction; without an explicit begin, message 1 was committed
        // alone before message 2 failed, and the retry on another dialog sent it twice
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1, H2);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L}).fail(f.sql.sending().send(Q), 8429, "S0001").rows(f.sql.sending().send(Q), new Object[] {42L});
        f.backend().enqueueAll(Q, List.of(Message.ofText("a"), Message.ofText("b")));
        List<dev.sqlqueue.sqlserver.model.Effect> sends = f.jdbc.effects("SEND", "");
        assertEquals(3, sends.size(), "a, then (after b failed) a and b on another dialog");
        assertEquals(dev.sqlqueue.sqlserver.model.Effect.State.ROLLED_BACK, sends.get(0).state(),
                "the first attempt's send of a was rolled back with its transaction: no duplicate");
        assertEquals(2, sends.stream().filter(e -> e.state() == dev.sqlqueue.sqlserver.model.Effect.State.COMMITTED).count());
    }

    @Test
    void closeGivesOwnedDialogsBack() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.backend().enqueue(Q, Message.ofText("x"));
        f.backend().close();
        String fillCall = f.jdbc.logContaining(fill(f)).get(0);
        String owner = fillCall.substring(fillCall.lastIndexOf(", ") + 2, fillCall.length() - 1);
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.dialogs().releaseOwnedDialogs() + " <-- [" + owner + "]").size());
    }
}
