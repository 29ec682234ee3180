package dev.sqlqueue.runtime;

import dev.sqlqueue.Delivery;

/**
 * Processes one delivery. Called by several worker threads at once, one delivery per call. A thrown
 * exception counts as {@link Outcome.Retry} with the exception's text as the error. The thread is
 * interrupted when shutdown's grace period runs out.
 */
@FunctionalInterface
public interface MessageHandler {
    /**
     * Handles one delivery.
     *
     * @param delivery the message, with its attempt number
     * @return what to do with it: ack, retry or dead-letter; never null
     * @throws Exception for any failure, which is a retry with the exception's text as the error
     */
    Outcome handle(Delivery delivery) throws Exception;
}
