package dev.sqlqueue.cli;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.runtime.WorkerListener;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what {@code sqlqueue work} did and reports each failure as one line on the error writer.
 * Thread-safe.
 */
final class WorkCounters implements WorkerListener {
    private static final int LINE_CHARS = 200;
    private static final long BACKEND_ERROR_EVERY_MS = 5_000;

    private final PrintWriter err;
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong dead = new AtomicLong();
    private final AtomicLong leaseLost = new AtomicLong();
    private final AtomicLong lastBackendError = new AtomicLong();

    /** Asked on a lost lease: true when the queue itself is gone (dropped), which then stops the command. */
    private volatile java.util.function.BooleanSupplier queueGone = () -> false;

    /** Sets the check a lost lease runs ({@link #leaseLost}); it must not throw. */
    void onLeaseLost(java.util.function.BooleanSupplier queueGone) {
        this.queueGone = queueGone;
    }

    WorkCounters(PrintWriter err) {
        this.err = err;
    }

    @Override
    public void acked(Delivery delivery, long handlerNanos) {
        ok.incrementAndGet();
    }

    @Override
    public void retried(Delivery delivery, String error, Duration delay) {
        retried.incrementAndGet();
        err.println("sqlqueue: message " + delivery.id() + " attempt " + delivery.attempt() + " failed ("
                + TextTable.preview(ErrorHandler.oneLine(error), LINE_CHARS) + "); retry in "
                + DurationConverter.format(delay));
    }

    @Override
    public void deadLettered(Delivery delivery, String reason) {
        dead.incrementAndGet();
        err.println("sqlqueue: message " + delivery.id() + " dead-lettered: "
                + TextTable.preview(ErrorHandler.oneLine(reason), LINE_CHARS));
    }

    @Override
    public void leaseLost(Delivery delivery) {
        leaseLost.incrementAndGet();
        if (queueGone.getAsBoolean()) {
            err.println("sqlqueue: message " + delivery.id() + ": its queue was dropped, and the message with it");
        } else {
            err.println("sqlqueue: message " + delivery.id() + ": lease lost; it may be delivered again");
        }
    }

    @Override
    public void backendError(Exception error, Duration backoff) {
        long now = System.currentTimeMillis();
        long last = lastBackendError.get();
        if (now - last >= BACKEND_ERROR_EVERY_MS && lastBackendError.compareAndSet(last, now)) {
            err.println("sqlqueue: database error, retrying in " + DurationConverter.format(backoff) + ": "
                    + TextTable.preview(ErrorHandler.describe(error), LINE_CHARS));
        }
    }

    long ok() {
        return ok.get();
    }

    long retried() {
        return retried.get();
    }

    long deadLettered() {
        return dead.get();
    }

    long leaseLost() {
        return leaseLost.get();
    }
}
