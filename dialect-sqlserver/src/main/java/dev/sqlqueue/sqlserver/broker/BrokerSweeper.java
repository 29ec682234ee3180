package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The initiator side's housekeeping: drains a queue's initiator queue without waiting. EndDialog (the
 * target ended, for example after our end-of-stream message) ends our side and forgets the dialog;
 * Error (for example an expired LIFETIME) is logged with its code and description, ends our side,
 * forgets the dialog and tells the pool never to lend it again; DialogTimer is logged and dropped. Each
 * batch commits. A forgotten dialog of a message group loses its group row, so the group's next message
 * begins a new dialog. Then it retires the dialogs of message groups that have nothing pending and were
 * idle for {@link BrokerOptions#groupIdleMillis()} or are older than
 * {@link BrokerOptions#dialogMaxAgeSeconds()} ({@link BrokerStatements#retireIdleGroups}). The backend
 * runs it every {@link BrokerOptions#sweepIntervalMillis()} ms for every queue of the prefix.
 *
 * <p>Thread-safe.
 */
public final class BrokerSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSweeper.class);
    /** Messages per RECEIVE. */
    public static final int BATCH = 100;
    /** Group dialogs retired per transaction. */
    public static final int RETIRE_BATCH = 100;

    private final DataSource ds;
    private final BrokerStatements sql;
    private final Function<QueueName, DialogPool> pools;
    private final BrokerOptions options;

    public BrokerSweeper(DataSource ds, BrokerStatements sql, BrokerOptions options, Function<QueueName, DialogPool> pools) {
        this.ds = ds;
        this.sql = sql;
        this.options = options;
        this.pools = pools;
    }

    /** Drains the initiator queue of {@code q}; returns how many messages it handled. */
    public int sweep(QueueName q) throws SQLException {
        int total = 0;
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            c.setAutoCommit(false);
            // READPAST (retireIdleGroups) is legal only under READ COMMITTED or REPEATABLE READ
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                while (true) {
                    List<Object[]> rows = Sql.query(c, sql.receiveInitiator(q), BATCH);
                    for (Object[] r : rows) {
                        handle(c, q, Sql.asUuid(r[0]), String.valueOf(r[1]), (byte[]) r[2]);
                    }
                    c.commit();
                    total += rows.size();
                    if (rows.size() < BATCH) {
                        break;
                    }
                }
                while (true) {
                    List<Object[]> r = Sql.query(c, sql.retireIdleGroups(q), q.value(), options.groupIdleMillis(),
                            options.dialogMaxAgeSeconds(), RETIRE_BATCH);
                    c.commit();
                    long retired = r.isEmpty() ? 0 : Sql.asLong(r.get(0)[0]);
                    if (retired > 0) {
                        LOG.debug("queue '{}': retired {} idle group dialogs", q, retired);
                    }
                    if (retired < RETIRE_BATCH) {
                        return total;
                    }
                }
            } catch (SQLException e) {
                BrokerSender.rollbackQuietly(c, e);
                throw e;
            } finally {
                BrokerSender.restore(c, auto);
                try {
                    c.setTransactionIsolation(isolation);
                } catch (SQLException ignored) {
                    // the connection is closed next; a pool validates it
                }
            }
        }
    }

    private void handle(Connection c, QueueName q, UUID h, String type, byte[] body) throws SQLException {
        switch (type) {
            case BrokerStatements.END_DIALOG -> {
                Sql.update(c, sql.endConversation(), h.toString());
                Sql.update(c, sql.forgetDialog(), h.toString());
                pools.apply(q).invalidate(h);
            }
            case BrokerStatements.ERROR -> {
                LOG.warn("queue '{}': dialog {} failed ({}); ending it, the pool replaces it", q, h,
                        SystemMessages.describeError(body));
                Sql.update(c, sql.endConversation(), h.toString());
                Sql.update(c, sql.forgetDialog(), h.toString());
                pools.apply(q).invalidate(h);
            }
            case BrokerStatements.DIALOG_TIMER -> LOG.info("queue '{}': dialog timer on {}; nothing is scheduled on it", q, h);
            default -> LOG.warn("queue '{}': unexpected message type '{}' on the initiator queue; dropped", q, type);
        }
    }
}
