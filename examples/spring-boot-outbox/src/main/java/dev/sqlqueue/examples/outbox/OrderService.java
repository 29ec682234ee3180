package dev.sqlqueue.examples.outbox;

import dev.sqlqueue.spring.SqlQueueTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its event are written in the caller's one transaction. */
@Service
public class OrderService {
    public static final String EVENTS = "order-placed";

    private final JdbcTemplate jdbc;
    private final SqlQueueTemplate queue;

    public OrderService(JdbcTemplate jdbc, SqlQueueTemplate queue) {
        this.jdbc = jdbc;
        this.queue = queue;
        jdbc.execute("create table if not exists example_orders (id varchar(64) primary key, item varchar(200) not null)");
    }

    /**
     * Record the order and enqueue its event; when {@code item} is empty the method fails after both
     * writes, and the transaction rolls back both.
     */
    @Transactional
    public void placeOrder(String orderId, String item) {
        jdbc.update("insert into example_orders (id, item) values (?, ?)", orderId, item);
        queue.enqueue(EVENTS, orderId);
        if (item.isEmpty()) {
            throw new IllegalArgumentException("order " + orderId + " has no item");
        }
    }

    public boolean exists(String orderId) {
        return jdbc.queryForObject("select count(*) from example_orders where id = ?", Integer.class, orderId) == 1;
    }

    public void delete(String orderId) {
        jdbc.update("delete from example_orders where id = ?", orderId);
    }
}
