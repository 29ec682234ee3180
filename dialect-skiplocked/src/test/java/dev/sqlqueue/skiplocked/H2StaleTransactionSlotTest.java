package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.tx.Transaction;
import org.h2.mvstore.tx.TransactionMap;
import org.h2.mvstore.tx.TransactionStore;
import org.h2.value.Value;
import org.h2.value.ValueInteger;
import org.h2.value.ValueVarchar;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, point 5, made deterministic. H2 2.3.232's {@code ABORT_SESSION} rolls the victim's transaction back
 * and frees its slot on the killer's thread while the victim's thread may still be writing
 * ({@code SessionLocal.close} beside a running {@code Transaction.log}): an undo-log record the victim appends
 * after the rollback passed its key stays behind in the freed slot. H2 gives a new transaction the lowest free
 * slot, and its first write finds that record: "An old transaction with the same id is still open" (MVStore error
 * 102). Every write that lands in the slot fails until the database is closed, whose recovery at the next open
 * rolls the orphaned record back. {@link H2SessionKillsTest} meets this state by killing sessions; here it is made
 * directly: a transaction of H2's store writes one record to a map of its own and its slot is freed without
 * its undo log being touched (status rolled back, then {@code TransactionStore.endTransaction}: what the race amounts to).
 */
class H2StaleTransactionSlotTest {
    @TempDir
    Path dir;

    /** Frees the lowest free transaction slot of the database {@code c} is in, with a record left in its undo log. */
    static int orphanUndoRecord(Connection c) throws Exception {
        SessionLocal session = (SessionLocal) c.unwrap(JdbcConnection.class).getSession();
        TransactionStore store = session.getDatabase().getStore().getTransactionStore();
        Transaction t = store.begin();
        TransactionMap<Value, Value> map = t.openMap("sqlqueue_test_orphaned_undo");
        for (int i = 0; i < 4; i++) { // undo records 0..3
            map.put(ValueInteger.get(i), ValueVarchar.get("written by the killed session"));
        }
        // the rollback on the killer's thread undid records 0..2; record 3 was appended after its pass
        // (a record at 0 alone would be undone by the rollback of the next transaction that fails in the slot)
        Method undo = TransactionStore.class.getDeclaredMethod("rollbackTo", Transaction.class, long.class, long.class);
        undo.setAccessible(true);
        undo.invoke(store, t, 3L, 0L);
        Method status = Transaction.class.getDeclaredMethod("setStatus", int.class);
        status.setAccessible(true);
        status.invoke(t, 5); // Transaction.STATUS_ROLLED_BACK
        Method end = TransactionStore.class.getDeclaredMethod("endTransaction", Transaction.class, boolean.class);
        end.setAccessible(true);
        end.invoke(store, t, true);
        return t.getId();
    }

    @ParameterizedTest
    @EnumSource(ClaimMode.class)
    void aClaimInAStaleSlotRepairsTheDatabaseAndSucceeds(ClaimMode mode) throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("stale").toAbsolutePath() + ";WRITE_DELAY=0";
        QueueName q = QueueName.of("jobs");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(url).user("sa").password("").poolSize(4).build())) {
            queue.createQueue(q);
            queue.enqueueAll(q, List.of(Message.ofText("a"), Message.ofText("b"), Message.ofText("c")));
            try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                int slot = orphanUndoRecord(c);
                // the state of the issue: a write that gets the slot fails
                c.setAutoCommit(false);
                SQLException e = assertThrows(SQLException.class, () -> {
                    try (Statement st = c.createStatement()) {
                        st.executeUpdate("update \"sqlq_message\" set priority = priority");
                    }
                });
                assertTrue(e.getMessage().contains("An old transaction with the same id is still open: " + slot), e.getMessage());
                c.rollback();
            }
            List<Delivery> got = queue.consume(q, ConsumeRequest.of(3).withMode(mode));
            assertEquals(3, got.size(), mode + ": the claim succeeds after the repair");
            queue.ackAll(got.stream().map(Delivery::receipt).toList());
            assertEquals(0, queue.stats(q).depth());
            // and the store takes writes in every slot again
            queue.enqueue(q, Message.ofText("d"));
            try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                st.executeUpdate("update \"sqlq_message\" set priority = priority");
                c.commit();
            }
            assertEquals(1, queue.stats(q).depth());
            try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                assertEquals(List.of(0, 1, 2, 3).stream().map(i -> (Object) null).toList(), orphanedValues(c),
                        "the orphaned write was rolled back, as the rollback of the killed session should have");
            }
        }
        // the database closed cleanly with the pool (a close with the slot stale fails in it and keeps the file
        // locked: every later open then fails with "Database may be already in use")
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.executeUpdate("update \"sqlq_message\" set priority = priority");
            c.commit();
        }
    }

    /** The values of keys 0..3 of the test's map, as a new transaction reads them. */
    private static List<Object> orphanedValues(Connection c) throws Exception {
        SessionLocal session = (SessionLocal) c.unwrap(JdbcConnection.class).getSession();
        Transaction t = session.getDatabase().getStore().getTransactionStore().begin();
        try {
            TransactionMap<Value, Value> map = t.openMap("sqlqueue_test_orphaned_undo");
            List<Object> out = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                out.add(map.get(ValueInteger.get(i)));
            }
            return out;
        } finally {
            t.rollback();
        }
    }
}
