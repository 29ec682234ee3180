package dev.sqlqueue.spring;

import dev.sqlqueue.Capability;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * UP when the database answers and no queue is stalled; DOWN when the database cannot be reached or the
 * oldest ready message of some queue is older than {@code sqlqueue.health.oldest-ready-max-age} (no
 * consumer takes it). Details: backend, server version, and per queue ready, in flight, delayed, dead
 * letters and the age in ms of the oldest ready message. One {@code stats()} per queue per check.
 *
 * <p>On backends with {@link Capability#OLDEST_TRANSACTIONS} (PostgreSQL, MariaDB) also the detail
 * {@code oldestTransactions}: up to 5 sessions of the database with a transaction open, oldest first (session id,
 * user, application, client, state, age in ms, the start of the query, the clean-up backlog), and, when the oldest is
 * at least {@code sqlqueue.health.oldest-transaction-max-age} old, {@code transactionWarning} naming it. Such a
 * transaction slows every claim (issue 31) but is not this application's failure, so the status stays UP: DOWN or
 * OUT_OF_SERVICE would take the application out of its load balancer, and Spring Boot's status aggregator ignores
 * a status it does not know. A read of the open transactions that fails (no privilege) gives the detail
 * {@code oldestTransactionsError} and changes nothing else.
 */
public class SqlQueueHealthIndicator extends AbstractHealthIndicator {
    /** Sessions listed in the detail {@code oldestTransactions}. */
    static final int TRANSACTIONS_SHOWN = 5;

    private final SqlQueue queue;
    private final Duration maxAge;
    private final Duration transactionMaxAge;

    /**
     * With {@code sqlqueue.health.oldest-transaction-max-age}'s default, 60 s.
     *
     * @param queue the queue client whose queues are checked
     * @param oldestReadyMaxAge a queue whose oldest ready message is older than this is reported stalled (DOWN)
     */
    public SqlQueueHealthIndicator(SqlQueue queue, Duration oldestReadyMaxAge) {
        this(queue, oldestReadyMaxAge, Duration.ofSeconds(60));
    }

    /**
     * An indicator with both thresholds.
     *
     * @param queue the queue client whose queues are checked
     * @param oldestReadyMaxAge a queue whose oldest ready message is older than this is reported stalled (DOWN)
     * @param oldestTransactionMaxAge an open transaction of the database this old or older is named in
     *     {@code transactionWarning} (the status stays UP)
     */
    public SqlQueueHealthIndicator(SqlQueue queue, Duration oldestReadyMaxAge, Duration oldestTransactionMaxAge) {
        super("sqlqueue health check failed");
        this.queue = queue;
        this.maxAge = oldestReadyMaxAge;
        this.transactionMaxAge = oldestTransactionMaxAge;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<QueueName> names = queue.queues();
        Map<String, Object> queues = new LinkedHashMap<>();
        List<String> stalled = new java.util.ArrayList<>();
        for (QueueName n : names) {
            QueueStats s;
            try {
                s = queue.stats(n);
            } catch (dev.sqlqueue.InvalidInputException e) {
                if (!"queue.exists".equals(e.rule())) {
                    throw e;
                }
                continue; // dropped since it was listed: not a reason to report the database down
            }
            queues.put(n.value(), SqlQueueEndpoint.stats(s));
            if (s.oldestReadyAgeMillis() > maxAge.toMillis()) {
                stalled.add(n.value());
            }
        }
        builder.withDetail("backend", queue.capabilities().backend())
                .withDetail("server", queue.serverVersion())
                .withDetail("queues", queues);
        if (queue.capabilities().has(Capability.OLDEST_TRANSACTIONS)) {
            transactions(builder);
        }
        if (stalled.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("stalled", stalled)
                    .withDetail("oldestReadyMaxAgeMillis", maxAge.toMillis());
        }
    }

    private void transactions(Health.Builder builder) {
        List<OpenTransaction> open;
        try {
            open = queue.oldestTransactions(TRANSACTIONS_SHOWN);
        } catch (RuntimeException e) {
            builder.withDetail("oldestTransactionsError", String.valueOf(e.getMessage()));
            return;
        }
        List<Map<String, Object>> shown = new java.util.ArrayList<>();
        for (OpenTransaction t : open) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sessionId", t.sessionId());
            m.put("user", t.user());
            m.put("applicationName", t.applicationName());
            m.put("clientAddress", t.clientAddress());
            m.put("state", t.state());
            m.put("ageMillis", t.ageMillis());
            m.put("query", t.query());
            m.put("cleanupBacklog", t.cleanupBacklog());
            shown.add(m);
        }
        builder.withDetail("oldestTransactions", shown);
        if (!open.isEmpty() && open.get(0).ageMillis() >= transactionMaxAge.toMillis()) {
            builder.withDetail("transactionWarning", open.get(0).describe() + "; while it stays open the database cannot"
                    + " clean up the queue's dead row versions and claims slow down")
                    .withDetail("oldestTransactionMaxAgeMillis", transactionMaxAge.toMillis());
        }
    }
}
