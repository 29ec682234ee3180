package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.RetryPolicy;
import dev.sqlqueue.runtime.WorkerOptions;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 33, part 2: {@link SqlQueueHandler} resolves placeholders and SpEL for its queue, threads, batch
 * size and attempts, as {@code @RabbitListener} and {@code @KafkaListener} do (the queue was taken
 * literally, and {@code threads} and {@code batchSize} could not come from properties); back-off and
 * attempts come from {@code sqlqueue.worker.backoff.*} and, per queue, {@code sqlqueue.handlers.<queue>.*}
 * (retry per handler needed a QueueWorker bean), with generated configuration metadata.
 */
class HandlerSettingsTest {
    static final List<String> seen = new CopyOnWriteArrayList<>();

    static class Placeholders {
        @SqlQueueHandler(queue = "${app.queue:jobs}", threads = "${app.threads}", batchSize = "#{2 * ${app.threads}}",
                maxAttempts = "#{'${app.attempts:7}'}")
        public void handle(String text) {
            seen.add(text);
        }
    }

    static class Flaky {
        @SqlQueueHandler(queue = "${app.flaky-queue}")
        public Outcome handle(String text) {
            seen.add(text);
            throw new IllegalStateException("fails every time");
        }
    }

    @Configuration
    static class PlaceholderApp {
        @Bean
        static SqlQueueHandlerRegistrar registrar() {
            return new SqlQueueHandlerRegistrar();
        }

        @Bean
        Placeholders placeholders() {
            return new Placeholders();
        }
    }

    @Configuration
    static class FlakyApp {
        @Bean
        Flaky flaky() {
            return new Flaky();
        }
    }

    @Test
    void attributesResolvePlaceholdersAndSpel() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
                .withUserConfiguration(PlaceholderApp.class)
                .withPropertyValues("app.queue=orders-in", "app.threads=3")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    List<QueueWorker> workers = ctx.getBean(SqlQueueHandlerRegistrar.class).workers();
                    assertThat(workers).hasSize(1);
                    assertThat(workers.get(0).queue()).isEqualTo(QueueName.of("orders-in"));
                    WorkerOptions o = workers.get(0).options().apply(WorkerOptions.defaults());
                    assertThat(o.threads()).isEqualTo(3);
                    assertThat(o.batchSize()).isEqualTo(6);
                    assertThat(o.retry().maxAttempts()).isEqualTo(7);
                });
    }

    @Test
    void aValueOutOfRangeFailsTheStartNamingMethodAttributeAndValue() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
                .withUserConfiguration(PlaceholderApp.class)
                .withPropertyValues("app.threads=many")
                .run(ctx -> {
                    assertThat(ctx).hasFailed();
                    assertThat(ctx.getStartupFailure()).hasStackTraceContaining("placeholders.handle")
                            .hasStackTraceContaining("threads must be a number 1..1024, was 'many' (from '${app.threads}')");
                });
    }

    @Test
    void workerBackoffPropertiesBuildTheRetryPolicyAndAQueueOverridesThem() {
        SqlQueueProperties p = new SqlQueueProperties();
        p.getWorker().setMaxAttempts(4);
        p.getWorker().getBackoff().setInitial(Duration.ofMillis(250));
        p.getWorker().getBackoff().setMultiplier(3.0);
        p.getWorker().getBackoff().setMax(Duration.ofSeconds(20));
        p.getWorker().getBackoff().setJitter(0.0);
        WorkerOptions defaults = SqlQueueWorkers.options(p.getWorker());
        assertThat(defaults.retry()).isEqualTo(new RetryPolicy(4, Duration.ofMillis(250), Duration.ofSeconds(20), 3.0, 0.0));
        assertThat(defaults.retry().backoff(3)).isEqualTo(Duration.ofMillis(2250));

        SqlQueueProperties.Handler h = new SqlQueueProperties.Handler();
        h.setMaxAttempts(9);
        h.setThreads(2);
        h.getBackoff().setMax(Duration.ofMinutes(1));
        WorkerOptions mail = SqlQueueWorkers.options(defaults, h);
        assertThat(mail.threads()).isEqualTo(2);
        assertThat(mail.retry()).isEqualTo(new RetryPolicy(9, Duration.ofMillis(250), Duration.ofMinutes(1), 3.0, 0.0));
    }

    private ApplicationContextRunner h2() {
        String name = "hs33_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, SqlQueueAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1",
                        "sqlqueue.worker.poll-wait=50ms");
    }

    @Test
    void aQueuesAttemptsAndBackoffFromPropertiesDeadLetterAHandlerOnADatabase() throws Exception {
        seen.clear();
        h2().withUserConfiguration(FlakyApp.class)
                .withPropertyValues("app.flaky-queue=flaky", "sqlqueue.handlers.flaky.max-attempts=3",
                        "sqlqueue.handlers.flaky.backoff.initial=10ms", "sqlqueue.handlers.flaky.backoff.max=20ms",
                        "sqlqueue.handlers.flaky.backoff.jitter=0")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    SqlQueue q = ctx.getBean(SqlQueue.class);
                    ctx.getBean(SqlQueueTemplate.class).enqueue("flaky", "boom");
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (q.stats(QueueName.of("flaky")).dead() == 0 && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    List<DeadLetter> dead = q.deadLetters(QueueName.of("flaky"), 10);
                    assertThat(dead).hasSize(1);
                    assertThat(dead.get(0).attempts()).isEqualTo(3);
                    assertThat(seen).containsExactly("boom", "boom", "boom");
                });
    }

    @Test
    void aBackoffOutOfRangeFailsTheStartNamingTheRule() {
        h2().withPropertyValues("sqlqueue.worker.backoff.multiplier=20").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(ctx.getStartupFailure()).hasStackTraceContaining("multiplier must be 1.0..10.0, was 20.0");
        });
    }

    @Test
    void theNewPropertiesHaveGeneratedMetadataWithBootsTypes() throws Exception {
        String json;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(json).containsPattern("\"name\": \"sqlqueue.worker.backoff.initial\",\\s*\"type\": \"java.time.Duration\"")
                .containsPattern("\"name\": \"sqlqueue.worker.backoff.max\",\\s*\"type\": \"java.time.Duration\"")
                .contains("\"name\": \"sqlqueue.worker.backoff.multiplier\"", "\"name\": \"sqlqueue.worker.backoff.jitter\"")
                .containsPattern("\"name\": \"sqlqueue.handlers\",\\s*\"type\": \"java.util.Map<java.lang.String,dev.sqlqueue.spring.SqlQueueProperties\\$Handler>\"");
    }
}
