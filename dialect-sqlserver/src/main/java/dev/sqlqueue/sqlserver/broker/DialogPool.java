package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pooled dialogs of one queue in this process. A sender borrows one dialog for the whole of its
 * transaction (every SEND locks its conversation until commit, so concurrent senders need a dialog
 * each) and gives it back after commit; dialogs are reused across sends, never one per message.
 * Idle dialogs are lent round robin (first returned, first lent again): consecutive sends of one
 * thread rotate over every pooled dialog, so they reach the target on as many conversation groups,
 * which consumers can RECEIVE in parallel (a RECEIVE locks one group: "RECEIVE (Transact-SQL)",
 * Remarks). Consumer parallelism is at most the number of dialogs that carry messages.
 *
 * <p>The pool also lives in the prefix's {@code bk_dialogs} table, so several processes share it: each
 * process owns the rows it created or adopted ({@code owner_id}); on close it gives them back and another
 * process adopts them with their age. When the pool is short it first adopts released rows, then
 * begins new dialogs with {@link DialogStatements#fillDialogs} using the spread factor (1 = off; 150 =
 * the 150 trick of seed 000). A dialog due by age or message count is recycled by the sender with the
 * end-of-stream message; a dialog that failed or received an Error is discarded and replaced, never
 * lent again.
 *
 * <p>Ages are read from the database clock when a dialog is created or adopted and then advanced with
 * the JVM's monotonic clock ({@link System#nanoTime()}), which measures elapsed time only.
 *
 * <p>Thread-safe.
 */
public final class DialogPool {
    private static final Logger LOG = LoggerFactory.getLogger(DialogPool.class);

    /** A borrowed or idle dialog. Its counters are touched only by the thread that holds it. */
    public static final class Dialog {
        private final UUID handle;
        private final long bornNanos;
        private long sends;

        Dialog(UUID handle, long ageMillis) {
            this.handle = handle;
            this.bornNanos = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(ageMillis);
        }

        /** @return the dialog's conversation handle */
        public UUID handle() {
            return handle;
        }

        /** @return SENDs counted on the dialog so far */
        public long sends() {
            return sends;
        }

