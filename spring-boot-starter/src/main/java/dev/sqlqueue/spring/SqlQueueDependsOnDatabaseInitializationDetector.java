package dev.sqlqueue.spring;

import dev.sqlqueue.SqlQueue;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes every {@link SqlQueue} bean (the auto-configured one or the application's own) depend on
 * Spring Boot's database initializers: Flyway's {@code flywayInitializer}, Liquibase's
 * {@code liquibase}, the {@code spring.sql.init} scripts. Opening a queue creates or upgrades sqlqueue's
 * tables ({@code sqlqueue.migrate}); before this, they could be created first, and the application's
 * own Flyway then refused the schema ({@code Found non-empty schema(s) "PUBLIC" but no schema history
 * table}) on the first start and on every start after it. The template, the workers and the dashboard
 * reach the database through the queue bean, so they come after the initializers too. Registered in
 * {@code META-INF/spring.factories}; Spring Boot's {@code DatabaseInitializationDependencyConfigurer}
 * (imported by {@link SqlQueueAutoConfiguration}) applies it.
 */
public class SqlQueueDependsOnDatabaseInitializationDetector extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {
    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(SqlQueue.class);
    }
}
