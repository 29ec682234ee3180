package dev.sqlqueue;

/**
 * The caller supplied input that breaks a documented rule (a queue name, a payload size, a delay...).
 * Thrown before anything reaches the database, so the store is unchanged.
 *
 * <p>{@link #rule()} names the rule broken in a stable, machine-readable form such as
 * {@code queue-name.pattern} or {@code payload.max-size}; the message says the same for people.
 */
public class InvalidInputException extends SqlQueueException {
    private final String rule;

    public InvalidInputException(String rule, String message) {
        super(message + " [rule: " + rule + "]");
        this.rule = rule;
    }

    /** The identifier of the rule that was broken, for example {@code queue-name.pattern}. */
    public String rule() {
        return rule;
    }
}
