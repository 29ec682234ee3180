package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, point 1: with a REPEATABLE READ snapshot held by another session, workers claimed slower and slower and
 * nothing was logged. A {@link WorkerPool} now logs a WARN naming that session (id, user) once its transaction is
 * older than {@link WorkerOptions#transactionWarnAge()} (1 ms here, so the verdict does not wait on the clock).
 */
class TransactionWarnOnServerTest {
    @ParameterizedTest
    @EnumSource(value = SkipLockedDialect.class, names = {"POSTGRES", "MARIADB"})
    void aWorkerPoolNamesTheSessionHoldingASnapshot(SkipLockedDialect d) throws Exception {
        String prefix = OldestTransactionsOnServerTest.prefix();
        QueueName q = QueueName.of("warned");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (SqlQueue queue = SqlQueue.open(OldestTransactionsOnServerTest.config(d, prefix))) {
            try {
                queue.createQueue(q);
                try (Connection holder = OldestTransactionsOnServerTest.holdSnapshot(d, prefix)) {
                    String id = OldestTransactionsOnServerTest.sessionId(d, holder);
                    String named = "session " + id + " (";
                    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
                    try (WorkerPool pool = WorkerPool.start(queue, q, delivery -> Outcome.ack(),
                            WorkerOptions.defaults().withThreads(1).withTransactionWarnAge(Duration.ofMillis(1)), null)) {
                        long deadline = System.nanoTime() + 60_000_000_000L;
                        while (!captured.toString(StandardCharsets.UTF_8).contains(named) && System.nanoTime() < deadline) {
                            Thread.sleep(100);
                        }
                    } finally {
                        System.setErr(err);
                    }
                    holder.rollback();
                    String logged = captured.toString(StandardCharsets.UTF_8);
                    String line = logged.lines().filter(l -> l.contains(named)).findFirst().orElse("");
                    assertTrue(line.contains("WARN") && line.contains("queue 'warned'"), "a WARN names " + named + ": " + logged);
                    String warn = line.substring(line.indexOf("WARN"));
                    // the oldest session is described in full; others past the warn age by id and age only
                    if (warn.indexOf(named) < warn.indexOf("; also past")  || !warn.contains("; also past")) {
                        assertTrue(warn.contains(named + "user " + StatementsOnServerTest.server(d).user()), warn);
                    }
                    assertTrue(warn.contains("docs/backends/" + queue.capabilities().backend() + ".md"), warn);
                }
            } finally {
                queue.dropSchema();
            }
        }
    }
}
