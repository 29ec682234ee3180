package dev.sqlqueue.teradata.model;

/**
 * Thrown by the model when the code under test asks for something a real Teradata system could not
 * answer as the model would: an unknown statement, a limit the manuals set and the backend must never
 * reach, a request blocked with nobody left to release it. It is an {@link AssertionError}, so the test
 * fails rather than passing on an answer the model made up.
 */
public final class ModelViolation extends AssertionError {
    public ModelViolation(String message) {
        super("Teradata model: " + message);
    }
}
