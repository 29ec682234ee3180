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
import dev.sqlqueue.TransientBackendException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Review N4 for Service Broker, on the model's silent server ({@code SqlServerModel.silentServer}): a RECEIVE or a
 * settle on a server that stops answering without closing the connection ends by the connection's network timeout
 * (its bound plus {@link 10_000}), not by its query timeout, which does not return there; without the
 * network timeout the model reports a hang. The claim's connection gets its own network timeout back when the claim
 * ends normally.
 */
class BrokerSilentServerTest {
    private static final ConsumeRequest TX = new ConsumeRequest(10, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);

    @Test
    void aReceiveOnASilentServerEndsByItsNetworkTimeout() {
        Fixture f = new Fixture();
        f.jdbc.silentServer();
        f.arrive(data(H1, 1, 5L, "hello", Map.of()));
        f.jdbc.blocks(f.sql.claims().receive(Q));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.backend().consume(Q, TX.withWait(Duration.ofMillis(1500))));
        assertTrue(e.getMessage().contains("Read timed out"), e.getMessage());
        assertEquals(32_000 + 10_000, f.jdbc.session(1).networkTimeoutMs(), "the wait plus the lease, plus the grace");
        assertTrue(f.jdbc.session(1).closed(), "the driver closed the connection; the server rolls back");
    }

    @Test
    void aSettleOnASilentServerEndsByItsNetworkTimeoutAndAnEndedClaimGivesTheTimeoutBack() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "hello", Map.of()));
        Delivery d = f.backend().consume(Q, TX.withLease(Duration.ofSeconds(20)).withWait(Duration.ofMillis(100))).get(0);
        f.backend().ack(d.receipt());
        assertEquals(0, f.jdbc.session(1).networkTimeoutMs(), "the claim's connection has its own network timeout back");

        f.arrive(data(H1, 2, 6L, "again", Map.of()));
        Delivery held = f.backend().consume(Q, TX.withLease(Duration.ofSeconds(20)).withWait(Duration.ofMillis(100))).get(0);
        f.jdbc.silentServer();
        f.jdbc.blocks(f.sql.claims().clearAttempts());
        assertThrows(TransientBackendException.class, () -> f.backend().ack(held.receipt()));
        assertEquals(21_000 + 10_000, f.jdbc.session(2).networkTimeoutMs(), "the RECEIVE's bound (wait plus lease), never lowered");
        assertTrue(f.jdbc.session(2).closed(), "the claim has ended");
    }
}
