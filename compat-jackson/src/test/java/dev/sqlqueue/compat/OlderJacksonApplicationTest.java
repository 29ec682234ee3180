package dev.sqlqueue.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application whose Jackson is pinned at the version Spring Boot 3.5 and JobRunr 8.7 bring (2.19):
 * it uses Jackson itself and opens sqlqueue on H2, which migrates its schema with Flyway. Before the fix
 * the first {@code SqlQueue.open} failed with {@code NoClassDefFoundError:
 * com/fasterxml/jackson/annotation/JsonSerializeAs} (Flyway 12's Jackson 3 needs jackson-annotations 2.21).
 */
class OlderJacksonApplicationTest {
    @TempDir
    Path dir;

    @Test
    void anApplicationOnJackson219OpensAQueue() throws Exception {
        String jackson = com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString();
        String annotations = com.fasterxml.jackson.annotation.JsonProperty.class.getPackage().getImplementationVersion();
        assertEquals(System.getProperty("app.jackson.version", "2.19.2"), jackson, "the application's Jackson is on the class path");
        System.out.println("jackson-databind " + jackson + ", jackson-annotations " + annotations);

        ObjectMapper json = new ObjectMapper();
        QueueName jobs = QueueName.of("jobs");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.ofUrl("jdbc:h2:file:" + dir.resolve("app")))) {
            queue.createQueue(jobs);
            queue.enqueue(jobs, Message.ofText(json.writeValueAsString(Map.of("invoice", 42))));
            List<Delivery> got = queue.consume(jobs, ConsumeRequest.of(1));
            assertEquals(1, got.size());
            assertEquals(42, json.readTree(got.get(0).text()).get("invoice").asInt());
            queue.ack(got.get(0).receipt());
            assertEquals(0, queue.stats(jobs).depth());
        }
    }
}
