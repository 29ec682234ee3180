package dev.sqlqueue.runtime;

import dev.sqlqueue.Delivery;
import java.time.Duration;

/**
 * Events of a {@link WorkerPool}, for progress bars, metrics and logs. Called on worker threads; must be
 * thread-safe and quick. Every method has an empty default. A {@link RuntimeException} a method throws is
 * logged at WARN by the pool and changes nothing it does with the delivery.
 */
public interface WorkerListener {
    /**
     * The delivery was acked; {@code handlerNanos} is the handler's run time.
     *
     * @param delivery the delivery that was acked
     * @param handlerNanos nanoseconds the handler ran
     */
    default void acked(Delivery delivery, long handlerNanos) {
    }

    /**
     * The delivery failed and will be retried after {@code delay}.
     *
     * @param delivery the delivery that failed
     * @param error the failure, as kept with the message
     * @param delay the delay before the next delivery
     */
    default void retried(Delivery delivery, String error, Duration delay) {
    }

    /**
     * The delivery was dead-lettered with {@code reason}.
     *
     * @param delivery the delivery that was dead-lettered
     * @param reason the reason kept with the dead letter
     */
    default void deadLettered(Delivery delivery, String reason) {
    }

    /**
     * Settling the delivery failed because its lease was lost; another consumer will get it.
     *
     * @param delivery the delivery whose lease was lost
     */
    default void leaseLost(Delivery delivery) {
    }

    /**
     * The backend failed; the worker backs off for {@code backoff} and tries again.
     *
     * @param error what the backend threw
     * @param backoff how long the worker waits before it tries again
     */
    default void backendError(Exception error, Duration backoff) {
    }
}
