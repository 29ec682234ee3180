package dev.sqlqueue.spring;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.WorkerOptions;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A handler declared as a bean: the starter runs it in a {@link dev.sqlqueue.runtime.WorkerPool} that
 * starts and stops with the application context.
 *
 * <pre>{@code
 * @Bean QueueWorker invoices(InvoiceService s) {
 *     return QueueWorker.of("invoices", d -> { s.process(d.text()); return Outcome.ack(); });
 * }
 * }</pre>
 *
 * @param queue the queue (created at start if missing)
 * @param handler the handler
 * @param options adjusts the worker options built from {@code sqlqueue.worker.*}
 */
public record QueueWorker(QueueName queue, MessageHandler handler, UnaryOperator<WorkerOptions> options) {
    public QueueWorker {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        options = options == null ? UnaryOperator.identity() : options;
    }

    public static QueueWorker of(String queue, MessageHandler handler) {
        return new QueueWorker(QueueName.of(queue), handler, null);
    }

    /** The same worker with {@code adjust} applied to its options (threads, lease, retry ...). */
    public QueueWorker withOptions(UnaryOperator<WorkerOptions> adjust) {
        return new QueueWorker(queue, handler, w -> adjust.apply(options.apply(w)));
    }
}
