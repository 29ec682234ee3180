package dev.sqlqueue.spring;

import java.io.IOException;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.util.ClassUtils;

/**
 * Keeps Spring Boot's Flyway auto-configuration asleep in an application that has no Flyway migrations
 * of its own. The dialects bring {@code flyway-core} (they migrate sqlqueue's tables with it, under their
 * own history table {@code <prefix>schema_history}), and Spring Boot starts Flyway whenever the class is
 * present. With no migrations Flyway does nothing useful, but it refuses a schema that already holds tables
 * without its history table: an application migrating with Liquibase failed at every start with
 * {@code Found non-empty schema(s) ... but no schema history table}.
 *
 * <p>So, as a default property (any setting of the application wins): {@code spring.flyway.enabled=false}
 * when the application sets neither {@code spring.flyway.enabled} nor {@code spring.flyway.locations} and
 * its class path has nothing under {@code db/migration} (Spring Boot's default location). An application
 * with migrations there, or with locations of its own, gets Flyway as before; sqlqueue's queue is created
 * after it ({@link SqlQueueDependsOnDatabaseInitializationDetector}). Registered in
 * {@code META-INF/spring.factories}.
 */
public class SqlQueueFlywayDefaults implements EnvironmentPostProcessor {
    static final String SOURCE = "sqlqueueFlywayDefaults";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment env, SpringApplication application) {
        ClassLoader loader = application.getClassLoader();
        if (!ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)
                || env.containsProperty("spring.flyway.enabled") || env.containsProperty("spring.flyway.locations")
                || env.containsProperty("spring.flyway.locations[0]") || hasMigrations(loader)) {
            return;
        }
        env.getPropertySources().addLast(new MapPropertySource(SOURCE, Map.of("spring.flyway.enabled", "false")));
    }

    private static boolean hasMigrations(ClassLoader loader) {
        try {
            for (Resource r : new PathMatchingResourcePatternResolver(loader).getResources("classpath*:db/migration/**")) {
                String name = r.getFilename();
                if (r.isReadable() && name != null && !name.isEmpty()) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return true; // cannot tell: leave Flyway as Spring Boot configures it
        }
    }
}
