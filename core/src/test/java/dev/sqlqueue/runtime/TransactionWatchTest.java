package dev.sqlqueue.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.TransientBackendException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The rate limit of the WARN for transactions held open elsewhere: one per session (or new transaction of it) and
 * then every 10 minutes, not one per check. The database side is {@code TransactionWarnOnServerTest}
 * (dialect-skiplocked); here the client is a stand-in that returns what a check would read.
 */
class TransactionWatchTest {
    private static OpenTransaction tx(String session, long ageMillis) {
        return new OpenTransaction(session, "report", "10.0.0.7", "psql", "idle in transaction", ageMillis,
                "SELECT * FROM orders", 1234);
    }

    private static QueueClient client(Supplier<List<OpenTransaction>> reads) {
        Capabilities caps = new Capabilities("postgresql", Set.of(ClaimMode.LEASE), Set.of(Capability.OLDEST_TRANSACTIONS),
                Ordering.values()[0], 1, 1);
        return (QueueClient) Proxy.newProxyInstance(QueueClient.class.getClassLoader(), new Class<?>[] {QueueClient.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "oldestTransactions" -> reads.get();
                    case "capabilities" -> caps;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static int warnings(String log) {
        return (int) log.lines().filter(l -> l.contains("WARN dev.sqlqueue.runtime.TransactionWatch")).count();
    }

    @Test
    void namesASessionOnceAndAgainOnlyForANewTransactionOrAnotherSession() {
        List<List<OpenTransaction>> script = List.of(
                List.of(tx("4711", 100_000), tx("4712", 70_000)), // first time past 60 s: WARN
                List.of(tx("4711", 130_000)),                     // same transaction, 30 s later: quiet
                List.of(tx("4711", 5_000)),                       // below the warn age: quiet
                List.of(tx("4711", 61_000)),                      // a new transaction of the same session: WARN
                List.of(tx("4713", 90_000), tx("4711", 80_000)), // another session is the oldest: WARN
                List.of(),                                        // none: quiet
                List.of(tx("4713", 150_000)));                    // back after none: WARN
        int[] next = {0};
        TransactionWatch w = new TransactionWatch(client(() -> script.get(next[0]++)), QueueName.of("jobs"), Duration.ofSeconds(60));
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < script.size(); i++) {
                w.check();
            }
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertEquals(4, warnings(log), log);
        List<String> lines = log.lines().filter(l -> l.contains("WARN dev.sqlqueue.runtime.TransactionWatch")).toList();
        assertTrue(lines.get(0).contains("queue 'jobs': session 4711 (user report, application psql, from 10.0.0.7,"
                + " idle in transaction) has had a transaction open for 100 s: SELECT * FROM orders"), lines.get(0));
        assertTrue(lines.get(0).contains("also past 60000 ms: session 4712 (70 s)"), lines.get(0));
        assertTrue(lines.get(0).contains("docs/backends/postgresql.md"), lines.get(0));
        assertTrue(lines.get(1).contains("session 4711 ") && lines.get(1).contains("for 61 s"), lines.get(1));
        assertTrue(lines.get(2).contains("session 4713 ") && lines.get(2).contains("session 4711 (80 s)"), lines.get(2));
        assertTrue(lines.get(3).contains("session 4713 ") && lines.get(3).contains("for 150 s"), lines.get(3));
    }

    @Test
    void aFailingReadIsNoWarningAndNoException() {
        TransactionWatch w = new TransactionWatch(client(() -> {
            throw new TransientBackendException("permission denied for pg_stat_activity", null);
        }), QueueName.of("jobs"), Duration.ofSeconds(60));
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            w.check();
            w.check();
        } finally {
            System.setErr(err);
        }
        assertEquals(0, warnings(captured.toString(StandardCharsets.UTF_8)));
    }

    @Test
    void checksEveryHalfTheWarnAgeWithin1To30Seconds() {
        assertEquals(30_000, TransactionWatch.interval(Duration.ofSeconds(60)));
        assertEquals(30_000, TransactionWatch.interval(Duration.ofHours(1)));
        assertEquals(5_000, TransactionWatch.interval(Duration.ofSeconds(10)));
        assertEquals(1_000, TransactionWatch.interval(Duration.ofMillis(1)));
    }
}
