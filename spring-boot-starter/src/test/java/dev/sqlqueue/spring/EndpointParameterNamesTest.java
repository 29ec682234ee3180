package dev.sqlqueue.spring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.springframework.core.DefaultParameterNameDiscoverer;

/**
 * An actuator endpoint exposed over the web maps its {@code @Selector} parameters by name: Spring Boot reads
 * them by reflection, which needs classes compiled with {@code -parameters}. Without it, an application with
 * {@code management.endpoints.web.exposure.include=sqlqueue} (docs/spring-boot.md) failed at start with
 * "Failed to extract parameter names for ... SqlQueueEndpoint.queue(java.lang.String)"; over JMX it worked.
 */
class EndpointParameterNamesTest {
    @Test
    void theSelectorsNameIsInTheClassFile() throws Exception {
        Method queue = SqlQueueEndpoint.class.getMethod("queue", String.class);
        assertArrayEquals(new String[] {"name"}, new DefaultParameterNameDiscoverer().getParameterNames(queue));
    }
}
