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
 * forgets the dialog and tells the pool never to lend it again; DialogTimer is logged and dropped. A
 * RECEIVE returns one conversation group, so it receives until a RECEIVE comes back empty (at most
 * {@link #MAX_RECEIVES_PER_SWEEP}), committing every {@link #RECEIVES_PER_TRANSACTION} RECEIVEs.
 * Then it ends the spacers of complete fills that have no pooled dialog left, {@link #SPACER_BATCH} per
 * transaction (only those fills' rows are locked). A forgotten dialog of a message group loses its group row, so the group's next message
 * begins a new dialog. Then it retires the dialogs of message groups that have nothing pending and were
 * idle for {@link BrokerOptions#groupIdleMillis()} or are older than
 * {@link BrokerOptions#dialogMaxAgeSeconds()} ({@link DialogStatements#retireIdleGroups}). The backend
 * runs it every {@link BrokerOptions#sweepIntervalMillis()} ms for every queue of the prefix.
 *
 * <p>Thread-safe.
 */
public final class BrokerSweeper {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerSweeper.class);
    /** Messages per RECEIVE (all of one conversation group). */
    public static final int BATCH = 100;
    /** RECEIVEs (conversation groups) handled per transaction. */
    public static final int RECEIVES_PER_TRANSACTION = 50;
    /** RECEIVEs per sweep at most, so one sweep of a flooded initiator queue ends; the next one goes on. */
    public static final int MAX_RECEIVES_PER_SWEEP = 10_000;
    /** Spacer dialogs ended per transaction ({@link DialogStatements#endFillSpacers}). */
    public static final int SPACER_BATCH = 100;
    /** Dead fills looked at per sweep ({@link DialogStatements#deadFills}). */
    public static final int FILL_BATCH = 100;
    /** Group dialogs retired per transaction. */
    public static final int RETIRE_BATCH = 100;

    private final DataSource ds;
    private final BrokerStatements sql;
    private final Function<QueueName, DialogPool> pools;
    private final BrokerOptions options;

    /**
     * A sweeper for one prefix.
     *
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param options the backend's options
     * @param pools the dialog pool of each queue, told of dialogs that failed
     */
    public BrokerSweeper(DataSource ds, BrokerStatements sql, BrokerOptions options, Function<QueueName, DialogPool> pools) {
        this.ds = ds;
        this.sql = sql;
        this.options = options;
        this.pools = pools;
    }

    /** Expired deduplication keys deleted per statement ({@link DialogStatements#deleteExpiredKeys}). */
    public static final int KEY_BATCH = 500;
    /** Key batches per sweep at most, so one sweep after a long pause ends; the next one goes on. */
    public static final int KEY_BATCHES_PER_SWEEP = 20;

    /**
     * Deletes expired deduplication keys of every queue of the prefix, {@value #KEY_BATCH} per statement,
     * each statement its own transaction (auto-commit), on a connection of the sweeper's own at READ
     * COMMITTED: the statement reads with READPAST, which fails with error 650 at SNAPSHOT or SERIALIZABLE,
     * and in a caller's transaction it would also hold its locks until the caller commits (re-review N2).
     *
     * @return how many keys were deleted
     * @throws SQLException if a delete fails
     */
    public long deleteExpiredKeys() throws SQLException {
        long total = 0;
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            if (!auto) {
                c.setAutoCommit(true);
            }
            if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            try {
                for (int k = 0; k < KEY_BATCHES_PER_SWEEP; k++) {
                    int n = Sql.update(c, sql.dialogs().deleteExpiredKeys(), KEY_BATCH);
                    total += Math.max(0, n);
                    if (n < KEY_BATCH) {
                        break;
                    }
                }
            } finally {
                BrokerConnections.restore(c, auto);
                if (isolation != Connection.TRANSACTION_READ_COMMITTED && !c.isClosed()) {
                    c.setTransactionIsolation(isolation);
                }
            }
        }
        return total;
    }

    /**
     * Drains the initiator queue of {@code q}; returns how many messages it handled.
     *
     * @param q the queue whose initiator queue is drained
     * @return how many messages it handled, 0 or more
     * @throws SQLException if a RECEIVE or END CONVERSATION fails
     */
    public int sweep(QueueName q) throws SQLException {
        int total = 0;
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            int isolation = c.getTransactionIsolation();
            c.setAutoCommit(false);
            // READPAST (retireIdleGroups) is legal only under READ COMMITTED or REPEATABLE READ
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                // one RECEIVE returns the messages of ONE conversation group (RECEIVE, Remarks), and every
                // initiator dialog is a group of its own: only an empty RECEIVE means the queue is drained (M1)
                int receives = 0;
                boolean drained = false;
                while (!drained && receives < MAX_RECEIVES_PER_SWEEP) {
                    Sql.begin(c); // RECEIVE opens no implicit transaction (L1)
                    for (int k = 0; k < RECEIVES_PER_TRANSACTION && receives < MAX_RECEIVES_PER_SWEEP; k++) {
                        List<Object[]> rows = Sql.query(c, sql.dialogs().receiveInitiator(q), BATCH);
                        receives++;
                        if (rows.isEmpty()) {
                            drained = true;
                            break;
                        }
                        for (Object[] r : rows) {
                            handle(c, q, Sql.asUuid(r[0]), String.valueOf(r[1]), (byte[]) r[2]);
                        }
                        total += rows.size();
                    }
                    c.commit();
                }
                if (!drained) {
                    LOG.info("queue '{}': initiator queue not drained after {} RECEIVEs; the next sweep goes on", q, receives);
                }
                endSpacers(c, q);
                while (true) {
                    Sql.begin(c);
                    List<Object[]> r = Sql.query(c, sql.dialogs().retireIdleGroups(q), q.value(), options.groupIdleMillis(),
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
                BrokerConnections.rollback(c, e);
                throw e;
            } finally {
                BrokerConnections.restore(c, auto);
                try {
                    c.setTransactionIsolation(isolation);
                } catch (SQLException ignored) {
                    // the connection is closed next; a pool validates it
                }
            }
        }
    }

    /**
     * Ends the spacers of dead fills: first which complete fills have no pooled dialog left (a read that
     * keeps no lock), then per fill at most {@link #SPACER_BATCH} spacers per transaction, through the fill's
     * index (N5).
     */
    private void endSpacers(Connection c, QueueName q) throws SQLException {
        Sql.begin(c);
        List<Object[]> dead = Sql.query(c, sql.dialogs().deadFills(), FILL_BATCH, q.value());
        c.commit();
        for (Object[] fill : dead) {
            while (true) {
                Sql.begin(c);
                List<Object[]> r = Sql.query(c, sql.dialogs().endFillSpacers(), SPACER_BATCH, q.value(), Sql.asLong(fill[0]));
                c.commit();
                long ended = r.isEmpty() ? 0 : Sql.asLong(r.get(0)[0]);
                if (ended > 0) {
                    LOG.debug("queue '{}': ended {} spacer dialogs of retired fill {}", q, ended, fill[0]);
                }
                if (ended < SPACER_BATCH) {
                    break;
                }
            }
        }
    }

    /**
     * Messages sent on a dialog that errored while they still waited in {@code sys.transmission_queue}
     * never reach the target queue, and END CONVERSATION drops them: they are dead-lettered first, in
     * the same transaction (L2).
     */
    private void deadLetterInTransit(Connection c, QueueName q, UUID h, String error) throws SQLException {
        String reason = BrokerReceiver.clip("its dialog failed before it reached the queue: " + error);
        for (Object[] r : Sql.query(c, sql.dialogs().inTransitOf(q), h.toString())) {
            byte[] body = (byte[]) r[0];
            long id = Envelope.idOrZero(body);
            LOG.warn("queue '{}': message {} was in transit on failed dialog {}; moved to the dead-letter table", q, id, h);
            try {
                Envelope env = Envelope.decode(body);
                Sql.update(c, sql.deadLetters().insertDeadLetter(), q.value(), env.messageId(), env.payload(), env.rawHeaders(), 0, reason,
                        env.enqueuedMillis(), BrokerReceiver.orNull(env.group()));
                if (env.group() != null) {
                    Sql.update(c, sql.claims().groupSettled(), q.value(), env.messageId());
                }
            } catch (Envelope.UndecodableException e) {
                Sql.update(c, sql.deadLetters().insertDeadLetter(), q.value(), id, body == null ? new byte[0] : body, "", 0, reason,
                        new Sql.Null(java.sql.Types.BIGINT), new Sql.Null(java.sql.Types.NVARCHAR));
            }
        }
    }

    private void handle(Connection c, QueueName q, UUID h, String type, byte[] body) throws SQLException {
        switch (type) {
            case BrokerStatements.END_DIALOG -> {
                Sql.update(c, sql.dialogs().endConversation(), h.toString());
                Sql.update(c, sql.dialogs().forgetDialog(), h.toString());
                pools.apply(q).invalidate(h);
            }
            case BrokerStatements.ERROR -> {
                String error = SystemMessages.describeError(body);
                LOG.warn("queue '{}': dialog {} failed ({}); ending it, the pool replaces it", q, h, error);
                deadLetterInTransit(c, q, h, error);
                Sql.update(c, sql.dialogs().endConversation(), h.toString());
                Sql.update(c, sql.dialogs().forgetDialog(), h.toString());
                pools.apply(q).invalidate(h);
            }
            case BrokerStatements.DIALOG_TIMER -> LOG.info("queue '{}': dialog timer on {}; nothing is scheduled on it", q, h);
            default -> LOG.warn("queue '{}': unexpected message type '{}' on the initiator queue; dropped", q, type);
        }
    }
}
