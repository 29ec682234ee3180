package dev.sqlqueue.spring;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Auto-configures a {@link SqlQueue} on the application's {@code DataSource} (the backend opens no pool
 * of its own and never closes the DataSource), a {@link SqlQueueTemplate} that enqueues in the caller's
 * transaction, and {@link SqlQueueWorkers} that run every {@link QueueWorker} bean and
 * {@link SqlQueueHandler} method with the context's lifecycle. {@link QueueBackendDecorator} beans
 * (metrics, tracing) wrap the backend first.
 *
 * <p>The queue bean is created after Spring Boot's database initializers (Flyway, Liquibase, SQL
 * scripts): see {@link SqlQueueDependsOnDatabaseInitializationDetector}.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({SqlQueue.class, DataSource.class})
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "sqlqueue", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SqlQueueProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class SqlQueueAutoConfiguration {

    /**
     * The queue client on the application's DataSource: the backend is opened (the schema created or upgraded
     * unless {@code sqlqueue.migrate=false}), wrapped by every {@link QueueBackendDecorator} in order, and the
     * queues of {@code sqlqueue.queues} are created. Closed with the context.
     *
     * @param dataSource the application's DataSource, which every connection of the queue comes from
     * @param properties the {@code sqlqueue.*} properties
     * @param decorators the backend decorators, applied in {@code @Order}
     * @return the open queue client
     * @throws SqlQueueException if the DataSource's URL cannot be read to choose a backend
     * @throws dev.sqlqueue.InvalidInputException if a property breaks a rule or no backend accepts the URL
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public SqlQueue sqlQueue(DataSource dataSource, SqlQueueProperties properties,
                             ObjectProvider<QueueBackendDecorator> decorators) {
        QueueConfig config = config(dataSource, properties);
        QueueBackend backend = BackendDiscovery.find(config).open(config);
        try {
            for (QueueBackendDecorator d : decorators.orderedStream().toList()) {
                backend = d.decorate(backend);
            }
            SqlQueue queue = SqlQueue.wrap(backend, config);
            properties.getQueues().forEach(n -> queue.createQueue(QueueName.of(n)));
            return queue;
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
    }

    /**
     * The queue config the properties give. Without {@code sqlqueue.backend} the backend is the one that
     * accepts the DataSource's JDBC URL; the config then carries the backend name and the DataSource but
     * no URL, so every connection (PostgreSQL's LISTEN connection included) comes from the DataSource.
     */
    static QueueConfig config(DataSource dataSource, SqlQueueProperties p) {
        String backend = blankToNull(p.getBackend());
        if (backend == null) {
            String url;
            try (Connection c = dataSource.getConnection()) {
                url = c.getMetaData().getURL();
            } catch (SQLException e) {
                throw new SqlQueueException("sqlqueue: cannot read the JDBC URL of the DataSource to choose a backend"
                        + " (set sqlqueue.backend): " + e.getMessage(), e);
            }
            backend = BackendDiscovery.find(QueueConfig.builder().url(url).build()).name();
        }
        return QueueConfig.builder().dataSource(dataSource).backend(backend)
                .tablePrefix(p.getTablePrefix()).history(p.isHistory()).migrate(p.isMigrate()).idlePollMax(p.getIdlePollMax())
                .deduplicationWindow(p.getDeduplicationWindow())
                .build();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /**
     * The template that enqueues in the current Spring transaction.
     *
     * @param queue the application's queue client
     * @param dataSource the DataSource whose bound transaction an enqueue joins
     * @return the template
     */
    @Bean
    @ConditionalOnMissingBean
    public SqlQueueTemplate sqlQueueTemplate(SqlQueue queue, DataSource dataSource) {
        return new SqlQueueTemplate(queue, dataSource);
    }

    /**
     * The post-processor that finds {@link SqlQueueHandler} methods; static, so it exists before the beans it inspects.
     *
     * @return a new registrar
     */
    @Bean
    public static SqlQueueHandlerRegistrar sqlQueueHandlerRegistrar() {
        return new SqlQueueHandlerRegistrar();
    }

    /**
     * The worker pools of every {@link QueueWorker} bean and {@link SqlQueueHandler} method, started and stopped
     * with the context; off with {@code sqlqueue.worker.enabled=false}.
     *
     * @param queue the application's queue client
     * @param properties read for {@code sqlqueue.worker.*} and {@code sqlqueue.handlers.*}
     * @param registrar the annotated methods it found
     * @param workerBeans the {@link QueueWorker} beans, read at start
     * @param decorators the handler decorators, applied in {@code @Order}
     * @return the workers, not yet started
     * @throws dev.sqlqueue.InvalidInputException naming the rule a worker property breaks
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "sqlqueue.worker", name = "enabled", matchIfMissing = true)
    public SqlQueueWorkers sqlQueueWorkers(SqlQueue queue, SqlQueueProperties properties, SqlQueueHandlerRegistrar registrar,
                                           ObjectProvider<QueueWorker> workerBeans,
                                           ObjectProvider<MessageHandlerDecorator> decorators) {
        return new SqlQueueWorkers(queue, properties.getWorker(), properties.getHandlers(), () -> {
            List<QueueWorker> all = new ArrayList<>(workerBeans.orderedStream().toList());
            all.addAll(registrar.workers());
            return all;
        }, decorators.orderedStream().toList());
    }
}
