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

    private static void failed(String event, RuntimeException e) {
        LOG.warn("the worker listener's {} threw; the pool goes on as if it had returned", event, e);
    }

    @Override
    public void acked(Delivery delivery, long handlerNanos) {
        try {
            listener.acked(delivery, handlerNanos);
        } catch (RuntimeException e) {
            failed("acked", e);
        }
    }

    @Override
    public void retried(Delivery delivery, String error, Duration delay) {
        try {
            listener.retried(delivery, error, delay);
        } catch (RuntimeException e) {
            failed("retried", e);
        }
    }

    @Override
    public void deadLettered(Delivery delivery, String reason) {
        try {
            listener.deadLettered(delivery, reason);
        } catch (RuntimeException e) {
            failed("deadLettered", e);
        }
    }

    @Override
    public void leaseLost(Delivery delivery) {
        try {
            listener.leaseLost(delivery);
        } catch (RuntimeException e) {
            failed("leaseLost", e);
        }
    }

    @Override
    public void backendError(Exception error, Duration backoff) {
        try {
            listener.backendError(error, backoff);
        } catch (RuntimeException e) {
            failed("backendError", e);
        }
    }
}
