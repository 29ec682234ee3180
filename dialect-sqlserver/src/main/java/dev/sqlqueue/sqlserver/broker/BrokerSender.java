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
 * fire-and-forget and no dialog is ended WITH CLEANUP. The backend's own transaction runs at READ
 * COMMITTED (set on the connection for the send, and put back after), whatever the pool's default.
 *
 * <p>A message with a group goes on its group's dialog instead ({@link SendStatements#sendGrouped}),
 * so one conversation, hence one conversation group on the target, carries the whole group in order.
 *
 * <p>Lock order within a batch: first every deduplication key, in key order ({@link SendStatements#takeKey},
 * which locks each key only, never a key range: re-review N1), then the group rows, in group order (stable,
 * so each group keeps its own order), then the pooled dialog. Two batches therefore take the locks they share
 * in the same order. A send can still be chosen as a deadlock victim by locks this order does not cover (a
 * caller's transaction holding a key or group row, a lock escalation): error 1205 rolls it back, and the
 * whole send is tried again up to {@value #DEADLOCK_RETRIES} times.
 *
 * <p>An enqueue in the caller's transaction ({@link #sendInTransaction}) never borrows a pooled dialog:
 * grouped messages use their group's dialog, others a dialog of their own that carries the message and
 * the end-of-stream message. No maintenance runs there (N2): expired keys are deleted by the sweeper.
 *
 * <p>Thread-safe.
 */
public final class BrokerSender {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSender.class);

    private final DataSource ds;
    private final BrokerStatements sql;
    private final Function<QueueName, DialogPool> pools;
    private final java.time.Duration window;
    /** How many times a send chosen as deadlock victim (error 1205) is tried again. */
    static final int DEADLOCK_RETRIES = 3;

    /**
     * A sender with the default deduplication window.
     *
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param pools the dialog pool of each queue, created on first use
     */
    public BrokerSender(DataSource ds, BrokerStatements sql, Function<QueueName, DialogPool> pools) {
        this(ds, sql, pools, dev.sqlqueue.QueueConfig.DEFAULT_DEDUPLICATION_WINDOW);
    }

    /**
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param pools the dialog pool of each queue, created on first use
     * @param window {@link dev.sqlqueue.QueueConfig#deduplicationWindow()}
     */
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
        List<Object[]> r = Sql.query(c, sql.sending().takeKey(), q.value(), storedKey(m.deduplicationKey()),
                (int) Math.min(Integer.MAX_VALUE, window.getSeconds()), window.toMillisPart());
        return r.isEmpty() || r.get(0)[0] == null ? null : Sql.asLong(r.get(0)[0]);
    }

    /** Writes the id of the message sent into the key this transaction took. */
    private void recordKey(Connection c, QueueName q, Message m, long id) throws SQLException {
        if (m.deduplicationKey() != null) {
            Sql.update(c, sql.sending().recordKey(), id, q.value(), storedKey(m.deduplicationKey()));
        }
    }

    /**
     * Pools by queue, created on first use.
     *
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param o the backend's options (pool size and dialog limits)
     * @param owner this process's owner id (a UUID string) in the dialogs table
     * @param store the map the pools are kept in, by queue (a concurrent map, from {@link #newStore()})
     * @return a function giving each queue's pool, creating it in {@code store} on first use
     */
    public static Function<QueueName, DialogPool> poolsOf(DataSource ds, BrokerStatements sql, BrokerOptions o, String owner,
                                                          Map<QueueName, DialogPool> store) {
        return q -> store.computeIfAbsent(q, k -> new DialogPool(k, ds, sql, o, owner));
    }

    /**
     * A fresh map for {@link #poolsOf}.
     *
     * @return a fresh map for {@link #poolsOf}
     */
    public static Map<QueueName, DialogPool> newStore() {
        return new ConcurrentHashMap<>();
    }

    /**
     * Sends the messages in one transaction and commits.
     *
     * @param q the queue to send to
     * @param messages the messages, in the order they are given ids
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
     *
     * @param q the queue to send to
     * @param messages the messages, in the order they are given ids
     * @param duplicates an array as long as {@code messages}; set true for each message not sent because its key was taken
     * @return the ids, in order (a duplicate's is the key holder's)
     */
    public List<Long> send(QueueName q, List<Message> messages, boolean[] duplicates) {
        Batch batch = new Batch(messages);
        DialogPool pool = pools.apply(q);
        int dialogFailures = 0;
        int deadlocks = 0;
        while (true) {
            DialogPool.Dialog d = null;
            if (!batch.pooled.isEmpty()) {
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
            int isolation = Connection.TRANSACTION_READ_COMMITTED;
            boolean onPooled = false;
            boolean restore = true;
            try {
                auto = c.getAutoCommit();
                isolation = c.getTransactionIsolation();
                if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED); // N2: not the pool's default
                }
                Sql.begin(c); // SEND opens no implicit transaction (L1)
                Long[] ids = new Long[messages.size()];
                java.util.Arrays.fill(duplicates, false);
                for (int i : batch.keyed) {
                    Long held = takeKey(c, q, messages.get(i));
                    if (held != null) {
                        ids[i] = held;
                        duplicates[i] = true;
                    }
                }
                for (int i : batch.grouped) {
                    if (!duplicates[i] && !batch.copies.containsKey(i)) {
                        ids[i] = sendGrouped(c, q, messages.get(i));
                        recordKey(c, q, messages.get(i), ids[i]);
                    }
                }
                onPooled = true;
                int sentPooled = 0;
                for (int i : batch.pooled) {
                    Message m = messages.get(i);
                    if (duplicates[i] || batch.copies.containsKey(i)) {
                        continue;
                    }
                    List<Object[]> r = Sql.query(c, sql.sending().send(q), d.handle().toString(),
                            Envelope.rest(m.headers(), m.payloadUnsafe()));
                    ids[i] = Sql.asLong(r.get(0)[0]);
                    sentPooled++;
                    recordKey(c, q, m, ids[i]);
                }
                batch.copies.forEach((copy, first) -> {
                    ids[copy] = ids[first];
                    duplicates[copy] = true;
                });
                boolean retire = d != null && pool.dueAfter(d, sentPooled);
                if (retire) {
                    Sql.update(c, sql.dialogs().retireDialog(q), d.handle().toString());
                }
                c.commit();
                if (retire) {
                    pool.retired(d);
                } else if (d != null) {
                    pool.giveBack(d, sentPooled);
                }
                return Arrays.asList(ids);
            } catch (SQLException e) {
                restore = BrokerConnections.rollback(c, e);
                if (BrokerErrors.has(e, BrokerErrors.DEADLOCK_VICTIM) && deadlocks < DEADLOCK_RETRIES) {
                    if (d != null) {
                        pool.giveBack(d, 0);
                    }
                    deadlocks++;
                    LOG.debug("queue '{}': send chosen as deadlock victim; trying again ({} of {})", q, deadlocks, DEADLOCK_RETRIES);
                    pause(deadlocks);
                    continue;
                }
                if (BrokerErrors.isTransient(e) || d == null || !onPooled || !BrokerErrors.isDialogError(e)) {
                    if (d != null) {
                        pool.giveBack(d, 0);
                    }
                    throw BrokerErrors.translate(e, "enqueue on queue '" + q + "'");
                }
                LOG.warn("queue '{}': send on dialog {} failed ({}); replacing the dialog", q, d.handle(), e.toString());
                pool.discard(d);
                if (++dialogFailures == 2) {
                    throw BrokerErrors.translate(e, "enqueue on queue '" + q + "' (two dialogs)");
                }
            } catch (RuntimeException e) {
                // roll back before restore() turns auto-commit back on, which would commit half a batch
                restore = BrokerConnections.rollback(c, e);
                if (d != null) {
                    pool.giveBack(d, 0);
                }
                throw e;
            } finally {
                if (restore) {
                    BrokerConnections.restore(c, auto);
                    restoreIsolation(c, isolation);
                }
                BrokerConnections.close(c);
            }
        }
    }

    private static void restoreIsolation(Connection c, int isolation) {
        try {
            if (isolation != Connection.TRANSACTION_READ_COMMITTED && !c.isClosed()) {
                c.setTransactionIsolation(isolation);
            }
        } catch (SQLException ignored) {
            // the connection is closed next; a pool validates it
        }
    }

    /** Jittered back-off before a deadlock victim tries again: up to 50 ms times the attempt. */
    private static void pause(int attempt) {
        try {
            Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(5, 50L * attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The order a batch is sent in: the first message of each deduplication key, sorted by stored key (the
     * keys are taken first, in this order); grouped messages sorted by group (stable); the others in batch
     * order. A later message with a key an earlier one of the batch has is a copy: it is not sent, and gets
     * the first one's id as a duplicate.
     */
    private static final class Batch {
        final List<Integer> keyed = new ArrayList<>();
        final List<Integer> grouped = new ArrayList<>();
        final List<Integer> pooled = new ArrayList<>();
        final Map<Integer, Integer> copies = new java.util.LinkedHashMap<>();

        Batch(List<Message> messages) {
            Map<String, Integer> firstOf = new java.util.HashMap<>();
            for (int i = 0; i < messages.size(); i++) {
                Message m = messages.get(i);
                (m.group() == null ? pooled : grouped).add(i);
                if (m.deduplicationKey() != null) {
                    Integer first = firstOf.putIfAbsent(m.deduplicationKey(), i);
                    if (first == null) {
                        keyed.add(i);
                    } else {
                        copies.put(i, first);
                    }
                }
            }
            keyed.sort(Comparator.comparing(i -> storedKey(messages.get(i).deduplicationKey())));
            grouped.sort(Comparator.comparing(i -> messages.get(i).group()));
        }
    }

    private long sendGrouped(Connection c, QueueName q, Message m) throws SQLException {
        List<Object[]> r = Sql.query(c, sql.sending().sendGrouped(q), q.value(), m.group(),
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
     * @param c the caller's connection, in its open transaction; left open, not committed
     * @param q the queue to send to
     * @param m the message
     * @return the message id
     * @throws dev.sqlqueue.TransientBackendException on deadlock, lock time-out or connection loss
     */
    public long sendInTransaction(Connection c, QueueName q, Message m) {
        return sendInTransaction(c, q, m, new boolean[1]);
    }

    /**
     * As {@link #sendInTransaction(Connection, QueueName, Message)}; a taken key sends nothing and sets {@code duplicate[0]}.
     *
     * @param c the caller's connection, in its open transaction; left open, not committed
     * @param q the queue to send to
     * @param m the message
     * @param duplicate a one-element array; set true when the message was not sent because its key was taken
     * @return the message id: the new one, or the key holder's when the message was a duplicate
     */
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
                List<Object[]> r = Sql.query(c, sql.sending().sendOnOwnDialog(q), Envelope.rest(m.headers(), m.payloadUnsafe()));
                id = Sql.asLong(r.get(0)[0]);
            }
            recordKey(c, q, m, id);
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
     *
     * @param c the caller's connection, in its open transaction; left open, not committed
     * @param q the queue to send to
     * @return the resender for this transaction
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

        /**
         * Sends one envelope again in the caller's transaction: a grouped one on its group's dialog, the others on
         * the borrowed pooled dialog.
         *
         * @param env the envelope, with its original id, enqueue time and group
         * @throws SQLException if the SEND fails; {@link #end} then ends the dialog
         */
        public void send(Envelope env) throws SQLException {
            if (env.group() != null) {
                Sql.query(c, sql.sending().resendGrouped(q), q.value(), env.group(), env.messageId(), env.encode());
                return;
            }
            DialogPool pool = pools.apply(q);
            if (d == null) {
                d = pool.acquire();
            }
            try {
                Sql.update(c, sql.sending().resend(q), d.handle().toString(), env.encode());
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
         *
         * @param committed whether the caller's transaction committed
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
