package dev.sqlqueue.spi;

import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import java.util.function.Consumer;

/**
 * The driven port a dialect implements: every driving port plus hooks for the core.
 *
 * <p>Input reaching a backend through {@link dev.sqlqueue.SqlQueue} has been validated (queue names,
 * payload size against {@link dev.sqlqueue.Capabilities#maxPayloadBytes()}, delays, batch sizes,
 * claim mode). Implementations must be thread-safe.
 */
public interface QueueBackend extends QueueClient {
    /**
     * True when {@link #consume} itself waits for {@code request.maxWait()} on the server (for example
     * Service Broker's {@code WAITFOR (RECEIVE ...)}). When false, the core polls the backend with a
     * zero wait and backs off between polls, waking early on an in-process enqueue or on a call to the
     * wake-up listener.
     *
     * @return whether the backend waits in {@code consume}; false by default
     */
    default boolean waitsInConsume() {
        return false;
    }

    /**
     * The core registers a listener that the backend calls when the database tells it that a queue got
     * a message (for example PostgreSQL {@code NOTIFY}), so that waiting consumers poll at once.
     * The default does nothing.
     *
     * @param listener called with the queue that got a message, on a thread of the backend's
     */
    default void onWakeup(Consumer<QueueName> listener) {
    }

    /**
     * A short description of the server, as the server reports it (product and version), for reports.
     *
     * @return the product and version
     */
    String serverVersion();
}
