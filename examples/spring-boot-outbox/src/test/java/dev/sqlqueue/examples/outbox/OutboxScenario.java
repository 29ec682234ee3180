package dev.sqlqueue.examples.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.spring.SqlQueueWorkers;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;

/**
 * The example's scenario, run by a subclass per database in a real Spring Boot context: one order
 * commits, one rolls back; only the committed order's event is processed, and the rolled-back one
 * leaves nothing behind, neither the order nor its event.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class OutboxScenario {
    @Autowired
    OrderService orders;
    @Autowired
    Shipping shipping;
    @Autowired
    SqlQueue queue;
    @Autowired
    SqlQueueWorkers workers;
    @Autowired
    HealthEndpoint health;
    @Autowired
    PrometheusMeterRegistry prometheus;

    private final String committed = "order-" + UUID.randomUUID();
    private final String rolledBack = "order-" + UUID.randomUUID();

    @Test
    void onlyTheCommittedOrderIsShipped(CapturedOutput output) throws InterruptedException {
        orders.placeOrder(committed, "a teapot");
        assertThatThrownBy(() -> orders.placeOrder(rolledBack, ""))
                .isInstanceOf(IllegalArgumentException.class);

        QueueName events = QueueName.of(OrderService.EVENTS);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!shipping.shipped().contains(committed) || queue.stats(events).depth() > 0) {
            assertThat(System.nanoTime()).as("the committed order is shipped within 20 s").isLessThan(until);
            Thread.sleep(20);
        }
        assertThat(shipping.shipped()).containsExactly(committed);
        assertThat(orders.exists(committed)).isTrue();
        assertThat(orders.exists(rolledBack)).isFalse();
        assertThat(queue.stats(events).depth()).as("no event of the rolled-back order is waiting").isZero();
        assertThat(queue.stats(events).dead()).isZero();
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        // the queue's gauges read a sample taken at most sqlqueue.metrics.stats-interval (1 s) ago
        while (prometheus.find("sqlqueue.queue.ready").tag("queue", OrderService.EVENTS).gauge() == null
                || prometheus.get("sqlqueue.queue.ready").tag("queue", OrderService.EVENTS).gauge().value() != 0) {
            assertThat(System.nanoTime()).as("the ready gauge reads 0 within 20 s").isLessThan(until);
            Thread.sleep(20);
        }
        // a counter moves when the call returns, after its commit: the worker pool writes a batch's lease-mode acks
        // with its next claim (ackAllAndConsume), so the row can be gone before the acked counter reads 1
        while (prometheus.find("sqlqueue.messages.acked").tag("queue", OrderService.EVENTS).counter() == null
                || prometheus.get("sqlqueue.messages.acked").tag("queue", OrderService.EVENTS).counter().count() < 1) {
            assertThat(System.nanoTime()).as("the acked counter reads 1 within 20 s").isLessThan(until);
            Thread.sleep(20);
        }
        assertThat(prometheus.get("sqlqueue.messages.acked").tag("queue", OrderService.EVENTS).counter().count()).isEqualTo(1);
        assertThat(prometheus.get("sqlqueue.messages.enqueued").tag("queue", OrderService.EVENTS).counter().count())
                .as("what committed: the rolled-back order's event is not counted").isEqualTo(1);
        // the context started inside the capture: the queue's start-up left no jOOQ logo, tip or Flyway info
        assertThat(output.getAll()).contains("Started Outbox")
                .doesNotContain("Thank you for using jOOQ").doesNotContain("jOOQ tip of the day")
                .doesNotContain("o.f.core.internal.command.DbMigrate");
        System.out.println("---- Prometheus scrape after the outbox run on " + queue.capabilities().backend() + " ----\n"
                + prometheus.scrape().lines().filter(l -> l.contains("sqlqueue")).reduce((a, b) -> a + "\n" + b).orElse(""));
    }

    @AfterEach
    void cleanUp() {
        orders.delete(committed);
    }

    /** Stop the workers and remove the queue tables of this run's prefix. */
    void dropQueueSchema() {
        workers.stop();
        queue.dropSchema();
    }
}
