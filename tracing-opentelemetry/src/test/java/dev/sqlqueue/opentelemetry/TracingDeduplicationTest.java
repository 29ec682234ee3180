package dev.sqlqueue.opentelemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A traced enqueue keeps the message's deduplication key: the traceparent header is added to a rebuilt
 * message, which once lost the key, so every repeat of a key was enqueued.
 */
class TracingDeduplicationTest {
    private static final QueueName JOBS = QueueName.of("jobs");

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void aTracedKeyedEnqueueIsDeduplicated(String db) {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
                .build();
        SqlQueueTracing tracing = SqlQueueTracing.of(otel);
        try (SqlQueue q = tracing.open(TracingOnDatabasesTest.config(db))) {
            try {
                q.createQueue(JOBS);
                Span request = otel.getTracer("test").spanBuilder("request").startSpan();
                EnqueueResult first;
                EnqueueResult again;
                long plain;
                try (Scope ignored = request.makeCurrent()) {
                    Message m = Message.builder("job".getBytes()).deduplicationKey("order-1").build();
                    first = q.enqueueDeduplicated(JOBS, m);
                    again = q.enqueueDeduplicated(JOBS, m);
                    plain = q.enqueue(JOBS, m);
                    q.enqueueAll(JOBS, List.of(m, m));
                } finally {
                    request.end();
                }
                assertFalse(first.duplicate());
                assertTrue(again.duplicate(), "the traced repeat is a duplicate");
                assertEquals(first.id(), again.id());
                assertEquals(first.id(), plain);
                List<Delivery> got = q.consume(JOBS, ConsumeRequest.of(10));
                assertEquals(1, got.size(), "one message for five enqueues of one key");
                assertTrue(got.get(0).headers().containsKey("traceparent"), "the first enqueue's trace travels with it");
                q.ack(got.get(0).receipt());
                assertTrue(exporter.getFinishedSpanItems().stream().anyMatch(s -> s.getName().equals("send jobs")));
            } finally {
                q.dropSchema();
            }
        }
    }
}
