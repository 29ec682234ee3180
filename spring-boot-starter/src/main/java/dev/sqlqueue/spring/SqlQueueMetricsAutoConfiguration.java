package dev.sqlqueue.spring;

import dev.sqlqueue.micrometer.SqlQueueMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * Binds the meters of sqlqueue-micrometer to the application's {@link MeterRegistry} when both are
 * present: the auto-configured queue is metered and every handler the starter runs is timed.
 */
@AutoConfiguration(before = SqlQueueAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({SqlQueueMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "sqlqueue.metrics", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SqlQueueProperties.class)
public class SqlQueueMetricsAutoConfiguration {

    /**
     * The queue's meters; an enqueue in a Spring transaction is counted at its commit.
     *
     * @param registry where the meters are registered
     * @param properties read for {@code sqlqueue.metrics.stats-interval}
     * @return the metrics
     */
    @Bean
    @ConditionalOnMissingBean
    public SqlQueueMetrics sqlQueueMetrics(MeterRegistry registry, SqlQueueProperties properties) {
        // an enqueue in a Spring transaction counts at its commit, never when it rolled back
        return SqlQueueMetrics.of(registry).withStatsInterval(properties.getMetrics().getStatsInterval())
                .withCommitHook(new SpringTransactionCommitHook());
    }

    /**
     * Meters every backend call (order 0: inside the tracing decorator).
     *
     * @param metrics the queue's meters
     * @return the decorator
     */
    @Bean
    @Order(0)
    public QueueBackendDecorator sqlQueueMetricsBackendDecorator(SqlQueueMetrics metrics) {
        return metrics::instrument;
    }

    /**
     * Times every handler (order 0: inside the tracing decorator).
     *
     * @param metrics the queue's meters
     * @return the decorator
     */
    @Bean
    @Order(0)
    public MessageHandlerDecorator sqlQueueMetricsHandlerDecorator(SqlQueueMetrics metrics) {
        return metrics::timed;
    }
}
