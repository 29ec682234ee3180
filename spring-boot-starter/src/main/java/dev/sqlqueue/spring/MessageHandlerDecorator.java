package dev.sqlqueue.spring;

import dev.sqlqueue.QueueClient;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.runtime.MessageHandler;

/**
 * A bean of this type wraps every handler the starter runs (metrics time it, tracing runs it in a span);
 * decorators apply in {@code @Order}, the first one innermost.
 */
@FunctionalInterface
public interface MessageHandlerDecorator {
    /**
     * Wraps one handler; called once per handler when its worker pool is built.
     *
     * @param client the queue client the handler's pool consumes from
     * @param queue the queue the handler consumes
     * @param handler the handler to wrap (the application's own, or one an earlier decorator returned)
     * @return the handler to run instead, which calls {@code handler}; {@code handler} itself to leave it as it is
     */
    MessageHandler decorate(QueueClient client, QueueName queue, MessageHandler handler);
}
