package dev.sqlqueue.spring;

import dev.sqlqueue.spi.QueueBackend;

/**
 * A bean of this type wraps the backend before the auto-configured {@link dev.sqlqueue.SqlQueue} is
 * built (metrics and tracing use it); decorators apply in {@code @Order}.
 */
@FunctionalInterface
public interface QueueBackendDecorator {
    QueueBackend decorate(QueueBackend backend);
}
