package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL backend through a {@link PrivatePgBouncer} (Debian's pgbouncer 1.18, {@code pool_mode =
 * transaction}) in front of this machine's PostgreSQL: with {@code postgresql.transaction-pooler=true}
 * enqueue, lease and transactional claims, acks, nacks and worker pools run many more times than pgjdbc's
 * {@code prepareThreshold} (5) on connections that pgbouncer shares between clients, nothing is lost or
 * duplicated, no LISTEN reaches the server and waiting consumers still find messages by polling; without the
 * option the driver's named prepared statements fail with an error that names the option. Skipped, with the
 * reason, only when the pgbouncer binary is missing ({@code .ci/ensure-pgbouncer} installs it in CI).
 */
class PostgresPgBouncerTest {
    private static PrivatePgBouncer bouncer;
    private static ServerLocator.Server server;
    private static final int SERVER_CONNECTIONS = 3;

    private String prefix;
    private final List<String> prefixes = new ArrayList<>();

    @BeforeAll
    static void startBouncer() throws Exception {
        Optional<String> why = PrivatePgBouncer.unavailable();
        assumeTrue(why.isEmpty(), () -> "pgbouncer tests skipped: " + why.orElse(""));
        server = ServerLocator.postgres();
        URI uri = URI.create(server.url().substring("jdbc:".length()));
        String database = uri.getPath().substring(1);
        // fewer server connections than the library's pool: clients share them, transaction by transaction
        bouncer = PrivatePgBouncer.start(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), database, server.user(),
                SERVER_CONNECTIONS);
    }

    @AfterAll
    static void stopBouncer() throws Exception {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    @BeforeEach
    void newPrefix() {
        prefix = "pgb" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        prefixes.add(prefix);
    }

    @AfterEach
    void cleanUp() {
        for (String p : prefixes) {
            PostgresConformanceTest.TARGET.cleanUp(p);
        }
    }

    private QueueConfig.Builder throughBouncer() {
        return QueueConfig.builder().url(bouncer.url()).user(server.user()).password(server.password())
                .tablePrefix(prefix).poolSize(10);
    }

    private QueueConfig pooled() {
        return throughBouncer().option(PostgresOptions.TRANSACTION_POOLER, "true").build();
    }

    @Test
    void leaseAndTransactionalClaimsAckAndNackThroughTransactionPooling() throws Exception {
        try (SqlQueue queue = SqlQueue.open(pooled())) {
            assertFalse(queue.capabilities().has(Capability.SERVER_SIDE_WAIT),
                    "no LISTEN through a transaction pooler, so no server-side wait is claimed");
            QueueName q = QueueName.of("bounced");
            queue.createQueue(q);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                ids.add(queue.enqueue(q, Message.ofText("one " + i)));
            }
            for (int i = 0; i < 4; i++) {
                List<Message> batch = new ArrayList<>();
                for (int j = 0; j < 10; j++) {
                    batch.add(Message.ofText("batch " + i + "/" + j));
                }
                ids.addAll(queue.enqueueAll(q, batch));
            }
            assertEquals(80, queue.stats(q).ready());

            List<Long> seen = new ArrayList<>();
            // lease mode, one message per claim: 20 claims and 20 acks, then 10 nacks taken again
            for (int i = 0; i < 20; i++) {
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(1));
                assertEquals(1, got.size());
                queue.ack(got.get(0).receipt());
                seen.add(got.get(0).id());
            }
            for (int i = 0; i < 10; i++) {
                Delivery d = queue.consume(q, ConsumeRequest.of(1)).get(0);
                queue.nack(d.receipt(), Duration.ZERO, "again");
            }
            // transactional mode: claims of 5, acked one by one inside the claim's transaction
            while (seen.size() < 60) {
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(5).withMode(ClaimMode.TRANSACTIONAL));
                assertFalse(got.isEmpty());
                for (Delivery d : got) {
                    queue.ack(d.receipt());
                    seen.add(d.id());
                }
            }
            // lease mode, claims of 4, acked together
            while (true) {
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(4));
                if (got.isEmpty()) {
                    break;
                }
                assertEquals(java.util.Set.of(), queue.ackAll(got.stream().map(Delivery::receipt).toList()));
                got.forEach(d -> seen.add(d.id()));
            }
            assertEquals(80, seen.size(), "every message once: " + seen);
            assertEquals(new java.util.TreeSet<>(ids), new java.util.TreeSet<>(seen));
            assertEquals(0, queue.stats(q).depth());
        }
        assertFalse(bouncer.log().contains("ERROR") || bouncer.log().contains("WARNING"), bouncer.logTail());
    }

    @Test
    void workerPoolsOfBothModesDrainExactlyOnceThroughTransactionPooling() throws Exception {
        try (SqlQueue queue = SqlQueue.open(pooled())) {
            for (ClaimMode mode : ClaimMode.values()) {
                QueueName q = QueueName.of("pool_" + mode.name().toLowerCase());
                queue.createQueue(q);
                List<Message> messages = new ArrayList<>();
                for (int i = 0; i < 600; i++) {
                    messages.add(Message.ofText("m" + i));
                }
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < messages.size(); i += 50) {
                    ids.addAll(queue.enqueueAll(q, messages.subList(i, i + 50)));
                }
                WorkerPoolOnServerTest.Events events = new WorkerPoolOnServerTest.Events();
                WorkerOptions options = WorkerOptions.defaults().withThreads(4).withMode(mode).withStopWhenEmpty(true)
                        .withPollWait(Duration.ofMillis(200));
                try (WorkerPool pool = WorkerPool.start(queue, q, d -> Outcome.ack(), options, events)) {
                    assertTrue(pool.awaitTermination(Duration.ofSeconds(120)), "the " + mode + " pool drains the queue");
                }
                Map<Long, Integer> acked = events.ackedCounts();
                assertEquals(ids.size(), acked.size(), mode + ": every message acked");
                assertTrue(acked.values().stream().allMatch(n -> n == 1), mode + ": none acked twice");
                assertEquals(new java.util.TreeSet<>(ids), new java.util.TreeSet<>(acked.keySet()));
                assertEquals(0, queue.stats(q).depth());
            }
        }
    }

    /**
     * No LISTEN connection through the pooler, no error or warning logged, and a consumer waiting in
     * another client finds a message enqueued after it started waiting, by polling (idlePollMax 300 ms).
     */
    @Test
    void wakeUpDegradesToPollingWithoutErrors() throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            QueueConfig config = throughBouncer().option(PostgresOptions.TRANSACTION_POOLER, "true")
                    .idlePollMax(Duration.ofMillis(300)).build();
            try (SqlQueue consumer = SqlQueue.open(config); SqlQueue producer = SqlQueue.open(config)) {
                QueueName q = QueueName.of("wake");
                consumer.createQueue(q);
                Thread late = new Thread(() -> {
                    try {
                        Thread.sleep(700);
                        producer.enqueue(q, Message.ofText("late"));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                late.start();
                List<Delivery> got = consumer.consume(q, ConsumeRequest.of(1).withWait(Duration.ofSeconds(20)));
                late.join();
                assertEquals(1, got.size(), "the waiting consumer found the message by polling");
                assertEquals("late", got.get(0).text());
                consumer.ack(got.get(0).receipt());
                // nothing of this prefix ever ran LISTEN on the server
                assertEquals(0, listensOnServer(), "a LISTEN reached the server through the pooler");
            }
        } finally {
            System.setErr(err);
        }
        String logged = captured.toString(StandardCharsets.UTF_8);
        assertFalse(logged.contains("WARN") || logged.contains("ERROR") || logged.contains("Exception"),
                "nothing logged at WARN or ERROR: " + logged);
        assertFalse(bouncer.log().contains("ERROR") || bouncer.log().contains("WARNING"), bouncer.logTail());
    }

    /** Sessions on the server whose last statement was this prefix's LISTEN. */
    private int listensOnServer() throws Exception {
        try (Connection c = DriverManager.getConnection(server.url(), server.user(), server.password());
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE query ILIKE ?")) {
            ps.setString(1, "listen%" + prefix + "wakeup%");
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /**
     * Without the option pgjdbc names its statements on the server after 5 executions; through a transaction
     * pooler another client's connection may already hold that name on the shared server connection. With one
     * server connection behind pgbouncer that is certain: a raw client's sixth execution prepares {@code S_1},
     * then the library's sixth enqueue prepares its own {@code S_1} on the same server connection. The error
     * names the option.
     */
    @Test
    void withoutTheOptionTheDriversNamedStatementsFailWithAnErrorNamingTheOption() throws Exception {
        try (PrivatePgBouncer single = PrivatePgBouncer.start("127.0.0.1", URI.create(server.url().substring(5)).getPort(),
                URI.create(server.url().substring(5)).getPath().substring(1), server.user(), 1);
             Connection raw = DriverManager.getConnection(single.url(), server.user(), server.password());
             PreparedStatement ps = raw.prepareStatement("SELECT ?::int")) {
            for (int i = 0; i < 6; i++) {
                ps.setInt(1, i);
                ps.executeQuery().close();
            }
            QueueConfig config = QueueConfig.builder().url(single.url()).user(server.user()).password(server.password())
                    .tablePrefix(prefix).poolSize(2).build();
            SqlQueueException e = assertThrows(SqlQueueException.class, () -> {
                try (SqlQueue queue = SqlQueue.open(config)) {
                    QueueName q = QueueName.of("unnamed");
                    queue.createQueue(q);
                    for (int i = 0; i < 20; i++) {
                        queue.enqueue(q, Message.ofText("m" + i));
                    }
                }
            });
            assertTrue(e.getMessage().contains(PostgresOptions.TRANSACTION_POOLER + "=true"), e.getMessage());
        }
    }

    @Test
    void aUrlThatPreparesOnTheServerIsRefusedWithTheOption() {
        QueueConfig config = QueueConfig.builder().url(bouncer.url() + "?prepareThreshold=5").user(server.user())
                .password(server.password()).tablePrefix(prefix).option(PostgresOptions.TRANSACTION_POOLER, "true").build();
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlQueue.open(config).close());
        assertEquals(PostgresProvider.POOLER_RULE, e.rule());
        assertTrue(e.getMessage().contains("prepareThreshold=5"), e.getMessage());
        InvalidInputException bad = assertThrows(InvalidInputException.class, () -> SqlQueue.open(
                throughBouncer().option(PostgresOptions.TRANSACTION_POOLER, "yes").build()).close());
        assertEquals(PostgresOptions.TRANSACTION_POOLER, bad.rule());
    }

    private static com.zaxxer.hikari.HikariDataSource callersPool(String url, int size) {
        com.zaxxer.hikari.HikariConfig hc = new com.zaxxer.hikari.HikariConfig();
        hc.setJdbcUrl(url);
        hc.setUsername(server.user());
        hc.setPassword(server.password());
        hc.setMaximumPoolSize(size);
        return new com.zaxxer.hikari.HikariDataSource(hc);
    }

    /** A caller's pool with pgjdbc's default prepareThreshold is refused; one with prepareThreshold=0 works. */
    @Test
    void aCallersPoolThatPreparesOnTheServerIsRefused() throws Exception {
        try (com.zaxxer.hikari.HikariDataSource ds = callersPool(bouncer.url(), 2)) {
            QueueConfig config = QueueConfig.builder().dataSource(ds).backend("postgresql").tablePrefix(prefix)
                    .option(PostgresOptions.TRANSACTION_POOLER, "true").build();
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlQueue.open(config).close());
            assertEquals(PostgresProvider.POOLER_RULE, e.rule());
            assertTrue(e.getMessage().contains("prepareThreshold=0"), e.getMessage());
        }
        try (com.zaxxer.hikari.HikariDataSource ds = callersPool(bouncer.url() + "?prepareThreshold=0", 4)) {
            QueueConfig config = QueueConfig.builder().dataSource(ds).backend("postgresql").tablePrefix(prefix)
                    .option(PostgresOptions.TRANSACTION_POOLER, "true").build();
            try (SqlQueue queue = SqlQueue.open(config)) {
                QueueName q = QueueName.of("callers");
                queue.createQueue(q);
                for (int i = 0; i < 12; i++) {
                    queue.enqueue(q, Message.ofText("m" + i));
                }
                for (int i = 0; i < 12; i++) {
                    Delivery d = queue.consume(q, ConsumeRequest.of(1)).get(0);
                    assertNotNull(d);
                    queue.ack(d.receipt());
                }
                assertEquals(0, queue.stats(q).depth());
            }
        }
    }
}
