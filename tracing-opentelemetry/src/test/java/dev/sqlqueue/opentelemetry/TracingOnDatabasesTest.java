package dev.sqlqueue.opentelemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A producer's trace continues in the consumer: the enqueue's PRODUCER span is a child of the caller's
 * span, its context travels in the stored message's traceparent header, and the handler runs in a
 * CONSUMER span whose parent is that PRODUCER span, with the handler's spans nested under it.
 */
class TracingOnDatabasesTest {
    private static final QueueName JOBS = QueueName.of("jobs");

    static QueueConfig config(String db) {
        String prefix = "t17_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        QueueConfig.Builder b = QueueConfig.builder().tablePrefix(prefix).poolSize(4);
        return switch (db) {
            case "h2" -> b.url("jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1").build();
            case "postgresql" -> b.url("jdbc:postgresql://127.0.0.1:5432/test").user("postgres").password("").build();
            default -> throw new IllegalArgumentException(db);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void consumerSpanContinuesTheProducersTrace(String db) throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = exportingTo(exporter);
        SqlQueueTracing tracing = SqlQueueTracing.of(otel);
        QueueConfig config = config(db);
        try (SqlQueue q = tracing.open(config)) {
            try {
                q.createQueue(JOBS);
                Span checkout = otel.getTracer("test").spanBuilder("checkout").startSpan();
                long id;
                try (Scope ignored = checkout.makeCurrent()) {
                    id = q.enqueue(JOBS, Message.builder("order 1".getBytes()).header("tenant", "acme").build());
                } finally {
                    checkout.end();
                }

                Map<String, SpanContext> seenInHandler = new ConcurrentHashMap<>();
                Map<String, String> headersInHandler = new ConcurrentHashMap<>();
                WorkerPool pool = WorkerPool.start(q, JOBS, tracing.traced(q, JOBS, d -> {
                            seenInHandler.put(d.text(), Span.current().getSpanContext());
                            headersInHandler.putAll(d.headers());
                            Span inner = otel.getTracer("test").spanBuilder("charge card").startSpan();
                            inner.end();
                            return Outcome.ack();
                        }),
                        WorkerOptions.defaults().withThreads(1).withPollWait(Duration.ofMillis(50)), null);
                try {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (exporter.getFinishedSpanItems().stream().noneMatch(s -> s.getName().equals("process jobs"))) {
                        assertTrue(System.nanoTime() < until, "the handler ran within 20 s");
                        Thread.sleep(20);
                    }
                } finally {
                    pool.close();
                }

                SpanData send = span(exporter, "send jobs");
                SpanData process = span(exporter, "process jobs");
                SpanData inner = span(exporter, "charge card");
                String traceId = checkout.getSpanContext().getTraceId();
                assertEquals(SpanKind.PRODUCER, send.getKind());
                assertEquals(traceId, send.getTraceId());
                assertEquals(checkout.getSpanContext().getSpanId(), send.getParentSpanId());
                assertEquals(Long.toString(id), send.getAttributes().get(SqlQueueTracing.MESSAGE_ID));
                assertEquals("jobs", send.getAttributes().get(SqlQueueTracing.DESTINATION));

                assertEquals("00-" + traceId + "-" + send.getSpanId() + "-" + send.getSpanContext().getTraceFlags().asHex(), headersInHandler.get("traceparent"),
                        "the stored message carries the producer span's W3C context");
                assertEquals("acme", headersInHandler.get("tenant"), "the application's headers are kept");

                assertEquals(SpanKind.CONSUMER, process.getKind());
                assertEquals(traceId, process.getTraceId());
                assertEquals(send.getSpanId(), process.getParentSpanId());
                assertEquals("ack", process.getAttributes().get(SqlQueueTracing.OUTCOME));
                assertEquals(1L, process.getAttributes().get(SqlQueueTracing.ATTEMPT));
                assertEquals(db, process.getAttributes().get(SqlQueueTracing.BACKEND));
                assertEquals(process.getSpanId(), seenInHandler.get("order 1").getSpanId(), "the handler runs in the span");
                assertEquals(process.getSpanId(), inner.getParentSpanId(), "the handler's spans nest under it");
                assertEquals(StatusCode.UNSET, process.getStatus().getStatusCode());
            } finally {
                q.dropSchema();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void failingHandlerMarksItsSpanAndUntracedClientsAddNoHeader(String db) throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = exportingTo(exporter);
        SqlQueueTracing tracing = SqlQueueTracing.of(otel);
        try (SqlQueue plain = SqlQueue.open(config(db))) {
            try {
                plain.createQueue(JOBS);
                plain.enqueue(JOBS, Message.ofText("untraced"));
                Delivery d = plain.consume(JOBS, ConsumeRequest.of(1)).get(0);
                assertFalse(d.headers().containsKey("traceparent"), "without the tracing module nothing changes");
                assertTrue(exporter.getFinishedSpanItems().isEmpty());

                var handler = tracing.traced(plain, JOBS, x -> {
                    throw new IllegalStateException("card declined");
                });
                try {
                    handler.handle(d);
                } catch (IllegalStateException expected) {
                    // rethrown to the pool, which retries
                }
                SpanData process = span(exporter, "process jobs");
                assertEquals(StatusCode.ERROR, process.getStatus().getStatusCode());
                assertEquals("error", process.getAttributes().get(SqlQueueTracing.OUTCOME));
                assertEquals(1, process.getEvents().stream().filter(e -> e.getName().equals("exception")).count());
                assertFalse(process.getParentSpanContext().isValid(), "no traceparent: a new trace");
            } finally {
                plain.dropSchema();
            }
        }
    }

    /**
     * A handler that returns no outcome is retried by the pool ("handler returned no outcome"); its span said
     * {@code outcome=ack} with no error, so traces and the dead-letter queue disagreed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"h2"})
    void aHandlerThatReturnsNoOutcomeIsARetryInItsSpan(String db) throws Exception {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = exportingTo(exporter);
        SqlQueueTracing tracing = SqlQueueTracing.of(otel);
        try (SqlQueue plain = SqlQueue.open(config(db))) {
            try {
                plain.createQueue(JOBS);
                plain.enqueue(JOBS, Message.ofText("no outcome"));
                Delivery d = plain.consume(JOBS, ConsumeRequest.of(1)).get(0);
                assertEquals(null, tracing.traced(plain, JOBS, x -> null).handle(d));
                SpanData process = span(exporter, "process jobs");
                assertEquals("retry", process.getAttributes().get(SqlQueueTracing.OUTCOME));
                assertEquals(StatusCode.ERROR, process.getStatus().getStatusCode());
            } finally {
                plain.dropSchema();
            }
        }
    }

    /** An SDK whose spans end up in {@code exporter} as each ends. */
    private static OpenTelemetrySdk exportingTo(InMemorySpanExporter exporter) {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .build();
    }

    private static SpanData span(InMemorySpanExporter exporter, String name) {
        List<SpanData> found = exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
        assertEquals(1, found.size(), "spans named " + name + ": " + found);
        return found.get(0);
    }
}
