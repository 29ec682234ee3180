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

    /**
     * An input error.
     *
     * @param rule the rule's stable identifier, for example {@code queue-name.pattern}; appended to the message
     * @param message what was wrong, for people
     */
    public InvalidInputException(String rule, String message) {
        super(message + " [rule: " + rule + "]");
        this.rule = rule;
    }

    /**
     * The identifier of the rule that was broken, for example {@code queue-name.pattern}.
     *
     * @return the rule's identifier
     */
    public String rule() {
        return rule;
    }
}
