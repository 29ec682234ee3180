package dev.sqlqueue.compat.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.micrometer.SqlQueueMeters;
import dev.sqlqueue.spring.SqlQueueTemplate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * sqlqueue in an application whose parent is spring-boot-starter-parent 3.5.7: Spring Boot's versions of
 * Flyway, HikariCP, H2, Micrometer and OpenTelemetry are the ones on the class path (checked first, so that
 * the test cannot pass on sqlqueue's own versions), and the starter migrates, enqueues, runs its handler,
 * counts and traces with them.
 */
@SpringBootTest
class SpringBootManagedVersionsTest {
    @Autowired
    SqlQueueTemplate template;
    @Autowired
    SqlQueue queue;
    @Autowired
    CompatApplication.Recorder recorder;
    @Autowired
    MeterRegistry registry;
    @Autowired
    InMemorySpanExporter spans;
    @Autowired
    org.springframework.context.ApplicationContext context;

    /** The version in the name of the jar that holds {@code type}, as a Maven repository names it. */
    private static String jarVersion(Class<?> type, String artifact) {
        String jar = type.getProtectionDomain().getCodeSource().getLocation().getPath();
        String name = jar.substring(jar.lastIndexOf('/') + 1);
        assertTrue(name.startsWith(artifact + "-") && name.endsWith(".jar"), type + " comes from " + jar);
        return name.substring(artifact.length() + 1, name.length() - ".jar".length());
    }

    @Test
    void theClassPathHoldsSpringBootsVersions() {
        assertEquals(System.getProperty("expected.flyway"), jarVersion(Flyway.class, "flyway-core"));
        assertEquals(System.getProperty("expected.micrometer"), jarVersion(MeterRegistry.class, "micrometer-core"));
        assertEquals(System.getProperty("expected.opentelemetry"), jarVersion(OpenTelemetry.class, "opentelemetry-api"));
        assertEquals(System.getProperty("expected.hikaricp"), jarVersion(HikariDataSource.class, "HikariCP"));
        assertEquals(System.getProperty("expected.h2"), jarVersion(org.h2.Driver.class, "h2"));
    }

    @Test
    void theStarterEnqueuesHandlesCountsAndTracesWithThem() throws Exception {
        long id = template.enqueue("compat", "hello");
        assertTrue(id > 0);
        await(() -> recorder.seen().contains("hello"), "the handler received the message");
        await(() -> counter(SqlQueueMeters.ACKED) >= 1, "the ack was counted");
        assertEquals(1.0, counter(SqlQueueMeters.ENQUEUED));
        await(() -> queue.stats(QueueName.of("compat")).depth() == 0, "the message is gone");

        await(() -> names().containsAll(List.of("send compat", "process compat")), "both spans ended: " + names());
        List<SpanData> done = spans.getFinishedSpanItems();
        String sendTrace = done.stream().filter(s -> s.getName().equals("send compat")).findFirst().orElseThrow().getTraceId();
        assertTrue(done.stream().anyMatch(s -> s.getName().equals("process compat") && s.getTraceId().equals(sendTrace)),
                "the handler's span continues the enqueue's trace: " + done);

        HealthIndicator health = context.getBean("sqlqueueHealthIndicator", HealthIndicator.class);
        assertEquals(Status.UP, health.health().getStatus(), String.valueOf(health.health().getDetails()));
    }

    private double counter(String name) {
        Counter c = registry.find(name).tag(SqlQueueMeters.TAG_QUEUE, "compat").counter();
        return c == null ? 0 : c.count();
    }

    private List<String> names() {
        return spans.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
