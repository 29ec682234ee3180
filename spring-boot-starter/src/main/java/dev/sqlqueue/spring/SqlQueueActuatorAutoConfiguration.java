package dev.sqlqueue.spring;

import dev.sqlqueue.SqlQueue;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code sqlqueue} health indicator and actuator endpoint, when Spring Boot Actuator is present. */
@AutoConfiguration(after = SqlQueueAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(SqlQueue.class)
public class SqlQueueActuatorAutoConfiguration {

    /**
     * The "sqlqueue" health indicator, unless a bean named {@code sqlqueueHealthIndicator} exists.
     *
     * @param queue the application's queue client
     * @param properties read for {@code sqlqueue.health.*}
     * @return the indicator
     */
    @Bean
    @ConditionalOnMissingBean(name = "sqlqueueHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("sqlqueue")
    public SqlQueueHealthIndicator sqlqueueHealthIndicator(SqlQueue queue, SqlQueueProperties properties) {
        return new SqlQueueHealthIndicator(queue, properties.getHealth().getOldestReadyMaxAge(),
                properties.getHealth().getOldestTransactionMaxAge());
    }

    /**
     * The {@code sqlqueue} actuator endpoint, when it is available (exposed and enabled).
     *
     * @param queue the application's queue client
     * @param properties read for {@code sqlqueue.endpoint.dead-letter-limit}
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public SqlQueueEndpoint sqlQueueEndpoint(SqlQueue queue, SqlQueueProperties properties) {
        return new SqlQueueEndpoint(queue, properties.getEndpoint().getDeadLetterLimit());
    }
}
