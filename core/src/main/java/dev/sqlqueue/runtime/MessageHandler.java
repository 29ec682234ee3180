package dev.sqlqueue.runtime;

import dev.sqlqueue.Delivery;

/**
 * Processes one delivery. Called by several worker threads at once, one delivery per call. A thrown
 * exception counts as {@link Outcome.Retry} with the exception's text as the error. The thread is
 * interrupted when shutdown's grace period runs out.
 */
@FunctionalInterface
public interface MessageHandler {
    Outcome handle(Delivery delivery) throws Exception;
}
