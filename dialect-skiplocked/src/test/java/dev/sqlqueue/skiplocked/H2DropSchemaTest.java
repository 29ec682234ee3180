package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dropSchema} on H2 while another backend's transactional claim holds rows of the prefix. H2 2.3.232
 * takes no table lock for {@code SELECT ... FOR UPDATE} (a transactional claim's only hold on its rows), so
 * {@code DROP TABLE} does not wait for the claim; when the claim's transaction then ends, H2 replays its undo
 * log against the dropped table and the whole database file fails with "MVStoreException: Unable to read
 * the page" (the conformance kit's clean-up met it in CI on 2026-12-01; cf. h2database #3695). The drop must
 * wait for the claim and leave the database readable.
 */
class H2DropSchemaTest {
    @TempDir
    Path dir;

    private QueueConfig config(String prefix, boolean migrate) {
        return QueueConfig.builder().url("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath() + ";LOCK_TIMEOUT=20000")
                .user("sa").password("").tablePrefix(prefix).migrate(migrate).build();
    }

    @Test
    void dropSchemaWaitsForAnotherBackendsTransactionalClaimAndTheDatabaseStaysReadable() throws Exception {
        QueueName q = QueueName.of("jobs");
        try (SqlQueue holder = SqlQueue.open(config("dropped_", true));
             SqlQueue other = SqlQueue.open(config("kept_", true))) {
            holder.createQueue(q);
            List<Message> batch = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                batch.add(Message.ofText("m" + i));
            }
            holder.enqueueAll(q, batch);
            List<Delivery> held = holder.consume(q, ConsumeRequest.of(50).withMode(ClaimMode.TRANSACTIONAL));
            assertEquals(50, held.size());

            AtomicReference<Throwable> dropFailure = new AtomicReference<>();
            Thread drop = new Thread(() -> {
                try (SqlQueue dropper = SqlQueue.open(config("dropped_", false))) {
                    dropper.dropSchema();
                } catch (Throwable e) {
                    dropFailure.set(e);
                }
            }, "dropper");
            drop.start();
            drop.join(1500);
            boolean droppedUnderTheClaim = !drop.isAlive();

            // other work on the same file, then the claim ends (its ack commits the claim's transaction)
            other.createQueue(q);
            for (int i = 0; i < 20; i++) {
                other.enqueueAll(q, batch);
            }
            holder.ackAll(held.stream().map(Delivery::receipt).toList());
            drop.join(TimeUnit.SECONDS.toMillis(30));

            assertEquals(40_000, readable(), "the database stays readable: the other prefix's messages");
            assertNull(dropFailure.get(), "dropSchema failed: " + dropFailure.get());
            assertTrue(!drop.isAlive(), "dropSchema ended once the claim had");
            assertTrue(!droppedUnderTheClaim, "dropSchema waits while a transactional claim holds rows of the prefix");
        }
        // and after a reopen of the file
        assertEquals(40_000, readable());
    }

    private int readable() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("db").toAbsolutePath(), "sa", "");
             Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery(
                    "select count(*) from information_schema.tables where table_name like 'dropped\\_%'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "no table of the dropped prefix is left");
            }
            try (ResultSet rs = st.executeQuery("select count(*) from \"kept_message\"")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
