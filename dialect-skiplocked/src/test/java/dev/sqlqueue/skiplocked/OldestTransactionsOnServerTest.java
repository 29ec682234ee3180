package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.UnsupportedCapabilityException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, point 1: a session elsewhere that holds a REPEATABLE READ snapshot keeps the server from cleaning up
 * the queue's dead row versions, and nothing said so. {@code oldestTransactions} names that session (its process
 * or connection id and user) while it holds the snapshot, and no longer once it committed. Other sessions of the
 * shared servers may have transactions open too, so the test looks for its own session among them.
 */
class OldestTransactionsOnServerTest {
    static final String APPLICATION = "sqlqueue-test-snapshot-holder";

    /** A connection of its own with a REPEATABLE READ transaction that read the queue's table: it holds a snapshot. */
    static Connection holdSnapshot(SkipLockedDialect d, String prefix) throws SQLException {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        Properties p = new Properties();
        p.setProperty("user", s.user());
        p.setProperty("password", s.password());
        if (d == SkipLockedDialect.POSTGRES) {
            p.setProperty("ApplicationName", APPLICATION);
        }
        Connection c = DriverManager.getConnection(s.url(), p);
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + quote(d, prefix + "message"))) {
            rs.next();
        }
        return c;
    }

    static String sessionId(SkipLockedDialect d, Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(d == SkipLockedDialect.POSTGRES ? "select pg_backend_pid()" : "select connection_id()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String quote(SkipLockedDialect d, String name) {
        return d == SkipLockedDialect.MARIADB ? "`" + name + "`" : "\"" + name + "\"";
    }

    static OpenTransaction find(List<OpenTransaction> open, String sessionId) {
        return open.stream().filter(t -> t.sessionId().equals(sessionId)).findFirst().orElse(null);
    }

    static QueueConfig config(SkipLockedDialect d, String prefix) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        return QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).poolSize(3).build();
    }

    static String prefix() {
        return "ot" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
    }

    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aSessionHoldingASnapshotIsNamedUntilItCommits(SkipLockedDialect d) throws Exception {
        String prefix = prefix();
        QueueName q = QueueName.of("held");
        try (SqlQueue queue = SqlQueue.open(config(d, prefix))) {
            try {
                assertTrue(queue.capabilities().has(Capability.OLDEST_TRANSACTIONS));
                queue.createQueue(q);
                queue.enqueue(q, Message.ofText("x"));
                try (Connection holder = holdSnapshot(d, prefix)) {
                    String id = sessionId(d, holder);
                    List<OpenTransaction> open = queue.oldestTransactions(100);
                    OpenTransaction mine = find(open, id);
                    assertNotNull(mine, "session " + id + " holding a snapshot is reported: " + open);
                    assertEquals(StatementsOnServerTest.server(d).user(), mine.user());
                    assertTrue(mine.ageMillis() >= 0, mine.toString());
                    assertTrue(mine.describe().startsWith("session " + id + " (user "), mine.describe());
                    for (int i = 1; i < open.size(); i++) {
                        assertTrue(open.get(i - 1).ageMillis() >= open.get(i).ageMillis(), "oldest first: " + open);
                    }
                    if (d == SkipLockedDialect.POSTGRES) {
                        assertEquals(APPLICATION, mine.applicationName());
                        assertEquals("idle in transaction", mine.state());
                        assertEquals("127.0.0.1", mine.clientAddress());
                        assertTrue(mine.query().startsWith("select pg_backend_pid()"),
                                mine.query());
                        assertTrue(mine.cleanupBacklog() >= 0, "age(backend_xmin): " + mine);
                    } else {
                        assertTrue(mine.clientAddress().startsWith("127.0.0.1:"), mine.toString());
                        assertTrue(mine.state().startsWith("Sleep"), mine.toString());
                        assertTrue(mine.cleanupBacklog() >= 0, "history list length: " + mine);
                    }
                    // the same transaction, later: never younger
                    OpenTransaction again = find(queue.oldestTransactions(100), id);
                    assertNotNull(again);
                    assertTrue(again.ageMillis() >= mine.ageMillis(), mine + " then " + again);

                    holder.commit();
                    // MariaDB's INNODB_TRX is a cache that is refreshed only by a read 0.1 s or more after the previous
                    // read (reading it every 50 ms kept a committed transaction in it for 30 s): look again, slower
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    OpenTransaction after = find(queue.oldestTransactions(100), id);
                    while (after != null && System.nanoTime() < deadline) {
                        Thread.sleep(300);
                        after = find(queue.oldestTransactions(100), id);
                    }
                    assertEquals(null, after, "after its commit the session holds nothing back");
                }
            } finally {
                queue.dropSchema();
            }
        }
    }

    @Test
    void h2DoesNotReportAndSaysWhy() {
        try (SqlQueue queue = SqlQueue.open(config(SkipLockedDialect.H2, prefix()))) {
            assertFalse(queue.capabilities().has(Capability.OLDEST_TRANSACTIONS));
            assertTrue(queue.capabilities().whyAbsent(Capability.OLDEST_TRANSACTIONS).contains("H2"));
            assertThrows(UnsupportedCapabilityException.class, () -> queue.oldestTransactions(1));
        }
    }

    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aLimitOutOfRangeIsRefused(SkipLockedDialect d) {
        try (SqlQueue queue = SqlQueue.open(config(d, prefix()))) {
            try {
                assertEquals("limit.range", assertThrows(InvalidInputException.class, () -> queue.oldestTransactions(0)).rule());
                assertEquals("limit.range", assertThrows(InvalidInputException.class, () -> queue.oldestTransactions(101)).rule());
            } finally {
                queue.dropSchema();
            }
        }
    }
}
