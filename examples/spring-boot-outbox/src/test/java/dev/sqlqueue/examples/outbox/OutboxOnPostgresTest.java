package dev.sqlqueue.examples.outbox;

import org.junit.jupiter.api.AfterEach;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The example on the PostgreSQL server of every project machine (127.0.0.1:5432, database test), on a
 * table prefix of its own that is dropped afterwards (and the context with it).
 */
@AutoConfigureObservability(tracing = false)
@SpringBootTest(properties = {
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "spring.datasource.password=",
        "sqlqueue.table-prefix=ex${random.int[100000,999999]}_"})
@DirtiesContext
class OutboxOnPostgresTest extends OutboxScenario {
    @AfterEach
    void dropSchema() {
        dropQueueSchema();
    }
}
