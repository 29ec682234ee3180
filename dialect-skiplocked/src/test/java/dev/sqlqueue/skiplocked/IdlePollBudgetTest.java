package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The idle statement budget {@link QueueConfig#idlePollMax()} documents: a consumer thread that keeps calling
 * {@code consume} with a wait, as {@code WorkerPool} does, on a queue with nothing to take, claims once per
 * {@code idlePollMax}. Counted on H2 (the waiting is in core, the same for every polling backend) through the pool
 * ({@link MariaDbClaimStatementsOnServerTest.Counts}). Issue 32 point 2's latency bench found two claims per interval:
 * one when a call's wait ran out, then one at once at the start of the next call. A slower machine makes fewer
 * claims, never more, so the bound does not depend on its speed.
 */
class IdlePollBudgetTest {
    @TempDir
    Path dir;

    @Test
    void anIdleConsumerClaimsOncePerIdlePoll() throws Exception {
        MariaDbClaimStatementsOnServerTest.Counts counts = new MariaDbClaimStatementsOnServerTest.Counts();
        Duration poll = Duration.ofMillis(250);
        QueueConfig config = QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("db")).idlePollMax(poll)
                .dataSourceWrapper(counts::wrap).build();
        QueueName q = QueueName.of("idle");
        try (SqlQueue queue = SqlQueue.open(config)) {
            queue.createQueue(q);
            counts.reset();
            assertEquals(0, queue.consume(q, ConsumeRequest.of(1)).size());
            int perClaim = counts.statements.get();
            assertTrue(perClaim >= 1, "an empty claim runs a statement");
            // the thread's first wait backs off from 5 ms up to the idle poll; then it is idle
            queue.consume(q, ConsumeRequest.of(1).withWait(Duration.ofSeconds(1)));
            counts.reset();
            long start = System.nanoTime();
            while (System.nanoTime() - start < Duration.ofSeconds(3).toNanos()) {
                assertEquals(0, queue.consume(q, ConsumeRequest.of(1).withWait(poll)).size());
            }
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            int claims = counts.statements.get() / perClaim;
            long budget = elapsedMs / poll.toMillis() + 1;
            assertTrue(claims <= budget + budget / 4,
                    claims + " claims in " + elapsedMs + " ms of idle polling; the budget is one per " + poll.toMillis()
                            + " ms: " + budget);
        }
    }
}
