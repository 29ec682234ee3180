package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
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
 * <p>Thread-safe.
 */
public final class BrokerSender {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSender.class);

    private final DataSource ds;
    private final BrokerStatements sql;
    private final Function<QueueName, DialogPool> pools;

    public BrokerSender(DataSource ds, BrokerStatements sql, Function<QueueName, DialogPool> pools) {
        this.ds = ds;
        this.sql = sql;
        this.pools = pools;
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
        DialogPool pool = pools.apply(q);
        SQLException last = null;
        for (int round = 0; round < 2; round++) {
            DialogPool.Dialog d;
            try {
                d = pool.acquire();
            } catch (SQLException e) {
                throw BrokerErrors.translate(e, "filling the dialog pool of queue '" + q + "'");
            }
            Connection c;
            try {
                c = ds.getConnection();
            } catch (SQLException e) {
                pool.giveBack(d, 0);
                throw BrokerErrors.translate(e, "opening a connection to enqueue on queue '" + q + "'");
            }
            boolean auto = true;
            try {
                auto = c.getAutoCommit();
                c.setAutoCommit(false);
                List<Long> ids = new ArrayList<>(messages.size());
                for (Message m : messages) {
                    List<Object[]> r = Sql.query(c, sql.send(q), d.handle().toString(),
                            Envelope.rest(m.headers(), m.payloadUnsafe()));
                    ids.add(Sql.asLong(r.get(0)[0]));
                }
                boolean retire = pool.dueAfter(d, messages.size());
                if (retire) {
                    Sql.update(c, sql.retireDialog(q), d.handle().toString());
                }
                c.commit();
                if (retire) {
                    pool.retired(d);
                } else {
                    pool.giveBack(d, messages.size());
                }
                return ids;
            } catch (SQLException e) {
                rollbackQuietly(c, e);
                if (BrokerErrors.isTransient(e)) {
                    pool.giveBack(d, 0);
                    throw BrokerErrors.translate(e, "enqueue on queue '" + q + "'");
                }
                LOG.warn("queue '{}': send on dialog {} failed ({}); replacing the dialog", q, d.handle(), e.toString());
                pool.discard(d);
                last = e;
            } finally {
                restore(c, auto);
                closeQuietly(c);
            }
        }
        throw BrokerErrors.translate(last, "enqueue on queue '" + q + "' (two dialogs)");
    }

    /**
     * Sends a whole envelope again on the caller's connection inside the caller's open transaction
     * (used when a claim commits with some deliveries nacked or released, and for dead-letter requeue).
     * The caller must pass the returned dialog to {@link #after} once its transaction has ended.
     */
    public DialogPool.Dialog resendOn(Connection c, QueueName q, byte[] body) throws SQLException {
        DialogPool pool = pools.apply(q);
        DialogPool.Dialog d = pool.acquire();
        try {
            Sql.update(c, sql.resend(q), d.handle().toString(), body);
            return d;
        } catch (SQLException e) {
            if (BrokerErrors.isTransient(e)) {
                pool.giveBack(d, 0);
            } else {
                pool.discard(d);
            }
            throw e;
        }
    }

    /** Gives back a dialog used by {@link #resendOn}. */
    public void after(QueueName q, DialogPool.Dialog d, boolean committed) {
        pools.apply(q).giveBack(d, committed ? 1 : 0);
    }

    static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // nothing left to do
        }
    }

    static void restore(Connection c, boolean auto) {
        try {
            c.setAutoCommit(auto);
        } catch (SQLException ignored) {
            // the connection is closed next; a pool validates it
        }
    }
}
