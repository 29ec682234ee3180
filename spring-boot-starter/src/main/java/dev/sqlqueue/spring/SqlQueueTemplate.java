package dev.sqlqueue.spring;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Enqueues in the caller's Spring transaction (the transactional outbox): inside a {@code @Transactional}
 * method whose transaction holds a connection of the queue's {@code DataSource}
 * ({@code DataSourceTransactionManager}, {@code JdbcTransactionManager}, {@code JpaTransactionManager} on
 * that DataSource), the message is inserted on that very connection, so it is visible when the
 * transaction commits and gone if it rolls back. Outside such a transaction it is enqueued and committed
 * at once. Consumers of this JVM are woken after the commit. Thread-safe.
 *
 * @see dev.sqlqueue.Producer#enqueue(Connection, QueueName, Message)
 */
public class SqlQueueTemplate {
    private final SqlQueue queue;
    private final DataSource dataSource;

    /**
     * A template on a queue client whose backend runs on {@code dataSource}.
     *
     * @param queue the queue client
     * @param dataSource the DataSource whose Spring-bound connection an enqueue joins; the one the queue runs on
     * @throws NullPointerException if either is null
     */
    public SqlQueueTemplate(SqlQueue queue, DataSource dataSource) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Enqueue {@code text} (UTF-8) on {@code queueName}; see {@link #enqueue(QueueName, Message)}.
     *
     * @param queueName the queue's name
     * @param text the payload, stored as UTF-8
     * @return the message id
     * @throws dev.sqlqueue.InvalidInputException if the name or the message breaks a rule (nothing written)
     */
    public long enqueue(String queueName, String text) {
        return enqueue(QueueName.of(queueName), Message.ofText(text));
    }

    /**
     * Enqueue in the current transaction when one is bound to the DataSource, else on its own.
     *
     * @param queueName the queue
     * @param message the message
     * @return the message id
     * @throws dev.sqlqueue.InvalidInputException if the message breaks a rule (nothing written)
     * @throws dev.sqlqueue.UnsupportedCapabilityException inside a transaction when the backend cannot
     *     enqueue on the caller's connection
     */
    public long enqueue(QueueName queueName, Message message) {
        if (!joinsTransaction()) {
            return queue.enqueue(queueName, message);
        }
        Connection c = DataSourceUtils.getConnection(dataSource);
        try {
            long id = queue.enqueue(c, queueName, message);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    queue.wakeUp(queueName);
                }
            });
            return id;
        } finally {
            DataSourceUtils.releaseConnection(c, dataSource);
        }
    }

    /**
     * Whether a Spring transaction holds a connection of this DataSource on this thread.
     *
     * @return true when an enqueue on this thread now would join a Spring transaction
     */
    public boolean joinsTransaction() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        return TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder h
                && h.isSynchronizedWithTransaction();
    }

    /**
     * The queue client behind this template.
     *
     * @return the queue client behind this template
     */
    public SqlQueue queue() {
        return queue;
    }
}
