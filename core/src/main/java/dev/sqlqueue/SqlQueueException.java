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
    /**
     * An error without an underlying cause.
     *
     * @param message what failed, for people
     */
    public SqlQueueException(String message) {
        super(message);
    }

    /**
     * An error with the exception that caused it.
     *
     * @param message what failed, for people
     * @param cause the underlying exception, typically an {@link java.sql.SQLException}
     */
    public SqlQueueException(String message, Throwable cause) {
        super(message, cause);
    }
}
