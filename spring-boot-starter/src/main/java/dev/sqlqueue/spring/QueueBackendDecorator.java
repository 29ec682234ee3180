package dev.sqlqueue.spring;

import dev.sqlqueue.spi.QueueBackend;

/**
 * A bean of this type wraps the backend before the auto-configured {@link dev.sqlqueue.SqlQueue} is
 * built (metrics and tracing use it); decorators apply in {@code @Order}.
 */
@FunctionalInterface
public interface QueueBackendDecorator {
    /**
     * Wraps the backend; called once, when the auto-configured {@link dev.sqlqueue.SqlQueue} is created.
     *
     * @param backend the backend opened for the DataSource, or the one an earlier decorator returned
     * @return the backend to use instead, which delegates to {@code backend}
     */
    QueueBackend decorate(QueueBackend backend);
}
