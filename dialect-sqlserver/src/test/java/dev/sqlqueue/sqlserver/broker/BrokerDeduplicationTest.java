package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.H2;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.sqlserver.model.Lock;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys on {@code sqlserver-broker}, on the driver/server model with the keys table kept by the
 * model (its rows and locks computed, not scripted): a key is taken by inserting it (a duplicate is the
 * holder's row), in the transaction of the SEND (the backend's or the caller's); a taken key sends nothing
 * and the duplicate flag reaches the caller. Nothing of it has run on a SQL Server.
 */
class BrokerDeduplicationTest {
    private static Message keyed(String key) {
        return Message.builder("p".getBytes()).deduplicationKey(key).build();
    }

    private static Fixture fixture(String... options) {
        Fixture f = new Fixture(options);
        f.keys();
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L}).rows(f.sql.sending().send(Q), new Object[] {42L});
        return f;
    }

    private static List<Object> keyRows(Fixture f, String column) {
        return f.jdbc.committedRows(f.sql.names().keysTable()).stream().map(r -> r.get(column)).toList();
    }

    @Test
    void aFreeKeyIsTakenBeforeTheSendAndGetsItsMessageIdInTheSameTransaction() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        assertTrue(f.backend().capabilities().has(Capability.DEDUPLICATION));
        f.broker.nextDialogs(H1);
        assertEquals(new EnqueueResult(41, false), f.backend().enqueueDeduplicated(Q, keyed("order-1")));
        List<String> c2 = f.jdbc.logContaining("c2 exec");
        assertEquals("c2 exec " + f.sql.sending().takeKey() + " <-- [jobs, order-1., 300, 0]", c2.get(0));
        assertTrue(c2.get(1).startsWith("c2 exec " + f.sql.sending().send(Q) + " <-- [" + H1), c2.get(1));
        assertEquals("c2 exec " + f.sql.sending().recordKey() + " <-- [41, jobs, order-1.]", c2.get(2));
        assertEquals(List.of(41L), keyRows(f, "message_id"), "committed with the SEND");
    }

    @Test
    void aTakenKeySendsNothingAndReturnsTheHolder() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.keys().row("queue_name", "jobs", "dedupe_key", "order-1.", "message_id", 77L, "expires_at", f.later());
        f.broker.nextDialogs(H1);
        assertEquals(new EnqueueResult(77, true), f.backend().enqueueDeduplicated(Q, keyed("order-1")));
        assertEquals(List.of(), f.jdbc.logContaining("exec " + f.sql.sending().send(Q)), "no SEND");
        assertEquals(List.of(), f.jdbc.logContaining(f.sql.sending().recordKey()), "no key written");
    }

    @Test
    void anExpiredKeyIsFreeAgain() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.keys().row("queue_name", "jobs", "dedupe_key", "order-1.", "message_id", 77L, "expires_at", f.later());
        f.jdbc.advance(Duration.ofMinutes(10));
        f.broker.nextDialogs(H1);
        assertEquals(new EnqueueResult(41, false), f.backend().enqueueDeduplicated(Q, keyed("order-1")));
        assertEquals(List.of(41L), keyRows(f, "message_id"));
    }

    @Test
    void aBatchSaysWhichOfItsMessagesWereDuplicatesAlsoOfEachOther() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.keys().row("queue_name", "jobs", "dedupe_key", "taken.", "message_id", 77L, "expires_at", f.later());
        f.broker.nextDialogs(H1);
        assertEquals(List.of(new EnqueueResult(77, true), new EnqueueResult(41, false), new EnqueueResult(41, true)),
                f.backend().enqueueAllDeduplicated(Q, List.of(keyed("taken"), keyed("free"), keyed("free"))));
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().send(Q)).size(), "one SEND, for the free key");
        assertEquals(1, f.jdbc.logContaining("c2 commit").size(), "one transaction");
    }

    @Test
    void theKeysOfABatchAreTakenFirstInKeyOrderBeforeAnySend() {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.backend().enqueueAllDeduplicated(Q, List.of(keyed("z"), Message.ofText("plain"), keyed("a")));
        List<String> ran = f.jdbc.logContaining("c2 exec").stream().map(x -> x.substring(8, Math.min(x.length(), 8 + 40))).toList();
        List<String> c2 = f.jdbc.logContaining("c2 exec");
        assertTrue(c2.get(0).endsWith(" <-- [jobs, a., 300, 0]") && c2.get(1).endsWith(" <-- [jobs, z., 300, 0]"), ran.toString());
        assertTrue(c2.get(2).contains(f.sql.sending().send(Q)), "the first SEND after every key: " + c2);
    }

    @Test
    void inTheCallersTransactionTheKeyIsTheCallersToCommitOrRollBack() throws Exception {
        Fixture f = fixture();
        f.jdbc.rows(f.sql.sending().sendOnOwnDialog(Q), new Object[] {5L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        assertEquals(new EnqueueResult(5, false), f.backend().enqueueDeduplicated(caller, Q, keyed("k ")));
        assertEquals("c1 exec " + f.sql.sending().takeKey() + " <-- [jobs, k ., 300, 0]", f.jdbc.log().get(1), "trailing space kept by the terminator");
        assertEquals(1, f.jdbc.session(1).tranCount(), "the caller's transaction is open and not ours to end");
        assertEquals(List.of(), keyRows(f, "message_id"), "not committed yet");
        caller.rollback();
        assertEquals(List.of(), keyRows(f, "message_id"), "the caller's rollback frees the key with the message");
        assertEquals(1, f.jdbc.sessionsOpened());
    }

    /** N1: a missing key no longer locks the gap it falls in, so an unrelated key of the same gap does not wait. */
    @Test
    void aMissingKeyInACallersOpenTransactionDoesNotHoldBackAnotherProducersKey() throws Exception {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.jdbc.rows(f.sql.sending().sendOnOwnDialog(Q), new Object[] {5L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        f.backend().enqueueDeduplicated(caller, Q, keyed("b"));
        f.broker.nextDialogs(H1);
        assertEquals(new EnqueueResult(41, false), f.backend().enqueueDeduplicated(Q, keyed("c")),
                "an UPDLOCK, HOLDLOCK read of a missing key holds RangeS-U on the next entry, and the second key would wait there");
        assertTrue(f.jdbc.locksHeld(1).stream().allMatch(l -> l.key().equals("[jobs, b.]") && !l.mode().startsWith("Range")),
                "the caller holds its own key only, no range: " + f.jdbc.locksHeld(1));
        caller.commit();
        assertEquals(List.of("b.", "c."), keyRows(f, "dedupe_key"));
    }

    /** A second enqueue of a key that an open transaction took waits for it, and is a duplicate once it commits. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aSecondEnqueueOfATakenKeyWaitsForTheHoldersCommitAndIsADuplicate() throws Exception {
        Fixture f = fixture("broker.dialogPoolSize", "1");
        f.jdbc.waitForLocks();
        f.jdbc.rows(f.sql.sending().sendOnOwnDialog(Q), new Object[] {5L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        f.backend().enqueueDeduplicated(caller, Q, keyed("k"));
        f.broker.nextDialogs(H1);
        java.util.concurrent.CompletableFuture<EnqueueResult> second = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> f.backend().enqueueDeduplicated(Q, keyed("k")));
        while (f.jdbc.sessionsOpened() < 3 || !f.jdbc.waiting(3)) {
            Thread.onSpinWait();
        }
        caller.commit();
        assertEquals(new EnqueueResult(5, true), second.get());
        assertEquals(List.of(), f.jdbc.logContaining("exec " + f.sql.sending().send(Q)), "nothing sent twice");
    }

    /** N2: the expired-key clean-up never runs in a transaction the backend does not own. */
    @Test
    void keyedEnqueuesInTheCallersTransactionNeverCleanUpKeysThere() throws Exception {
        Fixture f = fixture();
        f.jdbc.rows(f.sql.sending().sendOnOwnDialog(Q), new Object[] {5L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        caller.setTransactionIsolation(dev.sqlqueue.sqlserver.model.SqlServerModel.TRANSACTION_SNAPSHOT);
        for (int i = 0; i < 300; i++) {
            f.backend().enqueueDeduplicated(caller, Q, keyed("k" + i));
        }
        assertEquals(List.of(), f.jdbc.logContaining(f.sql.dialogs().deleteExpiredKeys()));
        caller.commit();
        assertEquals(300, keyRows(f, "dedupe_key").size());
    }

    /** N2: the sweeper deletes expired keys on a connection of its own, at READ COMMITTED, in batches. */
    @Test
    void theSweeperDeletesExpiredKeysOnItsOwnConnection() {
        Fixture f = fixture();
        f.keys().row("queue_name", "jobs", "dedupe_key", "old.", "message_id", 1L, "expires_at", f.later())
                .row("queue_name", "other", "dedupe_key", "old.", "message_id", 2L, "expires_at", f.later());
        f.jdbc.advance(Duration.ofMinutes(10));
        f.keys().row("queue_name", "jobs", "dedupe_key", "new.", "message_id", 3L, "expires_at", f.later());
        f.backend().sweepAll();
        assertEquals(List.of("new."), keyRows(f, "dedupe_key"));
        String run = f.jdbc.logContaining("exec " + f.sql.dialogs().deleteExpiredKeys()).get(0);
        assertTrue(run.endsWith(" <-- [500]"), run);
    }

    /** N1: two keyed batches whose keys fall into two gaps in opposite order. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void keyedBatchesInOppositeOrderDoNotDeadlock() throws Exception {
        Fixture f = fixture("broker.dialogPoolSize", "2");
        f.keys().row("queue_name", "jobs", "dedupe_key", "b.", "message_id", 1L, "expires_at", f.later())
                .row("queue_name", "jobs", "dedupe_key", "y.", "message_id", 2L, "expires_at", f.later());
        f.jdbc.waitForLocks();
        f.broker.nextDialogs(H1, H2);
        Interleave both = new Interleave(f);
        Thread one = new Thread(() -> both.run("one", List.of(keyed("a"), keyed("z"))), "one");
        Thread two = new Thread(() -> both.run("two", List.of(keyed("z2"), keyed("a2"))), "two");
        one.start();
        two.start();
        one.join();
        two.join();
        assertEquals(Map.of("one", "sent", "two", "sent"), both.outcomes);
        assertTrue(f.jdbc.trace().stream().noneMatch(x -> x.contains("deadlock")), "no deadlock at all");
        assertEquals(6, keyRows(f, "dedupe_key").size());
    }

    /**
     * Runs two keyed batches so that each takes its first key before the other takes its second: thread
     * "one" waits before its second key until "two" has taken its first; "two" waits before its second key
     * until "one" waits for a lock or is past its second key.
     */
    private static final class Interleave {
        final Fixture f;
        final Map<String, String> outcomes = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.CountDownLatch twoTookOne = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch onePassed = new java.util.concurrent.CountDownLatch(1);
        final Map<String, Integer> takes = new java.util.concurrent.ConcurrentHashMap<>();
        volatile int oneSession;

        Interleave(Fixture f) {
            this.f = f;
            f.jdbc.beforeExecute((c, sql) -> {
                String who = Thread.currentThread().getName();
                boolean take = sql.equals(f.sql.sending().takeKey());
                int n = takes.merge(who, take ? 1 : 0, Integer::sum);
                if (who.equals("one")) {
                    if (take && n == 1) {
                        oneSession = c;
                    }
                    if (take && n == 2) {
                        await(twoTookOne);
                    } else if (n >= 2) {
                        onePassed.countDown();
                    }
                } else if (who.equals("two")) {
                    if (n >= 1 && !take || take && n == 2) {
                        twoTookOne.countDown();
                    }
                    if (take && n == 2) {
                        long until = System.nanoTime() + 30_000_000_000L;
                        while (onePassed.getCount() > 0 && !f.jdbc.waiting(oneSession) && System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                    }
                }
            });
        }

        void run(String who, List<Message> batch) {
            try {
                f.backend().enqueueAllDeduplicated(Q, batch);
                outcomes.put(who, "sent");
            } catch (RuntimeException e) {
                outcomes.put(who, e.toString());
            } finally {
                if (who.equals("one")) {
                    onePassed.countDown();
                } else {
                    twoTookOne.countDown();
                }
            }
        }

        private static void await(java.util.concurrent.CountDownLatch latch) {
            try {
                latch.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
