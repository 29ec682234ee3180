package dev.sqlqueue.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.OpenTransaction;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 31, point 1: a session holding a snapshot slowed every claim and no metric showed it. The gauge
 * {@value SqlQueueMeters#OLDEST_TRANSACTION_AGE} reads the age of the oldest transaction open on the database, so while
 * a test session holds one it reads at least that session's age as the database reported it before.
 */
class OldestTransactionGaugeTest {
    private static final QueueName Q = QueueName.of("gauged");

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void theGaugeReadsAtLeastTheAgeOfASessionHoldingASnapshot(String db) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QueueConfig config = Databases.config(db);
        try (SqlQueue q = SqlqueueOpen.open(registry, config)) {
            try {
                q.createQueue(Q);
                q.enqueue(Q, Message.ofText("x"));
                try (Connection holder = DriverManager.getConnection(config.url(), config.user(), config.password())) {
                    holder.setAutoCommit(false);
                    holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    String id;
                    String table = db.equals("mariadb") ? "`" + config.tablePrefix() + "message`" : "\"" + config.tablePrefix() + "message\"";
                    try (Statement st = holder.createStatement();
                         ResultSet rs = st.executeQuery("select count(*), " + (db.equals("mariadb") ? "connection_id()" : "pg_backend_pid()")
                                 + " from " + table)) {
                        rs.next();
                        id = rs.getString(2);
                    }
                    // the database's own view of the holder, then a later sample can only read as much or more
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    OpenTransaction seen = null;
                    while (System.nanoTime() < deadline && (seen == null || seen.ageMillis() == 0)) {
                        seen = q.oldestTransactions(100).stream().filter(t -> t.sessionId().equals(id)).findFirst().orElse(null);
                        Thread.sleep(300); // MariaDB's INNODB_TRX refreshes only after 0.1 s without a read
                    }
                    assertNotNull(seen, "the holder is reported");
                    assertTrue(seen.ageMillis() > 0, seen.toString());
                    double minSeconds = seen.ageMillis() / 1000.0;
                    TimeGauge gauge = null;
                    while (System.nanoTime() < deadline) {
                        gauge = registry.find(SqlQueueMeters.OLDEST_TRANSACTION_AGE).tag(SqlQueueMeters.TAG_BACKEND, db).timeGauge();
                        if (gauge != null && gauge.value(TimeUnit.SECONDS) >= minSeconds) {
                            break;
                        }
                        Thread.sleep(100);
                    }
                    assertNotNull(gauge, "the gauge is registered");
                    assertTrue(gauge.value(TimeUnit.SECONDS) >= minSeconds, gauge.value(TimeUnit.SECONDS) + " s, at least " + seen);
                    holder.commit();
                }
            } finally {
                q.dropSchema();
            }
        }
        assertNull(registry.find(SqlQueueMeters.OLDEST_TRANSACTION_AGE).timeGauge(), "closing the queue removes the gauge");
    }

    @Test
    void h2HasNoSuchGauge() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (SqlQueue q = SqlqueueOpen.open(registry, Databases.config("h2"))) {
            q.createQueue(Q);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (registry.find(SqlQueueMeters.READY).gauge() == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertNotNull(registry.find(SqlQueueMeters.READY).gauge(), "a sample ran");
            assertNull(registry.find(SqlQueueMeters.OLDEST_TRANSACTION_AGE).timeGauge());
            assertEquals(0, registry.find(SqlQueueMeters.OLDEST_TRANSACTION_AGE).meters().size());
        }
    }

    /** A metered queue sampling every 50 ms. */
    static final class SqlqueueOpen {
        static SqlQueue open(SimpleMeterRegistry registry, QueueConfig config) {
            return SqlQueueMetrics.of(registry).withStatsInterval(Duration.ofMillis(50)).open(config);
        }
    }
}
