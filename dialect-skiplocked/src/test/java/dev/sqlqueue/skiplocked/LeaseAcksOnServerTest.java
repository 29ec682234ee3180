package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lease-mode claims and acks of one claim, which on PostgreSQL each run as one statement in one auto-commit
 * round trip ({@code leaseClaim}, {@code ackByClaim}): the acks of a claim report exactly the leases it lost
 * and delete the rest, and the planner settings sent before them end with their round trip.
 */
class LeaseAcksOnServerTest {
    private static String prefix() {
        return "la" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
    }

    /** Ten messages claimed with a 1 s lease ({@code first}), then three of them claimed again once it ran out. */
    private record Retaken(List<Delivery> first, List<Delivery> second, Set<Long> retaken, String table,
                           StatementsOnServerTest.Server server) {
    }

    private interface Case {
        void run(SqlQueue queue, QueueName q, Retaken r) throws Exception;
    }

    private static void withRetaken(SkipLockedDialect d, Case body) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = prefix();
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("acks");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                List<Message> ten = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    ten.add(Message.ofText("m" + i));
                }
                queue.enqueueAll(q, ten);
                List<Delivery> first = queue.consume(q, ConsumeRequest.of(10).withLease(Duration.ofSeconds(1)));
                assertEquals(10, first.size());
                Thread.sleep(1_500); // the leases end (database clock)
                List<Delivery> second = queue.consume(q, ConsumeRequest.of(3).withLease(Duration.ofMinutes(5)));
                assertEquals(3, second.size(), "three of the ten, claimed again");
                body.run(queue, q, new Retaken(first, second, second.stream().map(Delivery::id).collect(Collectors.toSet()),
                        prefix + "message", s));
            } finally {
                queue.dropSchema();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void theAcksOfAClaimReportExactlyTheLeasesItLost(SkipLockedDialect d) throws Exception {
        withRetaken(d, (queue, q, r) -> {
            Set<Receipt> lost = queue.ackAll(r.first().stream().map(Delivery::receipt).toList());

            assertEquals(r.retaken(), lost.stream().map(Receipt::messageId).collect(Collectors.toSet()),
                    d + ": the lost leases are exactly those claimed again");
            QueueStats st = queue.stats(q);
            assertEquals(3, st.depth(), d + ": the other seven were acked, the three stay with their new claim");
            assertEquals(3, st.inFlight());
            assertEquals(Set.of(), queue.ackAll(r.second().stream().map(Delivery::receipt).toList()), "the new claim's acks");
            assertEquals(0, queue.stats(q).depth());
        });
    }

    /**
     * {@code ackAllAndConsume} (on PostgreSQL the acks and the claim in one round trip and one transaction,
     * {@code ackAndLeaseClaim}): the same lost leases as {@code ackAll}, and a claim that sees the acks.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void ackAndClaimInOneCallReportExactlyTheLeasesLost(SkipLockedDialect d) throws Exception {
        withRetaken(d, (queue, q, r) -> {
            List<Long> fresh = queue.enqueueAll(q, List.of(Message.ofText("n0"), Message.ofText("n1")));

            AckedAndClaimed got = queue.ackAllAndConsume(r.first().stream().map(Delivery::receipt).toList(), q,
                    ConsumeRequest.of(10).withLease(Duration.ofMinutes(5)));

            assertEquals(r.retaken(), got.lost().stream().map(Receipt::messageId).collect(Collectors.toSet()),
                    d + ": the lost leases are exactly those claimed again");
            assertEquals(Set.copyOf(fresh), got.claimed().stream().map(Delivery::id).collect(Collectors.toSet()),
                    d + ": the claim holds the two new messages: none of the seven acked, none of the three held elsewhere");
            QueueStats st = queue.stats(q);
            assertEquals(5, st.depth(), d + ": seven acked; three with the second claim, two with this one");
            assertEquals(5, st.inFlight());
        });
    }

    /**
     * A receipt naming this queue for a message claimed from another is refused ({@code receipt.queue}) and
     * the store is as it was, also where the acks and the claim are one round trip that has committed when
     * the mismatch shows (PostgreSQL): the seven rows whose leases ran out, which that claim took, are given
     * back with their old lease token, claim time, visible time and attempts.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void aReceiptNamingTheWrongQueueChangesNothing(SkipLockedDialect d) throws Exception {
        withRetaken(d, (queue, q, r) -> {
            QueueName other = QueueName.of("other");
            queue.createQueue(other);
            queue.enqueue(other, Message.ofText("elsewhere"));
            Delivery elsewhere = queue.consume(other, ConsumeRequest.of(1).withLease(Duration.ofMinutes(5))).get(0);
            Receipt misnamed = new Receipt(q, elsewhere.id(), elsewhere.receipt().token(), elsewhere.receipt().mode());
            StatementsOnServerTest.Server s = r.server();
            List<String> before = rows(s, r.table());

            dev.sqlqueue.InvalidInputException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.sqlqueue.InvalidInputException.class,
                    () -> queue.ackAllAndConsume(List.of(misnamed), q, ConsumeRequest.of(10).withLease(Duration.ofMinutes(5))));

            assertEquals("receipt.queue", e.rule(), d + ": " + e.getMessage());
            assertEquals(before, rows(s, r.table()), d + ": every row as it was");
            queue.ack(elsewhere.receipt());
        });
    }

    /**
     * The acks of {@code ackAllAndConsume} wait on a row lock as long as {@code ackAll}'s would (the longest lease
     * granted), not only as long as the next claim's lease: on PostgreSQL both are one statement, which was
     * bounded by the claim's 1 s and failed after it while a row of the acks was locked for 3 s.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void theAcksWaitOnARowLockAsLongAsAnAckWould(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = prefix();
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("locked");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                queue.enqueueAll(q, List.of(Message.ofText("a"), Message.ofText("b"), Message.ofText("c")));
                List<Delivery> got = queue.consume(q, ConsumeRequest.of(2).withLease(Duration.ofSeconds(30)));
                assertEquals(2, got.size());
                String table = d == SkipLockedDialect.MARIADB ? "`" + prefix + "message`" : "\"" + prefix + "message\"";
                java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
                Thread locker = new Thread(() -> {
                    try (Connection c = java.sql.DriverManager.getConnection(s.url(), s.user(), s.password());
                         Statement st = c.createStatement()) {
                        c.setAutoCommit(false);
                        st.executeQuery("select id from " + table + " where id = " + got.get(0).id() + " for update").close();
                        locked.countDown();
                        Thread.sleep(3_000);
                        c.rollback();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                locker.start();
                assertTrue(locked.await(10, java.util.concurrent.TimeUnit.SECONDS), "the row lock is held");

                AckedAndClaimed result = queue.ackAllAndConsume(got.stream().map(Delivery::receipt).toList(), q,
                        ConsumeRequest.of(1).withLease(Duration.ofSeconds(1)));

                locker.join();
                assertEquals(Set.of(), result.lost(), d + ": both acks done once the lock was let go");
                assertEquals(1, result.claimed().size(), d + ": and the third message claimed");
                assertEquals(1, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }

    /** Every row's id, queue, lease token, attempts, claim time and visible time, in id order. */
    private static List<String> rows(StatementsOnServerTest.Server s, String table) throws Exception {
        String quoted = s.url().startsWith("jdbc:mariadb:") ? "`" + table + "`" : "\"" + table + "\"";
        List<String> out = new ArrayList<>();
        try (Connection c = java.sql.DriverManager.getConnection(s.url(), s.user(), s.password());
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("select id, queue, lease_token, attempts, claimed_at, visible_at from " + quoted
                     + " order by id")) {
            while (rs.next()) {
                out.add(rs.getLong(1) + " " + rs.getString(2) + " " + rs.getObject(3) + " " + rs.getInt(4) + " "
                        + rs.getObject(5) + " " + rs.getLong(6));
            }
        }
        return out;
    }

    /**
     * The claim and the ack run in auto-commit on PostgreSQL, after {@code set_config(..., true)}: the settings
     * end with the round trip's implicit transaction, so the next user of the pooled connection plans with the
     * server's settings. Checked on every connection of a caller's pool of three (the schema migration needs two, the wake-up listener holds one) but the listener's.
     */
    @Test
    void thePlannerSettingsOfAClaimAndAnAckDoNotOutliveTheirRoundTrip() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(s.url());
        hc.setUsername(s.user());
        hc.setPassword(s.password());
        hc.setMaximumPoolSize(3);
        try (HikariDataSource ds = new HikariDataSource(hc)) {
            QueueConfig config = QueueConfig.builder().dataSource(ds).backend("postgresql").tablePrefix(prefix()).build();
            QueueName q = QueueName.of("plans");
            try (SqlQueue queue = SqlQueue.open(config)) {
                try {
                    queue.createQueue(q);
                    queue.enqueueAll(q, List.of(Message.ofText("a"), Message.ofText("b")));
                    List<Delivery> got = queue.consume(q, ConsumeRequest.of(2).withLease(Duration.ofMinutes(5)));
                    assertEquals(2, got.size());
                    assertEquals(EXPECTED, settings(ds), "after the claim");
                    assertEquals(Set.of(), queue.ackAll(got.stream().map(Delivery::receipt).toList()));
                    assertEquals(EXPECTED, settings(ds), "after the ack");
                    queue.enqueueAll(q, List.of(Message.ofText("c"), Message.ofText("d")));
                    List<Delivery> more = queue.consume(q, ConsumeRequest.of(1).withLease(Duration.ofMinutes(5)));
                    AckedAndClaimed next = queue.ackAllAndConsume(more.stream().map(Delivery::receipt).toList(), q,
                            ConsumeRequest.of(1).withLease(Duration.ofMinutes(5)));
                    assertEquals(1, next.claimed().size(), "the other of the two");
                    assertEquals(EXPECTED, settings(ds), "after an ack and claim in one round trip");
                    assertEquals(Set.of(), queue.ackAll(next.claimed().stream().map(Delivery::receipt).toList()));
                    try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
                        assertTrue(a.getAutoCommit() && b.getAutoCommit(), "the caller's connections come back in their own auto-commit mode");
                    }
                    assertEquals(0, queue.stats(q).depth());
                } finally {
                    queue.dropSchema();
                }
            }
        }
    }

    /** The server's defaults of the claim's planner settings, on each of two connections. */
    private static final List<String> EXPECTED = List.of("on", "on", "on", "on", "on", "auto", "on", "on", "on", "on", "on", "auto");

    /** The six settings on each of the pool's two connections, both held at once. */
    private static List<String> settings(HikariDataSource ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection a = ds.getConnection(); Connection b = ds.getConnection()) {
            for (Connection c : List.of(a, b)) {
                try (Statement st = c.createStatement();
                     ResultSet rs = st.executeQuery("select current_setting('enable_bitmapscan'), current_setting('enable_seqscan'),"
                             + " current_setting('enable_sort'), current_setting('enable_hashjoin'), current_setting('enable_mergejoin'),"
                             + " current_setting('plan_cache_mode')")) {
                    rs.next();
                    for (int i = 1; i <= 6; i++) {
                        out.add(rs.getString(i));
                    }
                }
            }
        }
        return out;
    }

    /**
     * A lease receipt whose message was claimed again in transactional mode and nacked (ready again for its
     * retry) is a lost lease: the transactional nack left the old lease token in the row, so the stale ack
     * deleted the message the nack had put back.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void aLeaseReceiptIsLostOnceATransactionalClaimNackedItsMessage(SkipLockedDialect d) throws Exception {
        withRetaken(d, (queue, q, r) -> {
            Delivery stale = r.first().stream().filter(x -> !r.retaken().contains(x.id())).findFirst().orElseThrow();
            List<Delivery> tx = queue.consume(q, ConsumeRequest.of(7).withMode(dev.sqlqueue.ClaimMode.TRANSACTIONAL));
            Delivery again = tx.stream().filter(x -> x.id() == stale.id()).findFirst().orElseThrow();
            for (Delivery x : tx) {
                if (x == again) {
                    queue.nack(x.receipt(), Duration.ZERO, "retry");
                } else {
                    queue.release(x.receipt());
                }
            }
            assertThrows(dev.sqlqueue.LeaseLostException.class, () -> queue.ack(stale.receipt()));
            QueueStats st = queue.stats(q);
            assertEquals(7, st.ready(), "the nacked message is still there, ready: " + st);
        });
    }
}
