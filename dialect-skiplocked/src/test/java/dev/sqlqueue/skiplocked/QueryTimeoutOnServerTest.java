package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Claim and settle statements that wait on a lock held by another connection end with the query
 * timeout derived from the lease (QueryTimeouts), as a {@link TransientBackendException} naming the
 * statement, instead of waiting as long as the lock is held; nothing is lost: once the lock is released
 * the message is still there and is consumed and acked normally.
 */
// a guard, on a thread of its own: without the bound a claim waits as long as the lock is held, uninterruptibly
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class QueryTimeoutOnServerTest {
    private static final Duration LEASE = Duration.ofSeconds(2);

    private record Setup(QueueConfig config, StatementsOnServerTest.Server server) {
    }

    private static Setup setup(SkipLockedDialect d) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        QueueConfig c = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password())
                .tablePrefix("qt" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_").build();
        return new Setup(c, s);
    }

    private static Connection connect(Setup s) throws SQLException {
        return DriverManager.getConnection(s.server().url(), s.server().user(), s.server().password());
    }

    private static String table(SkipLockedDialect d, QueueConfig c) {
        String name = c.tablePrefix() + "message";
        return d == SkipLockedDialect.MARIADB ? "`" + name + "`" : "\"" + name + "\"";
    }

    /** PostgreSQL and MariaDB: a SKIP LOCKED claim skips locked rows but waits on a table lock. */
    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aClaimWaitingOnATableLockTimesOutNamingTheStatement(SkipLockedDialect d) throws Exception {
        Setup s = setup(d);
        QueueName q = QueueName.of("qt");
        try (SqlQueue queue = SqlQueue.open(s.config())) {
            try {
                queue.createQueue(q);
                queue.enqueue(q, Message.ofText("m"));
                for (ClaimMode mode : ClaimMode.values()) {
                    try (Connection locker = connect(s); Statement st = locker.createStatement()) {
                        if (d == SkipLockedDialect.POSTGRES) {
                            locker.setAutoCommit(false);
                            st.execute("LOCK TABLE " + table(d, s.config()) + " IN ACCESS EXCLUSIVE MODE");
                        } else {
                            st.execute("LOCK TABLES " + table(d, s.config()) + " WRITE");
                        }
                        TransientBackendException e = assertThrows(TransientBackendException.class,
                                () -> queue.consume(q, ConsumeRequest.of(1).withLease(LEASE).withMode(mode)));
                        // PostgreSQL's lease claim is one statement (leaseClaim, issue 16), elsewhere claimSelect
                        String claim = d == SkipLockedDialect.POSTGRES && mode == ClaimMode.LEASE ? "leaseClaim" : "claimSelect";
                        assertTrue(e.getMessage().startsWith("consume failed: statement " + claim + " timed out after 2 s"),
                                d + " " + mode + ": " + e.getMessage());
                        if (d == SkipLockedDialect.POSTGRES) {
                            locker.rollback();
                        } else {
                            st.execute("UNLOCK TABLES");
                        }
                    }
                    List<Delivery> got = queue.consume(q, ConsumeRequest.of(1).withLease(LEASE).withMode(mode));
                    assertEquals(1, got.size(), d + " " + mode + ": the message is still there after the time-out");
                    queue.release(got.get(0).receipt());
                }
            } finally {
                queue.dropSchema();
            }
        }
    }

    /**
     * Every database: an ack waits on the row lock another transaction holds on its message. PostgreSQL
     * and MariaDB: ended by the query timeout. H2: ended by H2's own lock time-out (2 s by default; its
     * query timeout does not end a lock wait), raised as transient with H2's message, which quotes the
     * statement.
     */
    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void anAckWaitingOnARowLockTimesOutNamingTheStatement(SkipLockedDialect d) throws Exception {
        Setup s = setup(d);
        QueueName q = QueueName.of("qt");
        try (SqlQueue queue = SqlQueue.open(s.config())) {
            try {
                queue.createQueue(q);
                queue.enqueue(q, Message.ofText("m"));
                Delivery leased = queue.consume(q, ConsumeRequest.of(1).withLease(LEASE)).get(0);
                try (Connection locker = connect(s); Statement st = locker.createStatement()) {
                    locker.setAutoCommit(false);
                    st.executeQuery("SELECT id FROM " + table(d, s.config()) + " FOR UPDATE").close();
                    TransientBackendException e = assertThrows(TransientBackendException.class, () -> queue.ack(leased.receipt()));
                    if (d == SkipLockedDialect.H2) {
                        assertTrue(e.getMessage().startsWith("ack failed: Timeout trying to lock table")
                                && e.getMessage().contains("delete from \"" + s.config().tablePrefix() + "message\""),
                                d + ": " + e.getMessage());
                    } else {
                        assertTrue(e.getMessage().startsWith("ack failed: statement deleteLeased timed out after 2 s"),
                                d + ": " + e.getMessage());
                    }
                    locker.rollback();
                }
                Delivery again = queue.consume(q, ConsumeRequest.of(1).withLease(LEASE).withWait(Duration.ofSeconds(10))).get(0);
                assertEquals("m", again.text(), d + ": the message was not lost");
                queue.ack(again.receipt());
                assertEquals(0, queue.stats(q).depth());
            } finally {
                queue.dropSchema();
            }
        }
    }
}
