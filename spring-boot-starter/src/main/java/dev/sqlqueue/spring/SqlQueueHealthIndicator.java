package dev.sqlqueue.spring;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * UP when the database answers and no queue is stalled; DOWN when the database cannot be reached or the
 * oldest ready message of some queue is older than {@code sqlqueue.health.oldest-ready-max-age} (no
 * consumer takes it). Details: backend, server version, and per queue ready, in flight, delayed, dead
 * letters and the age in ms of the oldest ready message. One {@code stats()} per queue per check.
 */
public class SqlQueueHealthIndicator extends AbstractHealthIndicator {
    private final SqlQueue queue;
    private final Duration maxAge;

    public SqlQueueHealthIndicator(SqlQueue queue, Duration oldestReadyMaxAge) {
        super("sqlqueue health check failed");
        this.queue = queue;
        this.maxAge = oldestReadyMaxAge;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<QueueName> names = queue.queues();
        Map<String, Object> queues = new LinkedHashMap<>();
        List<String> stalled = new java.util.ArrayList<>();
        for (QueueName n : names) {
            QueueStats s = queue.stats(n);
            queues.put(n.value(), SqlQueueEndpoint.stats(s));
            if (s.oldestReadyAgeMillis() > maxAge.toMillis()) {
                stalled.add(n.value());
            }
        }
        builder.withDetail("backend", queue.capabilities().backend())
                .withDetail("server", queue.serverVersion())
                .withDetail("queues", queues);
        if (stalled.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("stalled", stalled)
                    .withDetail("oldestReadyMaxAgeMillis", maxAge.toMillis());
        }
    }
}
