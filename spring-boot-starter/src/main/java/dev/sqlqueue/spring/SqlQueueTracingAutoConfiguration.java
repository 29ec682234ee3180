package dev.sqlqueue.spring;

import dev.sqlqueue.opentelemetry.SqlQueueTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * Traces the auto-configured queue with the application's {@link OpenTelemetry} when sqlqueue-opentelemetry
 * and an OpenTelemetry bean are present: enqueues carry the W3C {@code traceparent} header and every
 * handler the starter runs continues the producer's trace. Without them nothing changes.
 */
@AutoConfiguration(before = SqlQueueAutoConfiguration.class,
        afterName = "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration")
@ConditionalOnClass({SqlQueueTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
@ConditionalOnProperty(prefix = "sqlqueue.tracing", name = "enabled", matchIfMissing = true)
public class SqlQueueTracingAutoConfiguration {

    /**
     * The queue's tracing on the application's OpenTelemetry.
     *
     * @param openTelemetry the application's OpenTelemetry
     * @return the tracing
     */
    @Bean
    @ConditionalOnMissingBean
    public SqlQueueTracing sqlQueueTracing(OpenTelemetry openTelemetry) {
        return SqlQueueTracing.of(openTelemetry);
    }

    /**
     * Outside the metrics decorator: the send span covers the metered call.
     *
     * @param tracing the queue's tracing
     * @return the decorator that runs enqueues in send spans and adds the traceparent header
     */
    @Bean
    @Order(10)
    public QueueBackendDecorator sqlQueueTracingBackendDecorator(SqlQueueTracing tracing) {
        return tracing::instrument;
    }

    /**
     * Outside the handler timer: the process span is current while the timed handler runs.
     *
     * @param tracing the queue's tracing
     * @return the decorator that runs each handler in a process span continuing the message's trace
     */
    @Bean
    @Order(10)
    public MessageHandlerDecorator sqlQueueTracingHandlerDecorator(SqlQueueTracing tracing) {
        return tracing::traced;
    }
}
