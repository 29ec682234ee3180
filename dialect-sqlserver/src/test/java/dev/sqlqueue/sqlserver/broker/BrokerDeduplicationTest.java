package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.sqlserver.model.Effect;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deduplication keys on {@code sqlserver-broker}, on the driver/server model: the key is read and written
 * in the transaction of the SEND (the backend's or the caller's), a taken key sends nothing, and the
 * duplicate flag reaches the caller. What the HOLDLOCK read does under concurrency is the server's; it
 * has not run on one.
 */
class BrokerDeduplicationTest {
    private static Message keyed(String key) {
        return Message.builder("p".getBytes()).deduplicationKey(key).build();
    }

    @Test
    void aFreeKeyIsRecordedInTheTransactionOfTheSend() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        assertTrue(f.backend().capabilities().has(Capability.DEDUPLICATION));
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.takeKey(), new Object[] {null});
        f.jdbc.rows(f.sql.send(Q), new Object[] {41L});
        assertEquals(new EnqueueResult(41, false), f.backend().enqueueDeduplicated(Q, keyed("order-1")));
        List<String> c2 = f.jdbc.logContaining("c2 ");
        assertEquals("c2 exec " + f.sql.takeKey() + " <-- [jobs, order-1.]", c2.get(2), c2.toString());
        assertTrue(c2.get(3).startsWith("c2 exec " + f.sql.send(Q) + " <-- [" + H1), c2.get(3));
        assertEquals("c2 exec " + f.sql.recordKey() + " <-- [jobs, order-1., 41, 300, 0]", c2.get(4));
        assertEquals("c2 commit", c2.get(5));
        assertTrue(f.jdbc.effects("INSERT", "[dbo].[sqlq_bk_keys]").stream().allMatch(e -> e.inTransaction()
                && e.state() == Effect.State.COMMITTED), "the key committed with the SEND");
    }

    @Test
    void aTakenKeySendsNothingAndReturnsTheHolder() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.takeKey(), new Object[] {77L});
        assertEquals(new EnqueueResult(77, true), f.backend().enqueueDeduplicated(Q, keyed("order-1")));
        assertEquals(List.of(), f.jdbc.logContaining("exec " + f.sql.send(Q)), "no SEND");
        assertEquals(List.of(), f.jdbc.logContaining(f.sql.recordKey()), "no key written");
        assertEquals(1, f.jdbc.logContaining("c2 commit").size());
    }

    @Test
    void aBatchSaysWhichOfItsMessagesWereDuplicates() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.takeKey(), new Object[] {77L});
        f.jdbc.rows(f.sql.takeKey(), new Object[] {null});
        f.jdbc.rows(f.sql.send(Q), new Object[] {41L});
        assertEquals(List.of(new EnqueueResult(77, true), new EnqueueResult(41, false)),
                f.backend().enqueueAllDeduplicated(Q, List.of(keyed("taken"), keyed("free"))));
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.send(Q)).size(), "one SEND, for the free key");
        assertEquals(1, f.jdbc.logContaining("c2 commit").size(), "one transaction");
    }

    @Test
    void inTheCallersTransactionTheKeyWaitsForItsCommit() throws Exception {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.takeKey(), new Object[] {null});
        f.jdbc.rows(f.sql.sendOnOwnDialog(Q), new Object[] {5L});
        Connection caller = f.jdbc.dataSource().getConnection();
        caller.setAutoCommit(false);
        assertEquals(new EnqueueResult(5, false), f.backend().enqueueDeduplicated(caller, Q, keyed("k ")));
        assertEquals("c1 exec " + f.sql.takeKey() + " <-- [jobs, k .]", f.jdbc.log().get(1), "trailing space kept by the terminator");
        assertEquals("c1 exec " + f.sql.recordKey() + " <-- [jobs, k ., 5, 300, 0]", f.jdbc.log().get(3));
        assertEquals(1, f.jdbc.session(1).tranCount(), "the caller's transaction is open and not ours to end");
        assertTrue(f.jdbc.effects("INSERT", "[dbo].[sqlq_bk_keys]").stream().allMatch(e -> e.state() == Effect.State.PENDING));
        caller.rollback();
        assertTrue(f.jdbc.effects("INSERT", "[dbo].[sqlq_bk_keys]").stream().allMatch(e -> e.state() == Effect.State.ROLLED_BACK),
                "the caller's rollback frees the key with the message");
        assertEquals(1, f.jdbc.sessionsOpened());
    }
}
