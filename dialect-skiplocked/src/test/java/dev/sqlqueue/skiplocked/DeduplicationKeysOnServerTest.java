package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link DeduplicationKeys} on H2, PostgreSQL and MariaDB, on plain connections: the second transaction
 * taking a key waits for the first and then sees it taken (first committed) or takes it (first rolled
 * back); an expired key is taken again; the bounded clean-up deletes expired keys only.
 */
class DeduplicationKeysOnServerTest {
    private static final QueueName Q = QueueName.of("keys");

    private interface Body {
        void run(DeduplicationKeys keys, Connection a, Connection b, SkipLockedStatements sql) throws Exception;
    }

    private static void on(SkipLockedDialect d, long windowMs, Body body) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = "dk" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig config = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        try (SqlQueue queue = SqlQueue.open(config)) {
            try (Connection a = DriverManager.getConnection(s.url(), s.user(), s.password());
                 Connection b = DriverManager.getConnection(s.url(), s.user(), s.password())) {
                a.setAutoCommit(false);
                b.setAutoCommit(false);
                a.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                b.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                SkipLockedStatements sql = new SkipLockedStatements(d, prefix);
                body.run(new DeduplicationKeys(d, sql, windowMs), a, b, sql);
            } finally {
                queue.dropSchema();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void theSecondTransactionWaitsThenSeesTheFirstsOutcome(SkipLockedDialect d) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            on(d, 60_000, (keys, a, b, sql) -> {
                assertEquals(OptionalLong.empty(), keys.take(a, Q, "k1"), "a free key is taken");
                keys.bind(a, Q, "k1", 42);
                Future<OptionalLong> second = pool.submit(() -> keys.take(b, Q, "k1"));
                Thread.sleep(300);
                assertFalse(second.isDone(), d + ": the second transaction waits for the first's uncommitted key");
                a.commit();
                assertEquals(OptionalLong.of(42), second.get(20, TimeUnit.SECONDS), d + ": then sees the committed holder");
                b.commit();

                assertEquals(OptionalLong.empty(), keys.take(a, Q, "k2"));
                keys.bind(a, Q, "k2", 43);
                Future<OptionalLong> again = pool.submit(() -> keys.take(b, Q, "k2"));
                Thread.sleep(300);
                a.rollback();
                assertEquals(OptionalLong.empty(), again.get(20, TimeUnit.SECONDS), d + ": the first rolled back, the key is free");
                keys.bind(b, Q, "k2", 44);
                b.commit();
                assertEquals(OptionalLong.of(44), keys.take(a, Q, "k2"));
                a.commit();
            });
        } finally {
            pool.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void anExpiredKeyIsTakenAgainAndTheCleanUpDeletesOnlyExpiredKeys(SkipLockedDialect d) throws Exception {
        on(d, 300, (keys, a, b, sql) -> {
            assertEquals(OptionalLong.empty(), keys.take(a, Q, "old"));
            keys.bind(a, Q, "old", 1);
            assertEquals(OptionalLong.empty(), keys.take(a, Q, "old2"));
            keys.bind(a, Q, "old2", 2);
            a.commit();
            assertEquals(OptionalLong.of(1), keys.take(a, Q, "old"), "within the window");
            a.commit();
            Thread.sleep(600);
            assertEquals(OptionalLong.empty(), keys.take(a, Q, "old"), d + ": after the window the key is free");
            keys.bind(a, Q, "old", 3);
            a.commit();
            assertEquals(1, keys.deleteExpired(b), d + ": only old2 had expired");
            b.commit();
            assertEquals(OptionalLong.of(3), keys.take(a, Q, "old"));
            assertEquals(OptionalLong.empty(), keys.take(a, Q, "old2"), "the deleted key is free");
            a.rollback();
        });
    }

}
