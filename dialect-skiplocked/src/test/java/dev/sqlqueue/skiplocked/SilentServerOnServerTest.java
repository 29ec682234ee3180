package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.conformance.faults.SilentServerProxy;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server that stops answering without closing the connection (a network partition, a dropped NAT or
 * load-balancer entry, a frozen host; here a {@link SilentServerProxy} that drops every byte): a claim or
 * settle waiting for its answer used to wait for ever, since neither driver has a socket timeout by
 * default and the query timeout is enforced by the server. Now such a statement ends once its query
 * timeout and {@link QueryTimeouts#NETWORK_GRACE_MS} have passed, as a {@link TransientBackendException},
 * and nothing is lost. The network timeout is set on the connection for the statement and whatever follows
 * it in the transaction; a caller's connection gets its own value back.
 */
// a guard, on a thread of its own: without the bound the claim below waited for ever, uninterruptibly
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SilentServerOnServerTest {
    private static final Duration LEASE = Duration.ofSeconds(1);

    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aClaimOnAServerThatStoppedAnsweringEndsAfterItsBoundAndLosesNothing(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "ss" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig direct = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("silent");
        ExecutorService claims = Executors.newSingleThreadExecutor();
        try (SqlQueue store = SqlQueue.open(direct); SilentServerProxy proxy = SilentServerProxy.to("127.0.0.1", port(s.url()))) {
            store.createQueue(q);
            long id = store.enqueue(q, Message.of(new byte[] {7}));
            Connection c = DriverManager.getConnection(s.url().replace(":" + port(s.url()) + "/", ":" + proxy.port() + "/"),
                    s.user(), s.password());
            QueueConfig viaProxy = direct.toBuilder().url(null).dataSource(oneConnection(c, s)).backend(backend(d))
                    .migrate(false).build();
            try (SqlQueue queue = SqlQueue.open(viaProxy)) {
                assertEquals(0, queue.consume(QueueName.of("other"), ConsumeRequest.of(1).withLease(LEASE)).size(),
                        "the connection through the relay works");
                proxy.silent(true);
                long t0 = System.nanoTime();
                Future<List<Delivery>> claim = claims.submit(() -> queue.consume(q, ConsumeRequest.of(1).withLease(LEASE)));
                // 60 s: far beyond the bound (1 s lease + the grace); without one the claim never ends
                ExecutionException e = assertThrows(ExecutionException.class, () -> claim.get(60, TimeUnit.SECONDS),
                        "a claim on a server that stopped answering must end");
                long tookMs = (System.nanoTime() - t0) / 1_000_000;
                assertInstanceOf(TransientBackendException.class, e.getCause(), () -> "got " + e.getCause());
                assertTrue(tookMs >= LEASE.toMillis(), "not before the statement's own bound: " + tookMs + " ms");
            } finally {
                proxy.silent(false);
            }
            // nothing lost: the message is still there (the silent relay passed nothing on)
            List<Delivery> got = store.consume(q, ConsumeRequest.of(1).withLease(Duration.ofSeconds(30)).withWait(Duration.ofSeconds(10)));
            assertEquals(1, got.size(), "the message is still in the queue");
            assertEquals(id, got.get(0).id());
            store.ack(got.get(0).receipt());
            store.dropQueue(q);
        } finally {
            claims.shutdownNow();
        }
    }

    /**
     * The same on the backend's own pool. The claim goes silent right after one that worked, on the same thread,
     * so HikariCP hands out the same connection without a validation of its own (it skips it for a connection
     * used in the last 500 ms), and the statement meets the silence.
     */
    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aClaimOnTheBackendsOwnPoolEndsToo(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "ss" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig direct = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("silent-own");
        ExecutorService claims = Executors.newSingleThreadExecutor();
        try (SqlQueue store = SqlQueue.open(direct); SilentServerProxy proxy = SilentServerProxy.to("127.0.0.1", port(s.url()))) {
            store.createQueue(q);
            long id = store.enqueue(q, Message.of(new byte[] {8}));
            QueueConfig viaProxy = direct.toBuilder().url(s.url().replace(":" + port(s.url()) + "/", ":" + proxy.port() + "/"))
                    .poolSize(2).migrate(false).build();
            try (SqlQueue queue = SqlQueue.open(viaProxy)) {
                long t0 = System.nanoTime();
                Future<List<Delivery>> claim = claims.submit(() -> {
                    queue.consume(QueueName.of("other"), ConsumeRequest.of(1).withLease(LEASE));
                    proxy.silent(true);
                    return queue.consume(q, ConsumeRequest.of(1).withLease(LEASE));
                });
                ExecutionException e = assertThrows(ExecutionException.class, () -> claim.get(60, TimeUnit.SECONDS),
                        "a claim on a server that stopped answering must end");
                assertInstanceOf(TransientBackendException.class, e.getCause(), () -> "got " + e.getCause());
                assertTrue((System.nanoTime() - t0) / 1_000_000 >= LEASE.toMillis(), "not before the statement's own bound");
                proxy.silent(false);
                // as a worker does: the pool's connection attempts made during the silence end by their own login
                // timeout (HikariCP's, 10 s), so the first claims after it may still fail for want of a connection
                List<Delivery> again = List.of();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (again.isEmpty() && System.nanoTime() < until) {
                    try {
                        again = queue.consume(q, ConsumeRequest.of(1).withLease(Duration.ofSeconds(30)).withWait(Duration.ofSeconds(1)));
                    } catch (TransientBackendException stillRecovering) {
                        Thread.sleep(200);
                    }
                }
                assertEquals(1, again.size(), "once the server answers again, the same pool claims the message");
                assertEquals(id, again.get(0).id());
                queue.ack(again.get(0).receipt());
            } finally {
                proxy.silent(false);
            }
            store.dropQueue(q);
        } finally {
            claims.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aCallersConnectionGetsItsNetworkTimeoutBack(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "ss" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        try (Connection c = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            c.setNetworkTimeout(Runnable::run, 123_000);
            QueueConfig config = QueueConfig.builder().dataSource(oneConnection(c, s)).backend(backend(d)).tablePrefix(prefix).build();
            try (SqlQueue queue = SqlQueue.open(config)) {
                QueueName q = QueueName.of("given-back");
                queue.createQueue(q);
                queue.enqueue(q, Message.of(new byte[] {1}));
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(1).withLease(LEASE));
                assertEquals(123_000, c.getNetworkTimeout(), "after a claim");
                queue.ack(got.get(0).receipt());
                assertEquals(123_000, c.getNetworkTimeout(), "after an ack");
                queue.dropQueue(q);
            }
        }
    }

    private static int port(String url) {
        return url.contains(":5432/") ? 5432 : 3306;
    }

    private static String backend(SkipLockedDialect d) {
        return d == SkipLockedDialect.POSTGRES ? "postgresql" : "mariadb";
    }

    /**
     * A caller's pool around connection {@code c}: {@code close()} hands it back, to be given out again; while
     * it is out, and to PostgreSQL's LISTEN thread, a request gets a new connection to {@code more}.
     */
    private static DataSource oneConnection(Connection c, StatementsOnServerTest.Server more) {
        java.util.concurrent.atomic.AtomicBoolean out = new java.util.concurrent.atomic.AtomicBoolean();
        Connection handle = (Connection) Proxy.newProxyInstance(SilentServerOnServerTest.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, args) -> {
                    if (m.getName().equals("close")) {
                        out.set(false);
                        return null;
                    }
                    try {
                        return m.invoke(c, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return new DataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                // PostgreSQL's LISTEN thread, started at open, keeps its connection: it gets one of its own
                boolean listener = Thread.currentThread().getName().startsWith("sqlqueue-pg-listen");
                return !listener && out.compareAndSet(false, true) ? handle
                        : DriverManager.getConnection(more.url(), more.user(), more.password());
            }

            @Override
            public Connection getConnection(String user, String password) throws SQLException {
                return getConnection();
            }

            @Override
            public PrintWriter getLogWriter() {
                return null;
            }

            @Override
            public void setLogWriter(PrintWriter out) {
            }

            @Override
            public void setLoginTimeout(int seconds) {
            }

            @Override
            public int getLoginTimeout() {
                return 0;
            }

            @Override
            public Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }

            @Override
            public <T> T unwrap(Class<T> iface) throws SQLException {
                throw new SQLException("not a wrapper");
            }

            @Override
            public boolean isWrapperFor(Class<?> iface) {
                return false;
            }
        };
    }
}
