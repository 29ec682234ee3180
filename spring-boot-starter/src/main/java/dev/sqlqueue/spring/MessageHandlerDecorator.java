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
    MessageHandler decorate(QueueClient client, QueueName queue, MessageHandler handler);
}
