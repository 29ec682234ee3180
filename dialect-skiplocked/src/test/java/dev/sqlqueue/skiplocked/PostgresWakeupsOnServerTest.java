package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.faults.SilentServerProxy;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL's LISTEN connection broken without a reset (a partition that dropped its NAT entry; here a
 * {@link SilentServerProxy} that severs it): waiting for notifications ends at its own time-out either way,
 * so the thread took a dead connection for a quiet channel and wake-ups stopped for good. It now checks the
 * connection after a quiet spell and LISTENs again on a new one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PostgresWakeupsOnServerTest {
    @Test
    void wakeUpsComeBackAfterTheListenConnectionBrokeSilently() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "pw" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig direct = QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).build();
        QueueName q = QueueName.of("woken");
        try (SqlQueue store = SqlQueue.open(direct); SilentServerProxy proxy = SilentServerProxy.to("127.0.0.1", 5432)) {
            store.createQueue(q);
            QueueConfig viaProxy = direct.toBuilder().url(s.url().replace(":5432/", ":" + proxy.port() + "/")).build();
            BlockingQueue<QueueName> heard = new LinkedBlockingQueue<>();
            try (PostgresWakeups wakeups = new PostgresWakeups(viaProxy, null,
                    new SkipLockedStatements(SkipLockedDialect.POSTGRES, prefix), heard::add, 1000)) {
                wakeups.start();
                assertNotNull(heardWithin(store, q, heard, 20), "the LISTEN connection hears an enqueue");
                proxy.severExisting();
                heard.clear();
                // the check runs after 1 s without a notification and waits 10 s for its answer; 60 s is far beyond
                assertNotNull(heardWithin(store, q, heard, 60),
                        "after its connection broke silently, the LISTEN thread hears enqueues again");
                store.purge(q);
            }
            store.dropQueue(q);
        }
    }

    /** Enqueues once a second until a notification for {@code q} arrives; null after {@code seconds}. */
    private static QueueName heardWithin(SqlQueue store, QueueName q, BlockingQueue<QueueName> heard, int seconds)
            throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < until) {
            store.enqueue(q, Message.of(new byte[] {1}));
            QueueName got = heard.poll(1, TimeUnit.SECONDS);
            if (got != null) {
                assertTrue(got.equals(q), "heard " + got);
                return got;
            }
        }
        return null;
    }
}
