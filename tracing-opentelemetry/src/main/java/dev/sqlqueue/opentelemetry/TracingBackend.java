package dev.sqlqueue.opentelemetry;

import static dev.sqlqueue.opentelemetry.SqlQueueTracing.BACKEND;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.BATCH_COUNT;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.DESTINATION;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.MESSAGE_ID;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.OPERATION_NAME;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.OPERATION_TYPE;
import static dev.sqlqueue.opentelemetry.SqlQueueTracing.SYSTEM;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.ForwardingQueueBackend;
import dev.sqlqueue.spi.QueueBackend;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Runs each enqueue in a PRODUCER span and writes the span's context into the messages' headers. */
final class TracingBackend extends ForwardingQueueBackend {
    private final SqlQueueTracing tracing;
    private final String backendName;

    TracingBackend(QueueBackend delegate, SqlQueueTracing tracing) {
        super(delegate);
        this.tracing = tracing;
        this.backendName = delegate.capabilities().backend();
    }

    /** The message with the current context's traceparent (and tracestate) among its headers. */
    static Message withContext(Message m) {
        Map<String, String> carrier = new LinkedHashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
        if (carrier.isEmpty()) {
            return m;
        }
        Map<String, String> headers = new LinkedHashMap<>(m.headers());
        headers.putAll(carrier);
        return Message.builder(m.payloadUnsafe()).headers(headers).delay(m.delay()).priority(m.priority())
                .group(m.group()).deduplicationKey(m.deduplicationKey()).build();
    }

    @SuppressWarnings("try") // the Scope is held for its close only
    private <T> T send(QueueName queue, int count, Function<Span, T> call) {
        Span span = tracing.tracer().spanBuilder("send " + queue.value())
                .setSpanKind(SpanKind.PRODUCER)
                .setAttribute(SYSTEM, "sqlqueue")
                .setAttribute(DESTINATION, queue.value())
                .setAttribute(OPERATION_NAME, "send")
                .setAttribute(OPERATION_TYPE, "send")
                .setAttribute(BACKEND, backendName)
                .startSpan();
        if (count != 1) {
            span.setAttribute(BATCH_COUNT, (long) count);
        }
        try (Scope ignored = span.makeCurrent()) {
            return call.apply(span);
        } catch (RuntimeException | Error e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR, e.toString());
            throw e;
        } finally {
            span.end();
        }
    }

    @Override
    public long enqueue(QueueName queue, Message message) {
        return send(queue, 1, span -> {
            long id = super.enqueue(queue, withContext(message));
            span.setAttribute(MESSAGE_ID, Long.toString(id));
            return id;
        });
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return send(queue, messages.size(), span -> super.enqueueAll(queue, messages.stream().map(TracingBackend::withContext).toList()));
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        return send(queue, messages.size(),
                span -> super.enqueueAllDeduplicated(queue, messages.stream().map(TracingBackend::withContext).toList()));
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return send(queue, 1, span -> {
            long id = super.enqueue(connection, queue, withContext(message));
            span.setAttribute(MESSAGE_ID, Long.toString(id));
            return id;
        });
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        return send(queue, 1, span -> {
            EnqueueResult r = super.enqueueDeduplicated(queue, withContext(message));
            span.setAttribute(MESSAGE_ID, Long.toString(r.id()));
            return r;
        });
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        return send(queue, 1, span -> {
            EnqueueResult r = super.enqueueDeduplicated(connection, queue, withContext(message));
            span.setAttribute(MESSAGE_ID, Long.toString(r.id()));
            return r;
        });
    }
}
