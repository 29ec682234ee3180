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

    /**
     * Done, without a detail.
     *
     * @return an {@link Ack}
     */
    static Outcome ack() {
        return new Ack(null);
    }

    /**
     * Done, with a detail for the history.
     *
     * @param detail kept in the history, for example {@code "exit 0"}; may be null
     * @return an {@link Ack}
     */
    static Outcome ack(String detail) {
        return new Ack(detail);
    }

    /**
     * Failed; retry after the retry policy's back-off (dead-letter when the attempts are used up).
     *
     * @param error the failure, kept as the message's last error
     * @return a {@link Retry} without a delay of its own
     */
    static Outcome retry(String error) {
        return new Retry(error, null);
    }

    /**
     * Failed for good.
     *
     * @param reason why, kept with the dead letter
     * @return a {@link DeadLetter}
     */
    static Outcome deadLetter(String reason) {
        return new DeadLetter(reason);
    }
}
