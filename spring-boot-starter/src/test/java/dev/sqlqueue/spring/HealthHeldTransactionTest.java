package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/**
 * Issue 31, point 1: a session holding a snapshot slowed every claim and the health said nothing. The health lists the
 * oldest open transactions of the database (this test's session among them), names the oldest in
 * {@code transactionWarning} once it passes the max age (1 ms here), and stays UP.
 */
class HealthHeldTransactionTest {
    private static QueueConfig config(String db) {
        String prefix = "hh" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueConfig.Builder b = QueueConfig.builder().tablePrefix(prefix).poolSize(3);
        return switch (db) {
            case "postgresql" -> b.url("jdbc:postgresql://127.0.0.1:5432/test").user("postgres").password("").build();
            case "mariadb" -> b.url("jdbc:mariadb://127.0.0.1:3306/test").user("root").password("").build();
            default -> b.url("jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1").build();
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theHealthNamesASessionHoldingASnapshotAndStaysUp(String db) throws Exception {
        QueueConfig config = config(db);
        QueueName q = QueueName.of("health");
        try (SqlQueue queue = SqlQueue.open(config)) {
            try {
                queue.createQueue(q);
                queue.enqueue(q, Message.ofText("x"));
                try (Connection holder = DriverManager.getConnection(config.url(), config.user(), config.password())) {
                    holder.setAutoCommit(false);
                    holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    String table = db.equals("mariadb") ? "`" + config.tablePrefix() + "message`" : "\"" + config.tablePrefix() + "message\"";
                    String id;
                    try (Statement st = holder.createStatement();
                         ResultSet rs = st.executeQuery("select count(*), " + (db.equals("mariadb") ? "connection_id()" : "pg_backend_pid()")
                                 + " from " + table)) {
                        rs.next();
                        id = rs.getString(2);
                    }
                    // MariaDB gives whole seconds: wait until the holder's age reads above 0, so it passes 1 ms
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (queue.oldestTransactions(100).stream().noneMatch(t -> t.sessionId().equals(id) && t.ageMillis() > 0)
                            && System.nanoTime() < deadline) {
                        Thread.sleep(200);
                    }
                    Health health = new SqlQueueHealthIndicator(queue, Duration.ofMinutes(5), Duration.ofMillis(1)).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    @SuppressWarnings("unchecked")
                    List<Map<String, Object>> open = (List<Map<String, Object>>) health.getDetails().get("oldestTransactions");
                    assertThat(open).as(health.toString()).anySatisfy(t -> {
                        assertThat(t.get("sessionId")).isEqualTo(id);
                        assertThat(t.get("user")).isEqualTo(config.user());
                        assertThat((Long) t.get("ageMillis")).isGreaterThanOrEqualTo(0L);
                    });
                    assertThat((String) health.getDetails().get("transactionWarning")).as(health.toString())
                            .startsWith("session " + open.get(0).get("sessionId") + " (user ");
                    holder.commit();
                }
            } finally {
                queue.dropSchema();
            }
        }
    }

    @Test
    void h2ShowsNoTransactions() {
        try (SqlQueue queue = SqlQueue.open(config("h2"))) {
            Health health = new SqlQueueHealthIndicator(queue, Duration.ofMinutes(5), Duration.ofMillis(1)).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).doesNotContainKeys("oldestTransactions", "transactionWarning", "oldestTransactionsError");
        }
    }
}
