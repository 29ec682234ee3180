package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL, option {@code postgresql.vacuum-every}: the backend vacuums its message table by itself (for
 * servers where autovacuum does not), and a bad value is refused at open, naming the option, before anything
 * reaches the database.
 */
class PostgresVacuumOnServerTest {
    private static QueueConfig.Builder config(String prefix) {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        return QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix).poolSize(3);
    }

    @Test
    void theMessageTableIsVacuumedAtTheIntervalAndItsDeadRowsAreGone() throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(SkipLockedDialect.POSTGRES);
        String prefix = "pv" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
        QueueName q = QueueName.of("pv");
        try (SqlQueue queue = SqlQueue.open(config(prefix).option(PostgresOptions.VACUUM_EVERY, "1s").build());
             Connection stats = DriverManager.getConnection(s.url(), s.user(), s.password())) {
            try {
                // autovacuum must not be the one that vacuums it (it is off on this machine's server, on
                // for others): off for this table
                try (Statement st = stats.createStatement()) {
                    st.execute("alter table \"" + prefix + "message\" set (autovacuum_enabled = false)");
                }
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    batch.add(Message.ofText("m" + i));
                }
                queue.enqueueAll(q, batch);
                List<Receipt> receipts = new ArrayList<>();
                for (Delivery d : queue.consume(q, ConsumeRequest.of(500).withLease(Duration.ofMinutes(1)))) {
                    receipts.add(d.receipt());
                }
                assertEquals(500, receipts.size());
                assertTrue(queue.ackAll(receipts).isEmpty());
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                long vacuums = 0;
                long dead = -1;
                while (System.nanoTime() < deadline) {
                    Thread.sleep(500);
                    try (PreparedStatement ps = stats.prepareStatement(
                            "select vacuum_count, autovacuum_count, n_dead_tup from pg_stat_user_tables where relname = ?")) {
                        ps.setString(1, prefix + "message");
                        try (ResultSet rs = ps.executeQuery()) {
                            assertTrue(rs.next());
                            vacuums = rs.getLong(1);
                            assertEquals(0, rs.getLong(2), "autovacuum ran on the table");
                            dead = rs.getLong(3);
                        }
                    }
                    if (vacuums >= 2 && dead == 0) {
                        break;
                    }
                }
                assertTrue(vacuums >= 2, "VACUUM runs seen: " + vacuums);
                assertEquals(0, dead, "dead rows left after " + vacuums + " vacuums");
            } finally {
                queue.dropSchema();
            }
        }
    }

    @Test
    void aBadIntervalIsRefusedAtOpenNamingTheOption() {
        for (String bad : new String[] {"500ms", "25h", "60", "often", "-1m", "PT0S"}) {
            String prefix = "pb" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
            InvalidInputException e = assertThrows(InvalidInputException.class,
                    () -> SqlQueue.open(config(prefix).option(PostgresOptions.VACUUM_EVERY, bad).build()).close(), bad);
            assertEquals(PostgresOptions.VACUUM_EVERY, e.rule(), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertEquals(Duration.ofMinutes(1), PostgresOptions.from(QueueConfig.builder().url("jdbc:postgresql://h/d")
                .option(PostgresOptions.VACUUM_EVERY, "PT1M").build()).vacuumEvery());
        assertEquals(null, PostgresOptions.from(QueueConfig.builder().url("jdbc:postgresql://h/d")
                .option(PostgresOptions.VACUUM_EVERY, "off").build()).vacuumEvery());
    }
}
