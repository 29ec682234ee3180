package dev.sqlqueue.examples.outbox;

import dev.sqlqueue.spring.SqlQueueHandler;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Consumes the "order placed" events: ships each order (here: remembers and logs it). */
@Component
public class Shipping {
    private static final Logger LOG = LoggerFactory.getLogger(Shipping.class);
    private final List<String> shipped = new CopyOnWriteArrayList<>();

    @SqlQueueHandler(queue = OrderService.EVENTS, threads = "2")
    public void ship(String orderId) {
        shipped.add(orderId);
        LOG.info("shipped order {}", orderId);
    }

    /** The orders shipped so far, in order. */
    public List<String> shipped() {
        return List.copyOf(shipped);
    }
}
