package dev.sqlqueue.opentelemetry;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.QueueBackend;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Map;
import java.util.Objects;

/**
 * Traces sqlqueue through the OpenTelemetry API. A traced producer runs each enqueue in a
 * {@code PRODUCER} span "send &lt;queue&gt;" (child of the caller's current span) and writes that span's
 * context into the message's headers in the W3C Trace Context form ({@code traceparent}, and
 * {@code tracestate} when there is one); a traced handler runs in a {@code CONSUMER} span
 * "process &lt;queue&gt;" whose parent is the context found in the delivery's headers, so the consumer's
 * work continues the producer's trace, across processes and restarts. The handler's span is current while
 * it runs: spans it starts (JDBC, HTTP clients) nest under it.
 *
 * <pre>{@code
 * SqlQueueTracing tracing = SqlQueueTracing.of(openTelemetry);
 * SqlQueue q = tracing.open(config);                                   // producer side
 * WorkerPool.start(q, jobs, tracing.traced(q, jobs, handler), options, null);  // consumer side
 * }</pre>
 *
 * <p>Without this module (or with {@link OpenTelemetry#noop()}) nothing changes: no header is added and
 * no span is made. docs/observability.md lists the spans and attributes. Thread-safe.
 */
public final class SqlQueueTracing {
    /** Instrumentation scope name of the tracer. */
    public static final String INSTRUMENTATION = "dev.sqlqueue";
    /** The header that carries the producer's span context (W3C Trace Context). */
    public static final String TRACEPARENT = "traceparent";
    /** The header that carries the producer's vendor trace state (W3C Trace Context), when it has one. */
    public static final String TRACESTATE = "tracestate";

    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    static final AttributeKey<Long> BODY_SIZE = AttributeKey.longKey("messaging.message.body.size");
    static final AttributeKey<String> BACKEND = AttributeKey.stringKey("sqlqueue.backend");
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("sqlqueue.attempt");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("sqlqueue.outcome");

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        // keys() is deprecated in newer OpenTelemetry releases but still abstract: it must be implemented
        @SuppressWarnings("deprecation")
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Tracer tracer;

    private SqlQueueTracing(OpenTelemetry otel) {
        this.tracer = otel.getTracer(INSTRUMENTATION);
    }

    /**
     * Tracing with the tracer {@code openTelemetry} gives for {@value #INSTRUMENTATION}.
     *
     * @param openTelemetry the OpenTelemetry instance (SDK or no-op)
     * @return the tracing; thread-safe
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static SqlQueueTracing of(OpenTelemetry openTelemetry) {
        return new SqlQueueTracing(Objects.requireNonNull(openTelemetry, "openTelemetry"));
    }

    Tracer tracer() {
        return tracer;
    }

    /**
     * Open the backend {@code config} selects (as {@link SqlQueue#open} does), traced.
     *
     * @param config what to open
     * @return the open, traced queue client
     * @throws dev.sqlqueue.InvalidInputException if no backend matches the config
     */
    public SqlQueue open(QueueConfig config) {
        return SqlQueue.wrap(instrument(BackendDiscovery.find(config).open(config)), config);
    }

    /**
     * Trace the enqueues of a backend; pass the result to {@link SqlQueue#wrap}.
     *
     * @param backend the backend to trace
     * @return the traced backend
     */
    public QueueBackend instrument(QueueBackend backend) {
        return new TracingBackend(backend, this);
    }

    /**
     * Run {@code handler} in a CONSUMER span continuing the context of the delivery's
     * {@value #TRACEPARENT} header (a new trace when there is none or it is malformed). The span ends with
     * status ERROR when the handler threw (the exception is recorded) or asked for a retry or a
     * dead letter.
     *
     * @param client the client the handler's pool consumes from (gives the backend attribute)
     * @param queue the queue the handler consumes (the destination attribute)
     * @param handler the handler to trace
     * @return the traced handler
     */
    @SuppressWarnings("try") // the Scope is held for its close only
    public MessageHandler traced(QueueClient client, QueueName queue, MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        String backend = client.capabilities().backend();
        return (Delivery d) -> {
            Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), d.headers(), HEADERS);
            Span span = tracer.spanBuilder("process " + queue.value())
                    .setParent(parent)
                    .setSpanKind(SpanKind.CONSUMER)
                    .setAttribute(SYSTEM, "sqlqueue")
                    .setAttribute(DESTINATION, queue.value())
                    .setAttribute(OPERATION_NAME, "process")
                    .setAttribute(OPERATION_TYPE, "process")
                    .setAttribute(MESSAGE_ID, Long.toString(d.id()))
                    .setAttribute(BODY_SIZE, (long) d.payload().length)
                    .setAttribute(BACKEND, backend)
                    .setAttribute(ATTEMPT, (long) d.attempt())
                    .startSpan();
            try (Scope ignored = span.makeCurrent()) {
                Outcome o = handler.handle(d);
                if (o == null) {
                    // WorkerPool retries a delivery whose handler returned no outcome
                    span.setAttribute(OUTCOME, "retry");
                    span.setStatus(StatusCode.ERROR, "handler returned no outcome");
                } else if (o instanceof Outcome.Ack) {
                    span.setAttribute(OUTCOME, "ack");
                } else if (o instanceof Outcome.Retry r) {
                    span.setAttribute(OUTCOME, "retry");
                    span.setStatus(StatusCode.ERROR, r.error() == null ? "retry" : r.error());
                } else if (o instanceof Outcome.DeadLetter dl) {
                    span.setAttribute(OUTCOME, "dead_letter");
                    span.setStatus(StatusCode.ERROR, dl.reason() == null ? "dead letter" : dl.reason());
                }
                return o;
            } catch (Exception | Error e) {
                span.setAttribute(OUTCOME, "error");
                span.recordException(e);
                span.setStatus(StatusCode.ERROR, e.toString());
                throw e;
            } finally {
                span.end();
            }
        };
    }
}
