package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.conformance.faults.SilentServerProxy;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Review N4 on a real T-SQL engine: a claim must end when the server does not answer, whatever the query timeout
 * does. Two ways a claim meets that here, both on Babelfish ({@link BabelfishServer}):
 * <ul>
 *   <li>a server that stops answering without closing the connection (a relay that drops every byte:
 *       {@link SilentServerProxy});</li>
 *   <li>a claim waiting for a row lock: Babelfish answers the query timeout's attention only once the blocked
 *       statement ends ({@code shared/babelfish/BUILD.md}), so only the network timeout ends the wait.</li>
 * </ul>
 * Without the connection's network timeout both claims wait as long as the silence or the blocker lasts; with it
 * they end with {@link TransientBackendException} after their query timeout plus 10 s, and the queue works again
 * once the server answers. The limits below (minutes) are there so that a regression fails instead of hanging.
 */
class BabelfishSilentServerTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final long GIVE_UP_SECONDS = 120;

    private static QueueConfig config(String url, String prefix) {
        return QueueConfig.builder().url(url).tablePrefix(prefix).poolSize(4).build();
    }

    private static String prefix() {
        return "kn" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
    }

    /** Lease mode: the claim's own transaction ({@code Sessions.inTransaction} with a bound). */
    @Test
    void aClaimOnAServerThatStopsAnsweringEndsAndTheQueueWorksAfterwards() throws Exception {
        ClaimMode mode = ClaimMode.LEASE;
        assumeTrue(BabelfishServer.unavailable().isEmpty(), () -> BabelfishServer.unavailable().orElse(""));
        BabelfishServer server = BabelfishServer.get();
        String prefix = prefix();
        QueueName q = QueueName.of("silent");
        try (SilentServerProxy proxy = SilentServerProxy.to("127.0.0.1", server.tdsPort());
             SqlQueue queue = SqlQueue.open(config(server.url().replace(":" + server.tdsPort() + ";", ":" + proxy.port() + ";"),
                     prefix));
             Connection blocker = DriverManager.getConnection(server.url())) {
            queue.enqueue(q, Message.ofText("one"));
            // the claim waits for the blocker's row lock, then the relay goes silent under it
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeUpdate("UPDATE [dbo].[" + prefix + "messages] SET [priority] = [priority]");
            }
            CompletableFuture<List<Delivery>> claim = CompletableFuture.supplyAsync(
                    () -> queue.consume(q, ConsumeRequest.of(10).withLease(LEASE).withMode(mode)));
            Thread.sleep(500);
            proxy.silent(true);
            Throwable failure = failureOf(claim);
            assertInstanceOf(TransientBackendException.class, failure, "the claim ends as a transient failure: " + failure);
            blocker.rollback();
            proxy.silent(false);
            List<Delivery> got = List.of();
            for (int i = 0; i < 30 && got.isEmpty(); i++) {
                try {
                    got = queue.consume(q, ConsumeRequest.of(10).withLease(Duration.ofSeconds(30)).withMode(mode));
                } catch (TransientBackendException retry) {
                    Thread.sleep(1_000); // connections made during the silence are being replaced
                }
            }
            assertEquals(1, got.size(), "the message is delivered once the server answers again");
            queue.ack(got.get(0).receipt());
            assertEquals(0, queue.stats(q).depth());
        } finally {
            cleanUp(server, prefix);
        }
    }

    /** Transactional mode: the session a claim keeps open ({@code Sessions.open} with a bound). */
    @Test
    void aClaimWaitingForALockTheQueryTimeoutCannotEndEndsByTheNetworkTimeout() throws Exception {
        ClaimMode mode = ClaimMode.TRANSACTIONAL;
        assumeTrue(BabelfishServer.unavailable().isEmpty(), () -> BabelfishServer.unavailable().orElse(""));
        BabelfishServer server = BabelfishServer.get();
        String prefix = prefix();
        QueueName q = QueueName.of("blocked");
        try (SqlQueue queue = SqlQueue.open(config(server.url(), prefix));
             Connection blocker = DriverManager.getConnection(server.url())) {
            queue.enqueue(q, Message.ofText("one"));
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.executeUpdate("UPDATE [dbo].[" + prefix + "messages] SET [priority] = [priority]");
            }
            CompletableFuture<List<Delivery>> claim = CompletableFuture.supplyAsync(
                    () -> queue.consume(q, ConsumeRequest.of(10).withLease(LEASE).withMode(mode)));
            Throwable failure = failureOf(claim);
            assertInstanceOf(TransientBackendException.class, failure,
                    "the claim ended while the blocker still held its lock: " + failure);
            blocker.rollback();
            List<Delivery> got = queue.consume(q, ConsumeRequest.of(10).withLease(Duration.ofSeconds(30)).withMode(mode));
            assertEquals(1, got.size(), "the message is still there, once");
            assertEquals(1, got.get(0).attempt(), "the ended claim did not count an attempt");
            queue.ack(got.get(0).receipt());
        } finally {
            cleanUp(server, prefix);
        }
    }

    /** The claim's failure; fails the test if it returned, or is still waiting after {@link #GIVE_UP_SECONDS}. */
    private static Throwable failureOf(CompletableFuture<List<Delivery>> claim) throws InterruptedException {
        try {
            List<Delivery> got = claim.get(GIVE_UP_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("the claim returned " + got.size() + " deliveries while the server did not answer");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the claim still waits after " + GIVE_UP_SECONDS + " s: no network bound");
        }
    }

    private static void cleanUp(BabelfishServer server, String prefix) throws Exception {
        try (Connection c = DriverManager.getConnection(server.url()); Statement s = c.createStatement()) {
            s.execute(new SqlServerStatements(prefix, "dbo", ClaimOrder.FIFO).get("dropSchema"));
        }
    }
}
