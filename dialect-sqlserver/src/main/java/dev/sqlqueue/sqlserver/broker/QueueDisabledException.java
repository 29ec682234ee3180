package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.SqlQueueException;

/**
 * The Service Broker queue is disabled (SQL Server error 9617, "The service queue ... is currently
 * disabled"): no message can be received until an administrator re-enables it with
 * {@code ALTER QUEUE ... WITH STATUS = ON}. Not transient: retrying does not help until then. The backend
 * does not ask the server again for {@link BrokerOptions#disabledRecheckMillis()} ms after seeing it.
 */
public class QueueDisabledException extends SqlQueueException {
    /**
     * A disabled queue.
     *
     * @param message what was attempted on which queue
     * @param cause the driver's error 9617
     */
    public QueueDisabledException(String message, Throwable cause) {
        super(message, cause);
    }
}
