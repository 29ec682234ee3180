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
    /**
     * Checks the components; a null {@code options} becomes the identity (the options as configured).
     *
     * @param queue the queue (created at start if missing)
     * @param handler the handler
     * @param options adjusts the worker options built from {@code sqlqueue.worker.*}; may be null
     * @throws NullPointerException if {@code queue} or {@code handler} is null
     */
    public QueueWorker {
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(handler, "handler");
        options = options == null ? UnaryOperator.identity() : options;
    }

    /**
     * A worker that runs with the options of {@code sqlqueue.worker.*} and {@code sqlqueue.handlers.<queue>.*}.
     *
     * @param queue the queue's name (created at start if missing)
     * @param handler the handler
     * @return the worker
     * @throws dev.sqlqueue.InvalidInputException if {@code queue} is not a valid queue name
     * @throws NullPointerException if {@code handler} is null
     */
    public static QueueWorker of(String queue, MessageHandler handler) {
        return new QueueWorker(QueueName.of(queue), handler, null);
    }

    /**
     * The same worker with {@code adjust} applied to its options (threads, lease, retry ...).
     *
     * @param adjust applied after this worker's own adjustments, to the options built from the properties
     * @return a new worker; this one is unchanged
     */
    public QueueWorker withOptions(UnaryOperator<WorkerOptions> adjust) {
        return new QueueWorker(queue, handler, w -> adjust.apply(options.apply(w)));
    }
}
