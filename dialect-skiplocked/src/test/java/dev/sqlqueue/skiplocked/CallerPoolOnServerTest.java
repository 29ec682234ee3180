package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 31 point 4: transactional workers on a pool the caller brought (a HikariCP pool of 10), 10 workers
 * whose handlers each borrow a connection of the same pool. Each worker holds a connection for its batch, so
 * the handlers waited for connections the claims held: 44 pool time-outs on PostgreSQL and 28 on MariaDB, and
 * {@code withHandlerConnections(1)} changed nothing, because the library did not know the caller's pool size.
 * Now the backend reads the size of a HikariCP pool, and {@code WorkerPool.start} refuses the pool that is too
 * small (rule {@code workers.pool-size}) with the numbers; a pool of the size it names runs without a time-out.
 */
class CallerPoolOnServerTest {
    static Stream<SkipLockedTarget> backends() {
        return Stream.of((SkipLockedTarget) H2ConformanceTest.TARGET, (SkipLockedTarget) PostgresConformanceTest.TARGET,
                (SkipLockedTarget) MariaDbConformanceTest.TARGET);
    }

    /**
     * A caller's pool; {@code timeoutMs} is HikariCP's connection timeout: short for the pool that is too small
     * (its run only happens when the start was not refused, to count time-outs), long enough for the pool of the
     * size named that no machine's load makes a borrow time out.
     */
    static HikariDataSource callerPool(SkipLockedTarget target, int size, long timeoutMs) {
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(target.url);
        hc.setUsername(target.user);
        hc.setPassword(target.password);
        hc.setMaximumPoolSize(size);
        hc.setAutoCommit(false);
        hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        hc.setConnectionTimeout(timeoutMs);
        return new HikariDataSource(hc);
    }

    /** Runs 10 transactional workers over 100 messages whose handlers borrow from {@code ds}; @return the pool time-outs */
    static int run(SqlQueue queue, QueueName q, HikariDataSource ds, WorkerOptions options) throws Exception {
        AtomicInteger timeouts = new AtomicInteger();
        try (WorkerPool pool = WorkerPool.start(queue, q, d -> {
            try (Connection c = ds.getConnection()) {
                c.createStatement().execute("SELECT 1");
                c.rollback();
            } catch (SQLTransientConnectionException e) {
                timeouts.incrementAndGet();
                return Outcome.retry(e.getMessage());
            }
            Thread.sleep(5);
            return Outcome.ack();
        }, options, null)) {
            assertTrue(pool.awaitTermination(Duration.ofSeconds(300)), "the pool drains the queue");
        }
        return timeouts.get();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aCallersPoolTooSmallForTransactionalWorkersIsRefusedAtStart(SkipLockedTarget target) throws Exception {
        String prefix = SchemaVersionOnServerTest.newPrefix("cp");
        QueueName q = QueueName.of("jobs");
        WorkerOptions options = WorkerOptions.defaults().withMode(ClaimMode.TRANSACTIONAL).withThreads(10)
                .withHandlerConnections(1).withBatchSize(1).withPollWait(Duration.ofMillis(200)).withStopWhenEmpty(true);
        try (HikariDataSource ds = callerPool(target, 10, 250);
             SqlQueue queue = SqlQueue.open(QueueConfig.builder().dataSource(ds).backend(target.name()).tablePrefix(prefix).build())) {
            List<Message> messages = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                messages.add(Message.ofText("m" + i));
            }
            queue.enqueueAll(q, messages);
            InvalidInputException refused;
            try {
                refused = org.junit.jupiter.api.Assertions.assertThrows(InvalidInputException.class, () -> WorkerPool.start(queue, q,
                        d -> Outcome.ack(), options.withStopWhenEmpty(true), null).close());
            } catch (AssertionError notRefused) {
                throw new AssertionError("not refused at start; the run then met pool time-outs: " + run(queue, q, ds, options), notRefused);
            }
            assertEquals("workers.pool-size", refused.rule(), refused.getMessage());
            // PostgreSQL: the backend's LISTEN connection holds one of the caller's 10
            int left = target.dialect == SkipLockedDialect.POSTGRES ? 9 : 10;
            assertTrue(refused.getMessage().contains("leaves the workers " + left + " connections"), refused.getMessage());
            assertTrue(refused.getMessage().contains("need 21"), refused.getMessage());
            assertTrue(refused.getMessage().contains("raise its maximumPoolSize by at least " + (21 - left)), refused.getMessage());
            assertEquals(100, queue.stats(q).depth(), "nothing was claimed");
        } finally {
            target.cleanUp(prefix);
        }
        int sized = WorkerPool.connectionsNeeded(options) + (target.dialect == SkipLockedDialect.POSTGRES ? 1 : 0);
        try (HikariDataSource ds = callerPool(target, sized, 30_000);
             SqlQueue queue = SqlQueue.open(QueueConfig.builder().dataSource(ds).backend(target.name()).tablePrefix(prefix).build())) {
            List<Message> messages = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                messages.add(Message.ofText("m" + i));
            }
            queue.enqueueAll(q, messages);
            assertEquals(0, run(queue, q, ds, options), "pool time-outs with the size the refusal named");
            assertEquals(0, queue.stats(q).depth());
        } finally {
            target.cleanUp(prefix);
        }
    }
}
