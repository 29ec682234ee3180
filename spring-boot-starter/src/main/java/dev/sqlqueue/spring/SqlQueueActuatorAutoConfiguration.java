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

    @Bean
    @ConditionalOnMissingBean(name = "sqlqueueHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("sqlqueue")
    public SqlQueueHealthIndicator sqlqueueHealthIndicator(SqlQueue queue, SqlQueueProperties properties) {
        return new SqlQueueHealthIndicator(queue, properties.getHealth().getOldestReadyMaxAge(),
                properties.getHealth().getOldestTransactionMaxAge());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    public SqlQueueEndpoint sqlQueueEndpoint(SqlQueue queue, SqlQueueProperties properties) {
        return new SqlQueueEndpoint(queue, properties.getEndpoint().getDeadLetterLimit());
    }
}
