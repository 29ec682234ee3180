package dev.sqlqueue;

/**
 * Base of every error sqlqueue throws. Unchecked: callers decide where to handle queue failures.
 *
 * <p>Subclasses say what went wrong: {@link InvalidInputException} (the caller broke a rule; nothing
 * was written), {@link LeaseLostException} (an ack or extension came too late),
 * {@link TransientBackendException} (the database was unreachable or chose this transaction as a
 * deadlock victim; retrying may succeed), {@link UnsupportedCapabilityException} (the backend does not
 * offer the feature asked for).
 */
public class SqlQueueException extends RuntimeException {
    public SqlQueueException(String message) {
        super(message);
    }

    public SqlQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
