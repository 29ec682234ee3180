package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review N4 on the driver and server model ({@link SqlServerModel#silentServer}): on a server that stops answering
 * without closing the connection, a claim's or settle's query timeout does not return; only the connection's
 * network timeout, set before the session's first round trip to the statement's bound plus
 * {@link QueryTimeouts#NETWORK_GRACE_MS}, ends the wait, and the backend reports a lost connection. Without it the
 * model throws {@link SqlServerModel.WouldHangError}. The same fault runs for real on Babelfish in
 * {@link BabelfishSilentServerTest}.
 */
class SilentServerModelTest {
    private static final QueueName Q = QueueName.of("jobs");

    @Test
    void aLeaseClaimOnASilentServerEndsByItsNetworkTimeout() {
        ModelFixture f = new ModelFixture(new SqlServerModel().silentServer());
        f.model.blocks(f.sql.get("claim"));
        TransientBackendException e = assertThrows(TransientBackendException.class,
                () -> f.backend.consume(Q, ConsumeRequest.of(5).withLease(Duration.ofMillis(1500))));
        assertTrue(e.getMessage().contains("connection is unavailable"), e.getMessage());
        assertEquals(2_000 + QueryTimeouts.NETWORK_GRACE_MS, lastNetworkTimeout(f), "2 s bound plus the grace: " + f.model.log());
        assertTrue(f.model.session(1).closed(), "the driver closed the connection");
    }

    @Test
    void aTransactionalClaimOnASilentServerEndsByItsNetworkTimeout() {
        ModelFixture f = new ModelFixture(new SqlServerModel().silentServer());
        f.model.blocks(f.sql.get("claim"));
        assertThrows(TransientBackendException.class, () -> f.backend.consume(Q,
                ConsumeRequest.of(5).withLease(Duration.ofSeconds(4)).withMode(ClaimMode.TRANSACTIONAL)));
        assertEquals(4_000 + QueryTimeouts.NETWORK_GRACE_MS, lastNetworkTimeout(f));
        assertEquals(0, f.backend.openTransactionalClaims());
    }

    @Test
    void aLeaseSettleOnASilentServerEndsByItsNetworkTimeout() {
        ModelFixture f = new ModelFixture(new SqlServerModel().silentServer());
        f.model.blocks(f.sql.get("ack"));
        assertThrows(TransientBackendException.class, () -> f.backend.ack(new Receipt(Q, 1L, 1L, ClaimMode.LEASE)));
        assertEquals(QueryTimeouts.DEFAULT_LEASE_MS + QueryTimeouts.NETWORK_GRACE_MS, lastNetworkTimeout(f));
    }

    /** A transactional settle after a longer extension: the network bound follows the extension's new lease. */
    @Test
    void aTransactionalExtensionRaisesTheNetworkBoundToItsNewLease() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.claims(7);
        List<Delivery> got = f.backend.consume(Q, ConsumeRequest.of(1).withLease(Duration.ofSeconds(5))
                .withMode(ClaimMode.TRANSACTIONAL));
        assertEquals(5_000 + QueryTimeouts.NETWORK_GRACE_MS, f.model.session(1).networkTimeoutMs());
        f.model.labelled(f.sql.get("extend"), List.of("n"), new Object[] {1});
        f.backend.extend(got.get(0).receipt(), Duration.ofSeconds(60));
        assertEquals(60_000 + QueryTimeouts.NETWORK_GRACE_MS, f.model.session(1).networkTimeoutMs());
    }

    /** Enqueues and administration set no network timeout (a purge or a big batch may take long). */
    @Test
    void enqueuesSetNoNetworkTimeout() {
        ModelFixture f = new ModelFixture(new SqlServerModel()).enqueueIds(3);
        f.backend.enqueue(Q, dev.sqlqueue.Message.ofText("a"));
        assertEquals(0, f.model.session(1).networkTimeoutMs());
    }

    private static long lastNetworkTimeout(ModelFixture f) {
        return f.model.session(1).networkTimeoutMs();
    }
}
