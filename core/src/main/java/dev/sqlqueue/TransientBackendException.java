package dev.sqlqueue;

/**
 * The database could not be reached, the connection broke, or the server aborted the statement for a
 * reason that retrying can cure (a deadlock victim, a lock time-out). The worker runtime backs off and
 * retries on this exception; nothing the caller did was wrong.
 */
public class TransientBackendException extends SqlQueueException {
    /**
     * A transient error.
     *
     * @param message what failed, for people
     * @param cause the underlying exception, typically an {@link java.sql.SQLException}
     */
    public TransientBackendException(String message, Throwable cause) {
        super(message, cause);
    }
}
