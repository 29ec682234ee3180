package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.micrometer.SqlQueueMeters;
import dev.sqlqueue.runtime.Outcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The auto-configuration in a real Spring context on H2 and PostgreSQL: the queue runs on the
 * application's DataSource, an annotated method and a {@link QueueWorker} bean consume with the
 * context's lifecycle, the template joins Spring transactions, metrics, health and endpoint are bound.
 */
class StarterOnDatabasesTest {

    static final List<String> annotated = new CopyOnWriteArrayList<>();
    static final List<String> beanWorker = new CopyOnWriteArrayList<>();

    @Configuration
    static class App {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Handlers handlers() {
            return new Handlers();
        }

        @Bean
        QueueWorker auditWorker() {
            return QueueWorker.of("audit", d -> {
                beanWorker.add(d.text());
                return Outcome.ack();
            }).withOptions(o -> o.withThreads(1).withPollWait(Duration.ofMillis(50)));
        }
    }

    static class Handlers {
        @SqlQueueHandler(queue = "mail", threads = "2")
        public void send(Delivery d) {
            annotated.add(d.text());
        }

        @SqlQueueHandler(queue = "poison", threads = "1")
        public Outcome reject(String text) {
            return Outcome.deadLetter("cannot handle " + text);
        }
    }

    private ApplicationContextRunner runner(String db) {
        String prefix = "s17_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        String[] ds = switch (db) {
            case "h2" -> new String[] {"spring.datasource.url=jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1"};
            case "postgresql" -> new String[] {"spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                    "spring.datasource.username=postgres", "spring.datasource.password="};
            default -> throw new IllegalArgumentException(db);
        };
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        SqlQueueMetricsAutoConfiguration.class, SqlQueueAutoConfiguration.class,
                        HealthContributorAutoConfiguration.class, EndpointAutoConfiguration.class,
                        SqlQueueActuatorAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues(ds)
                .withPropertyValues("sqlqueue.table-prefix=" + prefix, "sqlqueue.queues=reports",
                        "sqlqueue.worker.poll-wait=50ms", "sqlqueue.metrics.stats-interval=50ms",
                        "sqlqueue.health.oldest-ready-max-age=1h",
                        "management.endpoints.jmx.exposure.include=sqlqueue", "spring.jmx.enabled=true");
    }

    /**
     * A health age that is not positive (every queue with a ready message would be DOWN, or none ever) and a
     * dead-letter limit outside 1..100000 (the endpoint then failed at its first call) are refused at start,
     * naming the property and the rule, like the other properties; both were accepted.
     */
    @org.junit.jupiter.api.Test
    void aNonPositiveHealthAgeOrAnEndpointLimitOutOfRangeIsRefusedAtStart() {
        runner("h2").withPropertyValues("sqlqueue.health.oldest-ready-max-age=-1s").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining("health.oldest-ready-max-age");
        });
        runner("h2").withPropertyValues("sqlqueue.endpoint.dead-letter-limit=0").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining("endpoint.dead-letter-limit");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void autoConfiguredQueueRunsHandlersJoinsTransactionsAndReports(String db) {
        annotated.clear();
        beanWorker.clear();
        runner(db).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            SqlQueue q = ctx.getBean(SqlQueue.class);
            try {
                assertThat(q.capabilities().backend()).isEqualTo(db);
                assertThat(q.queues()).extracting(QueueName::value).contains("reports", "mail", "poison", "audit");
                SqlQueueTemplate template = ctx.getBean(SqlQueueTemplate.class);
                TransactionTemplate tx = new TransactionTemplate(ctx.getBean(org.springframework.transaction.PlatformTransactionManager.class));

                tx.executeWithoutResult(s -> {
                    assertThat(template.joinsTransaction()).isTrue();
                    template.enqueue("mail", "committed");
                });
                tx.executeWithoutResult(s -> {
                    template.enqueue("mail", "rolled back");
                    s.setRollbackOnly();
                });
                assertThat(template.joinsTransaction()).isFalse();
                template.enqueue("audit", "outside a transaction");
                template.enqueue("poison", "bad");

                await(() -> annotated.size() == 1 && beanWorker.size() == 1 && q.stats(QueueName.of("poison")).dead() == 1);
                assertThat(annotated).containsExactly("committed");
                assertThat(beanWorker).containsExactly("outside a transaction");
                // the handler has run; its ack is written with the worker's next claim, so it may commit a little later
                await(() -> q.stats(QueueName.of("mail")).depth() == 0);

                MeterRegistry registry = ctx.getBean(MeterRegistry.class);
                await(() -> registry.find(SqlQueueMeters.ACKED).tag("queue", "mail").counter() != null
                        && registry.find(SqlQueueMeters.ACKED).tag("queue", "mail").counter().count() == 1);
                assertThat(registry.get(SqlQueueMeters.ENQUEUED).tag("queue", "mail").counter().count())
                        .as("counted at the Spring transaction's commit: the rolled-back enqueue is not (issue 33)").isEqualTo(1);
                assertThat(registry.get(SqlQueueMeters.DEAD_LETTERED).tag("queue", "poison").counter().count()).isEqualTo(1);
                assertThat(registry.get(SqlQueueMeters.HANDLER_DURATION).tag("queue", "mail").tag("outcome", "ack").timer().count()).isEqualTo(1);

                Health health = ctx.getBean("sqlqueueHealthIndicator", SqlQueueHealthIndicator.class).health();
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("backend", db);

                SqlQueueEndpoint endpoint = ctx.getBean(SqlQueueEndpoint.class);
                @SuppressWarnings("unchecked")
                Map<String, Object> queues = (Map<String, Object>) endpoint.queues().get("queues");
                assertThat(queues).containsKeys("mail", "poison", "audit", "reports");
                List<?> dead = (List<?>) endpoint.queue("poison").get("deadLetters");
                assertThat(dead).hasSize(1);
                Map<?, ?> first = (Map<?, ?>) dead.get(0);
                assertThat(first.get("reason")).isEqualTo("cannot handle bad");
                assertThat(first.get("payloadText")).isEqualTo("bad");

                // a ready message older than the threshold makes the health DOWN
                q.enqueue(QueueName.of("reports"), Message.ofText("nobody consumes reports"));
                Health stalled = new SqlQueueHealthIndicator(q, Duration.ZERO).health();
                await(() -> new SqlQueueHealthIndicator(q, Duration.ZERO).health().getStatus().equals(Status.DOWN));
                assertThat(new SqlQueueHealthIndicator(q, Duration.ZERO).health().getDetails()).containsEntry("stalled", List.of("reports"));
                assertThat(stalled.getDetails()).containsKey("queues");

                SqlQueueWorkers workers = ctx.getBean(SqlQueueWorkers.class);
                assertThat(workers.isRunning()).isTrue();
                assertThat(workers.pools()).isEqualTo(3);
                workers.stop();
                assertThat(workers.isRunning()).isFalse();
                assertThat(workers.pools()).isZero();
            } finally {
                ctx.getBean(SqlQueueWorkers.class).stop();
                q.dropSchema();
            }
        });
    }

    static void await(BooleanSupplier done) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("state not reached within 20 s");
            }
            Thread.sleep(20);
        }
    }
}
