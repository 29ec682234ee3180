package dev.sqlqueue.runtime;

import dev.sqlqueue.Delivery;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WorkerListener} whose exceptions are logged (WARN) and go no further, so that a listener bug never
 * changes what the pool does with a delivery: a throwing {@code acked} once made the pool take the call that
 * had just claimed the next batch for a failed claim and drop that batch until its lease ran out. Thread-safe
 * if the listener it wraps is.
 */
final class GuardedListener implements WorkerListener {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);

    private final WorkerListener listener;

    GuardedListener(WorkerListener listener) {
        this.listener = listener;
    }

    private static void guard(String event, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("the worker listener's {} threw; the pool goes on as if it had returned", event, e);
        }
    }

    @Override
    public void acked(Delivery delivery, long handlerNanos) {
        guard("acked", () -> listener.acked(delivery, handlerNanos));
    }

    @Override
    public void retried(Delivery delivery, String error, Duration delay) {
        guard("retried", () -> listener.retried(delivery, error, delay));
    }

    @Override
    public void deadLettered(Delivery delivery, String reason) {
        guard("deadLettered", () -> listener.deadLettered(delivery, reason));
    }

    @Override
    public void leaseLost(Delivery delivery) {
        guard("leaseLost", () -> listener.leaseLost(delivery));
    }

    @Override
    public void backendError(Exception error, Duration backoff) {
        guard("backendError", () -> listener.backendError(error, backoff));
    }
}
