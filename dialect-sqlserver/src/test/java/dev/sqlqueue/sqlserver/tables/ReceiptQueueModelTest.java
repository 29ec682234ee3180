package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14, bad input: a {@link Receipt} that names another queue than the one its message was claimed
 * from is refused with {@code receipt.queue} and changes nothing, on the driver and server model. The
 * model scripts what the server returns (the settle's row count, the row's queue); the backend decides
 * the rest.
 */
class ReceiptQueueModelTest {
    private static final QueueName Q = QueueName.of("jobs");
    private static final QueueName OTHER = QueueName.of("other");

    @Test
    void aLeaseReceiptNamingAnotherQueueIsBadInputAndItsTransactionIsRolledBack() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.model.labelled(f.sql.get("ack"), List.of("n"), new Object[] {0}); // the MATCH names the wrong queue
        f.model.labelled(f.sql.get("leaseQueue"), List.of("queue_name"), new Object[] {"jobs"});
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> f.backend.ack(new Receipt(OTHER, 7L, 1L, ClaimMode.LEASE)));
        assertEquals("receipt.queue", e.rule());
        assertTrue(e.getMessage().contains("'other'") && e.getMessage().contains("'jobs'"), e.getMessage());
        assertEquals(List.of("ack", "leaseQueue"), f.model.executedSql().stream().map(f.sql::nameOf).toList());
        assertTrue(f.model.logContaining("rollback").size() >= 1, "the settle's transaction is rolled back: " + f.model.log());
        assertEquals(0, f.model.session(1).tranCount());
    }

    @Test
    void aLeaseReceiptWhoseRowIsGoneIsStillALostLease() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.model.labelled(f.sql.get("nack"), List.of("n"), new Object[] {0});
        f.model.labelled(f.sql.get("leaseQueue"), List.of("queue_name")); // no row under that token
        assertThrows(LeaseLostException.class,
                () -> f.backend.nack(new Receipt(Q, 7L, 1L, ClaimMode.LEASE), java.time.Duration.ZERO, "e"));
    }

    @Test
    void ackAllWithAReceiptNamingAnotherQueueIsBadInput() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.model.labelled(f.sql.get("ack"), List.of("n"), new Object[] {1}); // the first ack matches
        f.model.labelled(f.sql.get("ack"), List.of("n"), new Object[] {0}); // the second names the wrong queue
        f.model.labelled(f.sql.get("leaseQueue"), List.of("queue_name"), new Object[] {"jobs"});
        assertEquals("receipt.queue", assertThrows(InvalidInputException.class, () -> f.backend.ackAll(List.of(
                new Receipt(Q, 6L, 1L, ClaimMode.LEASE), new Receipt(OTHER, 7L, 1L, ClaimMode.LEASE)))).rule());
        assertEquals(0, f.model.session(1).tranCount(), "the chunk's transaction, and its first ack, are rolled back");
    }

    @Test
    void aTransactionalReceiptNamingAnotherQueueRunsNothingAndKeepsTheClaim() {
        ModelFixture f = new ModelFixture(new SqlServerModel()).claims(7L);
        List<Delivery> d = f.backend.consume(Q, ConsumeRequest.of(1).withMode(ClaimMode.TRANSACTIONAL));
        Receipt r = d.get(0).receipt();
        int before = f.model.executedSql().size();
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> f.backend.ack(new Receipt(OTHER, r.messageId(), r.token(), r.mode())));
        assertEquals("receipt.queue", e.rule());
        assertEquals(before, f.model.executedSql().size(), "no statement ran");
        assertEquals(1, f.backend.openTransactionalClaims(), "the claim is still open");
        assertEquals(List.of(Effect.State.PENDING), f.model.effects("WITH", "[dbo].[sqlq_messages]").stream()
                .map(Effect::state).toList(), "the claim's transaction is untouched");
        f.model.labelled(f.sql.get("ack"), List.of("n"), new Object[] {1});
        f.backend.ack(r);
        assertEquals(0, f.backend.openTransactionalClaims());
    }
}
