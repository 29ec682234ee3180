package dev.sqlqueue.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Gauges read the last sample: scrapes never query the database. */
class SamplingTest {
    private static final QueueName JOBS = QueueName.of("jobs");

    @Test
    void scrapesReadTheSampleAndRunNoQuery() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // one sample at start, the next in an hour
        SqlQueueMetrics metrics = SqlQueueMetrics.of(registry).withStatsInterval(Duration.ofHours(1)).withQueues(List.of(JOBS));
        var config = Databases.config("h2");
        try (SqlQueue setup = SqlQueue.open(config)) {
            setup.createQueue(JOBS);
            setup.enqueue(JOBS, Message.ofText("one"));
            setup.enqueue(JOBS, Message.ofText("two"));
        }
        try (SqlQueue q = metrics.open(config.toBuilder().migrate(false).build())) {
            CountersOnDatabasesTest.await(() -> registry.find(SqlQueueMeters.STATS_SAMPLE).timers().stream().mapToLong(t -> t.count()).sum() == 1);
            Gauge ready = registry.get(SqlQueueMeters.READY).tag("queue", "jobs").gauge();
            for (int i = 0; i < 1000; i++) {
                assertEquals(2, ready.value());
            }
            q.enqueue(JOBS, Message.ofText("three"));
            assertEquals(2, ready.value(), "the gauge shows the sample, not a fresh query");
            assertEquals(1, registry.get(SqlQueueMeters.STATS_SAMPLE).timer().count(), "1000 scrapes, one sample");
            q.dropSchema();
        }
    }

    @Test
    void intervalOutsideItsRangeIsRefused() {
        SqlQueueMetrics m = SqlQueueMetrics.of(new SimpleMeterRegistry());
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> m.withStatsInterval(Duration.ofMillis(1)));
        assertEquals("metrics.stats-interval", e.rule());
    }
}
