package dev.sqlqueue.sqlserver.model;

/**
 * Thrown by the model when a test scripts a result a real server could not produce (a RECEIVE result
 * mixing two conversation groups, a value for sp_getapplock that the model computes itself, ...), or
 * asks the model to treat as done something the documented rules say did not happen. A test that
 * gets this asserts something impossible; fix the test, not the model.
 */
public final class ImpossibleResultException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ImpossibleResultException(String message) {
        super(message);
    }
}
