package dev.sqlqueue.skiplocked;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.h2.engine.IsolationLevel;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.tx.Transaction;
import org.h2.mvstore.tx.TransactionStore;

/**
 * The part of {@link H2StaleSlots} that reaches into H2 2.3.232's transaction store (embedded databases only); loaded
 * only on H2. It takes the stale slot with a transaction of its own and rolls the orphaned undo records back through
 * it, as H2's recovery does at the next open ({@code TransactionStore.rollbackTo} over the log ids the orphans hold),
 * then ends that transaction, which frees the slot with an empty undo log. The rows the killed session had written
 * get their committed values back, as its rollback should have given them. Two members are not public in H2
 * ({@code TransactionStore.undoLogs}, {@code TransactionStore.rollbackTo}); a version without them is reported as
 * {@link #UNAVAILABLE}.
 */
final class H2TransactionSlots {
    /** The session is not embedded (a server URL), or this H2 lacks the members used. */
    static final int UNAVAILABLE = -1;
    /** Another transaction holds the slot now: try again shortly. */
    static final int BUSY = -2;
    private static final long LOG_ID_MASK = (1L << 40) - 1; // TransactionStore.LOG_ID_BITS

    private H2TransactionSlots() {
    }

    /**
     * The slots that are free but whose undo log holds records: stale, or (read while a transaction began in one)
     * about to be used; {@link #repair} tells them apart by taking the slot. Empty when unavailable.
     */
    static List<Integer> candidates(Connection c) throws Exception {
        Session session = c.unwrap(JdbcConnection.class).getSession();
        if (!(session instanceof SessionLocal local)) {
            return List.of();
        }
        TransactionStore store = local.getDatabase().getStore().getTransactionStore();
        BitSet open;
        MVMap<?, ?>[] undoLogs;
        try {
            Field openField = TransactionStore.class.getDeclaredField("openTransactions");
            openField.setAccessible(true);
            open = (BitSet) ((AtomicReference<?>) openField.get(store)).get();
            Field undoLogsField = TransactionStore.class.getDeclaredField("undoLogs");
            undoLogsField.setAccessible(true);
            undoLogs = (MVMap<?, ?>[]) undoLogsField.get(store);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (int slot = 1; slot < undoLogs.length; slot++) {
            MVMap<?, ?> undo = undoLogs[slot];
            if (undo != null && !open.get(slot) && !undo.isEmpty()) {
                out.add(slot);
            }
        }
        return out;
    }

    /**
     * Rolls back what the undo log of the free slot {@code slot} holds; returns the number of records undone (0: the
     * slot was clean), {@link #BUSY} or {@link #UNAVAILABLE}.
     */
    static int repair(Connection c, int slot) throws Exception {
        Session session = c.unwrap(JdbcConnection.class).getSession();
        if (!(session instanceof SessionLocal local)) {
            return UNAVAILABLE;
        }
        Field undoLogsField;
        Method rollbackTo;
        try {
            undoLogsField = TransactionStore.class.getDeclaredField("undoLogs");
            undoLogsField.setAccessible(true);
            rollbackTo = TransactionStore.class.getDeclaredMethod("rollbackTo", Transaction.class, long.class, long.class);
            rollbackTo.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return UNAVAILABLE;
        }
        TransactionStore store = local.getDatabase().getStore().getTransactionStore();
        // H2 gives a new transaction the lowest free slot: the lower free slots are held until the stale one is reached
        List<Transaction> below = new ArrayList<>();
        try {
            while (true) {
                Transaction t = store.begin(local, 0, local.getId(), IsolationLevel.READ_COMMITTED);
                if (t.getId() < slot) {
                    below.add(t);
                    continue;
                }
                if (t.getId() > slot) {
                    t.rollback(); // nothing written: just frees it
                    return BUSY;
                }
                try {
                    MVMap<?, ?> undo = ((MVMap<?, ?>[]) undoLogsField.get(store))[slot];
                    Object last = undo == null ? null : undo.lastKey();
                    if (last == null) {
                        return 0;
                    }
                    int records = undo.size();
                    rollbackTo.invoke(store, t, (((Long) last) & LOG_ID_MASK) + 1, 0L);
                    return records;
                } finally {
                    t.rollback(); // log id 0: ends the transaction and frees the slot
                }
            }
        } finally {
            below.forEach(Transaction::rollback);
        }
    }
}
