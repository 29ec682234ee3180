package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static dev.sqlqueue.teradata.Fixture.T0;
import static dev.sqlqueue.teradata.Fixture.consume;
import static dev.sqlqueue.teradata.Fixture.consumed;
import static dev.sqlqueue.teradata.Fixture.peek;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The core's worker runtime driving this backend in transactional mode, on the recording double: a
 * failed handler becomes a re-INSERT with the attempt raised, an exhausted one a dead-letter INSERT, and
 * both commit with the consumes of their claim.
 */
class WorkerRuntimeSequenceTest {
    @Test
    void retryAndDeadLetterCommitWithTheClaim() throws Exception {
        Fixture f = new Fixture();
        f.queueHolds(consumed(1, Map.of(), "fails"), consumed(2, null, 2, "", "poison".getBytes()),
                consumed(3, Map.of(), "ok"));
        WorkerOptions opts = WorkerOptions.defaults().withThreads(1).withBatchSize(1).withMode(ClaimMode.TRANSACTIONAL)
                .withPollWait(Duration.ofMillis(20)).withRetry(RetryPolicy.defaults().withMaxAttempts(3));
        WorkerPool pool = WorkerPool.start(f.queue, JOBS,
                d -> d.text().equals("ok") ? Outcome.ack() : Outcome.retry("bad " + d.id()), opts, null);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (f.jdbc.calls().stream().filter("commit"::equals).count() < 2 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        pool.close();
        List<String> calls = f.jdbc.calls();
        // claims of one message (how many a claim takes is the pool's policy, ClaimSizer, and depends on the
        // handlers' times): each claim's re-INSERT or dead-letter INSERT commits with its consume
        assertEquals(List.of(peek(), consume(),
                "U " + TeradataStatements.reinsert(N) + " [1, 1, " + T0 + ", bad 1, , bytes[5]]",
                "commit",
                peek(), consume(),
                "U " + TeradataStatements.insertDeadLetter(N) + " [2, 3, attempt 3 of 3 failed: bad 2, " + T0 + ", , bytes[6]]",
                "commit"), calls.subList(0, 8));
    }
}
