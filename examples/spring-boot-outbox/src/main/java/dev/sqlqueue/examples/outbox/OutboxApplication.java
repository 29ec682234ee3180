package dev.sqlqueue.examples.outbox;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A shop that records an order and enqueues an "order placed" event in one transaction (the
 * transactional outbox): the event exists exactly when the order does. Run it with
 * {@code mvn -pl examples/spring-boot-outbox -am spring-boot:run} or from the tests.
 */
@SpringBootApplication
public class OutboxApplication {
    public static void main(String[] args) {
        SpringApplication.run(OutboxApplication.class, args);
    }
}
