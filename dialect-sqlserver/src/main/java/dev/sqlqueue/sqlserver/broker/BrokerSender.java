package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueue: SEND on a borrowed pooled dialog inside one transaction, then commit. When the dialog is
 * due (age or message count) the same transaction also sends the end-of-stream message and removes it
 * from the pool. A SEND that fails for a reason other than a transient one (deadlock, lock time-out,
 * connection loss) discards the dialog and is retried once on another; nothing is ever sent
 * fire-and-forget and no dialog is ended WITH CLEANUP.
 *
 * <p>A message with a group goes on its group's dialog instead ({@link BrokerStatements#sendGrouped}),
 * so one conversation, hence one conversation group on the target, carries the whole group in order.
 * Within a batch the grouped messages are sent first, in group order (stable, so each group keeps its
 * own order), so that concurrent batches lock group rows in one order and cannot deadlock on them.
 *
 * <p>An enqueue in the caller's transaction ({@link #sendInTransaction}) never borrows a pooled dialog:
 * grouped messages use their group's dialog, others a dialog of their own that carries the message and
 * the end-of-stream message.
 *
 * <p>Thread-safe.
 */
public final class BrokerSender {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSender.class);

    private final DataSource ds;
    private final BrokerStatements sql;
    private final Function<QueueName, DialogPool> pools;
    private final java.time.Duration window;
    private final java.util.concurrent.atomic.AtomicLong keyedSends = new java.util.concurrent.atomic.AtomicLong();
    /** Every this many keyed sends, the same transaction deletes a batch of expired keys. */
    static final int CLEANUP_EVERY = 256;
    static final int CLEANUP_BATCH = 500;

    public BrokerSender(DataSource ds, BrokerStatements sql, Function<QueueName, DialogPool> pools) {
        this(ds, sql, pools, dev.sqlqueue.QueueConfig.DEFAULT_DEDUPLICATION_WINDOW);
    }

    /** @param window {@link dev.sqlqueue.QueueConfig#deduplicationWindow()} */
    public BrokerSender(DataSource ds, BrokerStatements sql, Function<QueueName, DialogPool> pools, java.time.Duration window) {
        this.ds = ds;
        this.sql = sql;
        this.pools = pools;
        this.window = window;
    }

    /** The key as stored: followed by {@code .} ({@code =} ignores trailing spaces even under BIN2). */
    static String storedKey(String key) {
        return key + ".";
    }

    /** The message holding the key of {@code m} on {@code q}, or null when this transaction took it. */
    private Long takeKey(Connection c, QueueName q, Message m) throws SQLException {
        List<Object[]> r = Sql.query(c, sql.takeKey(), q.value(), storedKey(m.deduplicationKey()));
        return r.isEmpty() || r.get(0)[0] == null ? null : Sql.asLong(r.get(0)[0]);
    }

    private void recordKey(Connection c, QueueName q, Message m, long id) throws SQLException {
        Sql.update(c, sql.recordKey(), q.value(), storedKey(m.deduplicationKey()), id,
                (int) Math.min(Integer.MAX_VALUE, window.getSeconds()), window.toMillisPart());
        if (keyedSends.incrementAndGet() % CLEANUP_EVERY == 0) {
            Sql.update(c, sql.deleteExpiredKeys(), CLEANUP_BATCH);
        }
    }

    /** Pools by queue, created on first use. */
    public static Function<QueueName, DialogPool> poolsOf(DataSource ds, BrokerStatements sql, BrokerOptions o, String owner,
                                                          Map<QueueName, DialogPool> store) {
        return q -> store.computeIfAbsent(q, k -> new DialogPool(k, ds, sql, o, owner));
    }

    /** A fresh map for {@link #poolsOf}. */
    public static Map<QueueName, DialogPool> newStore() {
        return new ConcurrentHashMap<>();
    }

    /**
     * Sends the messages in one transaction and commits.
     *
     * @return the ids, in order
     * @throws dev.sqlqueue.TransientBackendException on deadlock, lock time-out or connection loss
     * @throws SqlQueueException when the send fails twice on two different dialogs
     */
    public List<Long> send(QueueName q, List<Message> messages) {
        return send(q, messages, new boolean[messages.size()]);
    }

    /**
     * As {@link #send(QueueName, List)}; a message whose deduplication key is taken is not sent, gets the
     * holder's id, and is marked in {@code duplicates}. A key is taken in the SEND's transaction.
     */
    public List<Long> send(QueueName q, List<Message> messages, boolean[] duplicates) {
        List<Integer> grouped = new ArrayList<>();
        List<Integer> pooled = new ArrayList<>();
        for (int i = 0; i < messages.size(); i++) {
            (messages.get(i).group() == null ? pooled : grouped).add(i);
        }
        grouped.sort(Comparator.comparing(i -> messages.get(i).group()));
        DialogPool pool = pools.apply(q);
        SQLException last = null;
        for (int round = 0; round < 2; round++) {
            DialogPool.Dialog d = null;
            if (!pooled.isEmpty()) {
                try {
                    d = pool.acquire();
                } catch (SQLException e) {
                    throw BrokerErrors.translate(e, "filling the dialog pool of queue '" + q + "'");
                }
            }
            Connection c;
            try {
                c = ds.getConnection();
            } catch (SQLException e) {
                if (d != null) {
                    pool.giveBack(d, 0);
                }
                throw BrokerErrors.translate(e, "opening a connection to enqueue on queue '" + q + "'");
            }
            boolean auto = true;
            boolean onPooled = false;
            try {
                auto = c.getAutoCommit();
                Sql.begin(c); // SEND opens no implicit transaction (L1)
                Long[] ids = new Long[messages.size()];
                java.util.Arrays.fill(duplicates, false);
                for (int i : grouped) {
                    Message m = messages.get(i);
                    Long held = m.deduplicationKey() == null ? null : takeKey(c, q, m);
                    if (held != null) {
                        ids[i] = held;
                        duplicates[i] = true;
                        continue;
                    }
                    ids[i] = sendGrouped(c, q, m);
                    if (m.deduplicationKey() != null) {
                        recordKey(c, q, m, ids[i]);
                    }
                }
                onPooled = true;
                int sentPooled = 0;
                for (int i : pooled) {
                    Message m = messages.get(i);
                    Long held = m.deduplicationKey() == null ? null : takeKey(c, q, m);
                    if (held != null) {
                        ids[i] = held;
                        duplicates[i] = true;
                        continue;
                    }
                    List<Object[]> r = Sql.query(c, sql.send(q), d.handle().toString(),
                            Envelope.rest(m.headers(), m.payloadUnsafe()));
                    ids[i] = Sql.asLong(r.get(0)[0]);
                    sentPooled++;
                    if (m.deduplicationKey() != null) {
                        recordKey(c, q, m, ids[i]);
                    }
                }
                boolean retire = d != null && pool.dueAfter(d, sentPooled);
                if (retire) {
                    Sql.update(c, sql.retireDialog(q), d.handle().toString());
                }
                c.commit();
                if (retire) {
                    pool.retired(d);
                } else if (d != null) {
                    pool.giveBack(d, sentPooled);
                }
                return Arrays.asList(ids);
            } catch (SQLException e) {
                BrokerConnections.rollback(c, e);
                if (BrokerErrors.isTransient(e) || d == null || !onPooled || !BrokerErrors.isDialogError(e)) {
                    if (d != null) {
                        pool.giveBack(d, 0);
                    }
                    throw BrokerErrors.translate(e, "enqueue on queue '" + q + "'");
                }
                LOG.warn("queue '{}': send on dialog {} failed ({}); replacing the dialog", q, d.handle(), e.toString());
                pool.discard(d);
                last = e;
            } catch (RuntimeException e) {
                // roll back before restore() turns auto-commit back on, which would commit half a batch
                BrokerConnections.rollback(c, e);
                if (d != null) {
                    pool.giveBack(d, 0);
                }
                throw e;
            } finally {
                BrokerConnections.restore(c, auto);
                BrokerConnections.close(c);
            }
        }
        throw BrokerErrors.translate(last, "enqueue on queue '" + q + "' (two dialogs)");
    }

    private long sendGrouped(Connection c, QueueName q, Message m) throws SQLException {
        List<Object[]> r = Sql.query(c, sql.sendGrouped(q), q.value(), m.group(),
                Envelope.rest(m.headers(), m.group(), m.payloadUnsafe()));
        return Sql.asLong(r.get(0)[0]);
    }

    /**
     * Enqueue in the caller's transaction: runs on the caller's connection, changes neither its
     * auto-commit mode nor its session options, and neither commits nor rolls back. The message is
     * visible to consumers only when the caller commits, and gone if the caller rolls back. If this
     * throws, the caller must roll back: with {@code XACT_ABORT OFF} (the default) a failed statement
     * can leave part of the batch done in the caller's transaction. A connection in auto-commit mode has
     * no transaction to join: the message is then sent as by {@link #send}, on a connection of the
     * backend's own.
     *
     * @return the message id
     * @throws dev.sqlqueue.TransientBackendException on deadlock, lock time-out or connection loss
     */
    public long sendInTransaction(Connection c, QueueName q, Message m) {
        return sendInTransaction(c, q, m, new boolean[1]);
    }

    /** As {@link #sendInTransaction(Connection, QueueName, Message)}; a taken key sends nothing and sets {@code duplicate[0]}. */
    public long sendInTransaction(Connection c, QueueName q, Message m, boolean[] duplicate) {
        try {
            if (c.getAutoCommit()) {
                return send(q, List.of(m), duplicate).get(0);
            }
            duplicate[0] = false;
            Long held = m.deduplicationKey() == null ? null : takeKey(c, q, m);
            if (held != null) {
                duplicate[0] = true;
                return held;
            }
            long id;
            if (m.group() != null) {
                id = sendGrouped(c, q, m);
            } else {
                List<Object[]> r = Sql.query(c, sql.sendOnOwnDialog(q), Envelope.rest(m.headers(), m.payloadUnsafe()));
                id = Sql.asLong(r.get(0)[0]);
            }
            if (m.deduplicationKey() != null) {
                recordKey(c, q, m, id);
            }
            return id;
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "enqueue on queue '" + q + "' in the caller's transaction");
        }
    }

    /**
     * Sends whole envelopes again (same id, enqueue time and group) on the caller's connection inside
     * the caller's open transaction: used when a claim commits with some deliveries nacked or released,
     * and for dead-letter requeue. A grouped message goes on its group's dialog; the others share one
     * borrowed pooled dialog, so any number can be sent in one transaction. The caller must call
     * {@link Resend#end} once its transaction has ended. Not thread-safe: one per transaction.
     */
    public Resend resender(Connection c, QueueName q) {
        return new Resend(c, q);
    }

    /** See {@link #resender}. */
    public final class Resend {
        private final Connection c;
        private final QueueName q;
        private DialogPool.Dialog d;
        private DialogPool.Dialog broken;
        private int sent;

        private Resend(Connection c, QueueName q) {
            this.c = c;
            this.q = q;
        }

        public void send(Envelope env) throws SQLException {
            if (env.group() != null) {
                Sql.query(c, sql.resendGrouped(q), q.value(), env.group(), env.messageId(), env.encode());
                return;
            }
            DialogPool pool = pools.apply(q);
            if (d == null) {
                d = pool.acquire();
            }
            try {
                Sql.update(c, sql.resend(q), d.handle().toString(), env.encode());
                sent++;
            } catch (SQLException e) {
                if (BrokerErrors.isTransient(e)) {
                    pool.giveBack(d, 0);
                } else {
                    // ended only in end(): END CONVERSATION on another connection would wait for the
                    // conversation lock this open transaction holds
                    broken = d;
                }
                d = null;
                throw e;
            }
        }

        /**
         * Call after the transaction ended: gives the pooled dialog back, counting its sends if the
         * transaction committed, and ends a dialog whose SEND failed.
         */
        public void end(boolean committed) {
            if (d != null) {
                pools.apply(q).giveBack(d, committed ? sent : 0);
                d = null;
            }
            if (broken != null) {
                pools.apply(q).discard(broken);
                broken = null;
            }
        }
    }
}
