package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static dev.sqlqueue.sqlserver.broker.Fixture.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.TransientBackendException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 point 2 and issue 14 item 4 for Service Broker, on the model: the RECEIVE is bounded by the
 * wait plus the lease, settle statements by the lease, a time-out is {@code TransientBackendException}
 * naming the statement and rolls the claim back; a receipt naming another queue is bad input.
 */
class BrokerBoundsTest {
    private static final ConsumeRequest TX = new ConsumeRequest(10, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);

    @Test
    void aBlockedReceiveEndsAfterTheWaitPlusTheLease() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "hello", Map.of()));
        f.jdbc.blocks(f.sql.claims().receive(Q));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.backend().consume(Q, TX.withWait(Duration.ofMillis(1500))));
        assertTrue(e.getMessage().contains("statement receive timed out after 32 s (its query timeout, derived from the lease)"),
                e.getMessage());
        assertEquals(32, f.jdbc.queryTimeoutOf(f.sql.claims().receive(Q)));
        assertEquals(0, f.jdbc.session(1).tranCount(), "rolled back, not left open by the attention");
        assertTrue(f.jdbc.session(1).closed());
    }

    @Test
    void aBlockedSettleEndsTheClaimWithinTheLease() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "hello", Map.of()));
        Delivery d = f.backend().consume(Q, TX.withLease(Duration.ofSeconds(20)).withWait(Duration.ofMillis(100))).get(0);
        f.jdbc.blocks(f.sql.claims().clearAttempts());
        TransientBackendException e = assertThrows(TransientBackendException.class, () -> f.backend().ack(d.receipt()));
        assertTrue(e.getMessage().contains("timed out after 20 s (its query timeout, derived from the lease)"), e.getMessage());
        assertEquals(20, f.jdbc.queryTimeoutOf(f.sql.claims().clearAttempts()));
        assertEquals(0, f.jdbc.session(1).tranCount(), "the claim's transaction is rolled back");
        assertTrue(f.jdbc.session(1).closed(), "the claim has ended");
    }

    @Test
    void aReceiptNamingAnotherQueueIsBadInputAndTheClaimStaysOpen() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "hello", Map.of()));
        Delivery d = f.backend().consume(Q, TX.withWait(Duration.ofMillis(100))).get(0);
        Receipt r = d.receipt();
        int ran = f.jdbc.executedSql().size();
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> f.backend().ack(new Receipt(QueueName.of("other"), r.messageId(), r.token(), r.mode())));
        assertEquals("receipt.queue", e.rule());
        assertEquals(ran, f.jdbc.executedSql().size(), "nothing ran");
        assertTrue(!f.jdbc.session(1).closed() && f.jdbc.session(1).tranCount() > 0, "the claim is still open");
        f.backend().ack(r);
        assertTrue(f.jdbc.session(1).closed(), "settled and ended");
    }
}