        long ageSeconds() {
            return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - bornNanos);
        }
    }

    private final QueueName queue;
    private final DataSource ds;
    private final BrokerStatements sql;
    private final BrokerOptions options;
    private final String owner;
    private final LinkedBlockingDeque<Dialog> free = new LinkedBlockingDeque<>();
    private final Set<UUID> invalid = ConcurrentHashMap.newKeySet();
    private final Set<UUID> known = ConcurrentHashMap.newKeySet();
    private final Object fillLock = new Object();
    private int open;
    private boolean everOwned;

    /**
     * @param queue the queue whose dialogs the pool lends
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param options the backend's options
     * @param owner this process's owner id (a UUID string) in the dialogs table
     */
    public DialogPool(QueueName queue, DataSource ds, BrokerStatements sql, BrokerOptions options, String owner) {
        this.queue = queue;
        this.ds = ds;
        this.sql = sql;
        this.options = options;
        this.owner = owner;
    }

    /**
     * Dialogs this pool owns (idle plus lent).
     *
     * @return dialogs this pool owns (idle plus lent)
     */
    public synchronized int open() {
        return open;
    }

    /**
     * Borrows a dialog, filling the pool when it is short, or waiting up to
     * {@link BrokerOptions#sendWaitMillis()} when every dialog is lent.
     *
     * @return a dialog lent to the caller until {@link #giveBack}, {@link #retired} or {@link #discard}
     * @throws TransientBackendException if none became free in time
     * @throws SQLException if filling fails
     */
    public Dialog acquire() throws SQLException {
        Dialog d = pollValid();
        if (d != null) {
            return d;
        }
        synchronized (fillLock) {
            d = pollValid();
            if (d != null) {
                return d;
            }
            int missing;
            synchronized (this) {
                missing = options.dialogPoolSize() - open;
            }
            if (missing > 0) {
                fill(missing);
                d = pollValid();
                if (d != null) {
                    return d;
                }
            }
        }
        try {
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.sendWaitMillis());
            while (true) {
                long left = until - System.nanoTime();
                d = left > 0 ? free.poll(left, TimeUnit.NANOSECONDS) : null;
                if (d == null) {
                    throw new TransientBackendException("no pooled dialog of queue '" + queue + "' became free within "
                            + options.sendWaitMillis() + " ms (broker.dialogPoolSize = " + options.dialogPoolSize() + ")", null);
                }
                if (!invalid.remove(d.handle)) {
                    return d;
                }
                dropped(d);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransientBackendException("interrupted while waiting for a pooled dialog", e);
        }
    }

    private Dialog pollValid() {
        Dialog d;
        while ((d = free.pollFirst()) != null) { // round robin (M4)
            if (!invalid.remove(d.handle)) {
                return d;
            }
            dropped(d);
        }
        return null;
    }

    @SuppressWarnings("try") // the query-timeout scope is held for its close only, which restores the previous bound
    private void fill(int missing) throws SQLException {
        try (Sql.Scope unbounded = Sql.unbounded(); Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            c.setAutoCommit(true);
            // adoptDialogs reads with READPAST, legal only under READ COMMITTED or REPEATABLE READ
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            try {
                List<Object[]> adopted = Sql.query(c, sql.dialogs().adoptDialogs(), missing, owner, queue.value());
                for (Object[] row : adopted) {
                    add(new Dialog(Sql.asUuid(row[0]), Sql.asLong(row[1])));
                }
                int still = missing - adopted.size();
                if (still > 0) {
                    List<Object[]> made = Sql.query(c, sql.dialogs().fillDialogs(queue, options.dialogLifetimeSeconds()),
                            still, options.spreadFactor(), queue.value(), owner);
                    for (Object[] row : made) {
                        add(new Dialog(Sql.asUuid(row[0]), 0));
                    }
                    LOG.debug("queue '{}': began {} dialogs, kept {} (spread factor {})", queue,
                            (long) still * options.spreadFactor(), made.size(), options.spreadFactor());
                }
            } finally {
                c.setAutoCommit(auto);
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    c.setTransactionIsolation(isolation);
                }
            }
        }
    }

    /**
     * Whether this pool ever owned a dialog (created or adopted one): only then has it rows to give back.
     *
     * @return whether this pool ever owned a dialog (created or adopted one)
     */
    public synchronized boolean everOwned() {
        return everOwned;
    }

    private void add(Dialog d) {
        synchronized (this) {
            open++;
            everOwned = true;
        }
        known.add(d.handle);
        free.offerLast(d);
    }

    private synchronized void dropped(Dialog d) {
        open--;
        known.remove(d.handle);
    }

    /**
     * True when the dialog should be recycled after {@code more} further sends.
     *
     * @param d a dialog this pool lent
     * @param more further SENDs planned on it in the current transaction
     * @return true when the dialog should be recycled after {@code more} further sends
     */
    public boolean dueAfter(Dialog d, int more) {
        return d.sends + more >= options.dialogMaxMessages() || d.ageSeconds() >= options.dialogMaxAgeSeconds();
    }

    /**
     * Gives a healthy dialog back after its transaction ended, counting {@code sent} sends.
     *
     * @param d a dialog this pool lent
     * @param sent SENDs made on it in the transaction that ended, added to its count
     */
    public void giveBack(Dialog d, int sent) {
        d.sends += sent;
        if (invalid.remove(d.handle)) {
            dropped(d);
            return;
        }
        free.offerLast(d);
    }

    /**
     * The dialog was recycled (end-of-stream sent and committed); it leaves the pool.
     *
     * @param d a dialog this pool lent
     */
    public void retired(Dialog d) {
        dropped(d);
    }

    /**
     * The dialog failed: end our side and delete its row (best effort, on a fresh connection), and never
     * lend it again.
     *
     * @param d a dialog this pool lent
     */
    public void discard(Dialog d) {
        dropped(d);
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            c.setAutoCommit(true);
            try {
                Sql.update(c, sql.dialogs().discardDialog(), d.handle.toString());
            } finally {
                c.setAutoCommit(auto);
            }
        } catch (SQLException e) {
            LOG.warn("queue '{}': could not end broken dialog {} ({}); its LIFETIME will end it", queue, d.handle, e.toString());
        }
    }

    /**
     * The sweeper saw an Error or EndDialog for this handle: never lend it again. Handles this pool does
     * not hold (group dialogs, dialogs of an enqueue in the caller's transaction, other processes') are
     * ignored.
     *
     * @param handle the conversation handle
     */
    public void invalidate(UUID handle) {
        if (!known.contains(handle)) {
            return;
        }
        Dialog match = null;
        for (Dialog d : free) {
            if (d.handle.equals(handle)) {
                match = d;
            }
        }
        if (match != null && free.remove(match)) {
            dropped(match);
        } else {
            invalid.add(handle);
        }
    }

    /**
     * Gives this process's dialogs back to the table for other processes (on close).
     *
     * @param c an open connection; the update runs on it
     * @param sql the statement texts of this prefix
     * @param owner this process's owner id (a UUID string) in the dialogs table
     * @throws SQLException if the update fails
     */
    public static void releaseOwned(Connection c, BrokerStatements sql, String owner) throws SQLException {
        Sql.update(c, sql.dialogs().releaseOwnedDialogs(), owner);
    }
}
