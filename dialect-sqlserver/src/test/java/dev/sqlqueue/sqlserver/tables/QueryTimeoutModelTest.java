package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 point 2 on the driver and server model: a claim or settle statement that waits on a lock
 * READPAST does not skip (a table or escalated lock) ends by its lease-derived query timeout, as
 * {@code TransientBackendException} naming the statement, not retried, and its transaction is rolled
 * back by the backend (the model's attention leaves it open, see {@link SqlServerModel#blocks}).
 */
class QueryTimeoutModelTest {
    private static final QueueName Q = QueueName.of("jobs");

    @Test
    void aBlockedLeaseClaimTimesOutAfterItsLeaseAndIsNotRetried() {
        SqlServerModel model = new SqlServerModel();
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        SqlServerQueueBackend backend = new SqlServerQueueBackend(sql, new Sessions(model.dataSource(), 3, retry -> { }),
                false, () -> { }, null, ClaimOrder.FIFO);
        model.blocks(sql.get("claim"));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> backend.consume(Q, ConsumeRequest.of(5).withLease(Duration.ofMillis(1500))));
        assertTrue(e.getMessage().startsWith("claim from queue 'jobs' failed: statement claim timed out after 2 s"
                + " (its query timeout, derived from the lease): SET NOCOUNT ON;"), e.getMessage());
        assertEquals(2, model.queryTimeoutOf(sql.get("claim")));
        assertEquals(1, model.executedSql().size(), "not retried: " + model.executedSql());
        assertEquals(0, model.session(1).tranCount(), "rolled back by the backend, not left open by the attention");
        assertTrue(model.session(1).closed());
    }

    @Test
    void leaseSettlesAreBoundedByTheLongestLeaseGrantedAndAnExtensionByItsNewLease() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.model.labelled(f.sql.get("ack"), List.of("n"), new Object[] {1});
        f.backend.ack(new Receipt(Q, 1L, 1L, ClaimMode.LEASE));
        assertEquals(30, f.model.queryTimeoutOf(f.sql.get("ack")), "30 s before the first claim");
        f.claims();
        f.backend.consume(Q, ConsumeRequest.of(1).withLease(Duration.ofSeconds(45)));
        assertEquals(45, f.model.queryTimeoutOf(f.sql.get("claim")));
        f.backend.ack(new Receipt(Q, 1L, 1L, ClaimMode.LEASE));
        assertEquals(45, f.model.queryTimeoutOf(f.sql.get("ack")), "the longest lease granted so far");
        f.model.labelled(f.sql.get("extend"), List.of("n"), new Object[] {1});
        f.backend.extend(new Receipt(Q, 1L, 1L, ClaimMode.LEASE), Duration.ofSeconds(90));
        assertEquals(90, f.model.queryTimeoutOf(f.sql.get("extend")), "at least the new lease");

        f.model.blocks(f.sql.get("nack"));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.backend.nack(new Receipt(Q, 1L, 1L, ClaimMode.LEASE), Duration.ZERO, "x"));
        assertTrue(e.getMessage().contains("statement nack timed out after 90 s (its query timeout, derived from the lease)"),
                e.getMessage());
        int last = f.model.sessionsOpened();
        assertEquals(0, f.model.session(last).tranCount(), "the settle's transaction is rolled back");
    }

    @Test
    void aBlockedTransactionalSettleEndsTheClaimWithinWhatIsLeftOfItsLease() {
        ModelFixture f = new ModelFixture(new SqlServerModel()).claims(7L, 8L);
        var d = f.backend.consume(Q, ConsumeRequest.of(2).withMode(ClaimMode.TRANSACTIONAL).withLease(Duration.ofSeconds(20)));
        assertEquals(20, f.model.queryTimeoutOf(f.sql.get("claim")));
        f.model.blocks(f.sql.get("ack"));
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.backend.ack(d.get(0).receipt()));
        assertTrue(e.getMessage().contains("statement ack timed out after "), e.getMessage());
        int bound = f.model.queryTimeoutOf(f.sql.get("ack"));
        assertTrue(bound >= 1 && bound <= 20, "what is left of the 20 s lease, was " + bound);
        assertEquals(0, f.backend.openTransactionalClaims(), "the claim has ended");
        assertEquals(0, f.model.session(1).tranCount(), "its transaction was rolled back, not left open by the attention");
        assertEquals(List.of(Effect.State.ROLLED_BACK), f.model.effects("WITH", "[dbo].[sqlq_messages]").stream()
                .map(Effect::state).toList(), "both messages are back on the queue");
        assertThrows(dev.sqlqueue.LeaseLostException.class, () -> f.backend.ack(d.get(1).receipt()));
    }
}
