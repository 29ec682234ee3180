package dev.sqlqueue.examples.outbox;

import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;

/** The example on its default database, an in-memory H2 (application.properties). */
@AutoConfigureObservability(tracing = false)
@SpringBootTest
class OutboxOnH2Test extends OutboxScenario {
}
