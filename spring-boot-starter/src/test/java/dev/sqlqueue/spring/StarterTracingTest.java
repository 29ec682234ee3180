package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * With an OpenTelemetry bean, a message enqueued in a Spring transaction under a span is handled in a
 * span of the same trace whose parent is the enqueue's span; with tracing switched off no header is
 * added.
 */
class StarterTracingTest {
    static final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    static final List<String> traceparents = new CopyOnWriteArrayList<>();

    @Configuration
    static class App {
        @Bean
        OpenTelemetry openTelemetry() {
            return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
        }

        @Bean
        QueueWorker tracedWorker() {
            return QueueWorker.of("traced", d -> {
                traceparents.add(d.headers().getOrDefault("traceparent", "none"));
                return dev.sqlqueue.runtime.Outcome.ack();
            }).withOptions(o -> o.withThreads(1).withPollWait(java.time.Duration.ofMillis(50)));
        }
    }

    private ApplicationContextRunner runner() {
        String prefix = "u17_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        SqlQueueTracingAutoConfiguration.class, SqlQueueAutoConfiguration.class))
                .withUserConfiguration(App.class)
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1",
                        "sqlqueue.table-prefix=" + prefix, "sqlqueue.worker.poll-wait=50ms");
    }

    @Test
    void handlerSpanContinuesTheTraceOfTheTransactionalEnqueue() {
        exporter.reset();
        traceparents.clear();
        runner().run(ctx -> {
            SqlQueueTemplate template = ctx.getBean(SqlQueueTemplate.class);
            Span request = ctx.getBean(OpenTelemetry.class).getTracer("test").spanBuilder("POST /orders").startSpan();
            try (Scope ignored = request.makeCurrent()) {
                new TransactionTemplate(ctx.getBean(PlatformTransactionManager.class))
                        .executeWithoutResult(s -> template.enqueue("traced", "hello"));
            } finally {
                request.end();
            }
            StarterOnDatabasesTest.await(() -> exporter.getFinishedSpanItems().stream().anyMatch(s -> s.getName().equals("process traced")));
            SpanData send = only("send traced");
            SpanData process = only("process traced");
            assertThat(send.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(process.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
            assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
            assertThat(traceparents).hasSize(1);
            assertThat(traceparents.get(0)).contains(send.getSpanId());
            ctx.getBean(SqlQueueWorkers.class).stop();
            ctx.getBean(SqlQueue.class).dropSchema();
        });
    }

    @Test
    void switchedOffAddsNoHeader() {
        traceparents.clear();
        runner().withPropertyValues("sqlqueue.tracing.enabled=false").run(ctx -> {
            assertThat(ctx).doesNotHaveBean(dev.sqlqueue.opentelemetry.SqlQueueTracing.class);
            ctx.getBean(SqlQueueTemplate.class).enqueue("traced", "plain");
            StarterOnDatabasesTest.await(() -> traceparents.size() == 1);
            assertThat(traceparents).containsExactly("none");
            ctx.getBean(SqlQueueWorkers.class).stop();
            ctx.getBean(SqlQueue.class).queues().forEach(q -> assertThat(q).isIn(QueueName.of("traced")));
            ctx.getBean(SqlQueue.class).dropSchema();
        });
    }

    private static SpanData only(String name) {
        List<SpanData> found = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).hasSize(1);
        return found.get(0);
    }
}
