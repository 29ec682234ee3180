package dev.sqlqueue.runtime;

import java.time.Duration;

/** What a {@link MessageHandler} decided for one delivery. */
public sealed interface Outcome {
    /** Done; {@code detail} (may be null) is kept in the history, for example "exit 0". */
    record Ack(String detail) implements Outcome {
    }

    /** Failed; retry after {@code delay}, or after the retry policy's back-off when null. */
    record Retry(String error, Duration delay) implements Outcome {
    }

    /** Failed for good: dead-letter now, whatever attempts are left. */
    record DeadLetter(String reason) implements Outcome {
    }

    static Outcome ack() {
        return new Ack(null);
    }

    static Outcome ack(String detail) {
        return new Ack(detail);
    }

    static Outcome retry(String error) {
        return new Retry(error, null);
    }

    static Outcome deadLetter(String reason) {
        return new DeadLetter(reason);
    }
}
