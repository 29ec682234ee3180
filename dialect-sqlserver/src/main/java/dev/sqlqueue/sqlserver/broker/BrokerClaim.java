package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * One open RECEIVE transaction and the deliveries it returned (transactional claim mode). The
 * transaction stays open on its connection until every delivery is settled, then:
 *
 * <ul>
 *   <li>if at least one delivery was acked or dead-lettered, it commits: acked messages are gone,
 *       dead-lettered ones were copied to the dead-letter table; nacked ones get attempts + 1 and, like
 *       released ones, are sent again (same id, same enqueue time) on a pooled dialog in the same
 *       transaction, so they come back behind later messages;</li>
 *   <li>otherwise (every delivery nacked or released) it rolls back, so the messages return in place;
 *       a nack's attempt count is raised first in its own committed statement on another connection,
 *       because the rollback would undo it.</li>
 * </ul>
 *
 * Ack is commit and nack is rollback in the common one-delivery claim. Rollbacks can never disable the
 * queue (POISON_MESSAGE_HANDLING is OFF and the adapter dead-letters at its own attempt limit).
 *
 * <p>Thread-safe: settlements are serialised on the claim.
 */
final class BrokerClaim {
    enum State { PENDING, ACKED, DEAD, NACKED, RELEASED }

    private static final class Item {
        final Envelope env;
        final int attempt;
        State state = State.PENDING;
        String text;

        Item(Envelope env, int attempt) {
            this.env = env;
            this.attempt = attempt;
        }
    }

    private final long token;
    private final QueueName queue;
    private final Connection c;
    private final boolean autoBefore;
    private final DataSource ds;
    private final BrokerStatements sql;
    private final BrokerSender sender;
    private final Runnable onClose;
    private final Map<Long, Item> items = new LinkedHashMap<>();
    private boolean closed;

    BrokerClaim(long token, QueueName queue, Connection c, boolean autoBefore, DataSource ds, BrokerStatements sql,
                BrokerSender sender, Runnable onClose) {
        this.token = token;
        this.queue = queue;
        this.c = c;
        this.autoBefore = autoBefore;
        this.ds = ds;
        this.sql = sql;
        this.sender = sender;
        this.onClose = onClose;
    }

    long token() {
        return token;
    }

    void add(Envelope env, int attempt) {
        items.put(env.messageId(), new Item(env, attempt));
    }

    /**
     * Records one outcome; the last one ends the transaction.
     *
     * @throws LeaseLostException if the message is not pending in this claim (already settled)
     */
    synchronized void settle(long messageId, State outcome, String text) {
        Item it = items.get(messageId);
        if (closed || it == null || it.state != State.PENDING) {
            throw new LeaseLostException(messageId, "message " + messageId + " is not held by claim " + token
                    + " of queue '" + queue + "' (already settled, or the claim ended)");
        }
        if (outcome == State.DEAD) {
            try {
                Sql.update(c, sql.insertDeadLetter(), queue.value(), messageId, it.env.payload(), it.env.rawHeaders(),
                        it.attempt, BrokerReceiver.clip(text), it.env.enqueuedMillis());
            } catch (SQLException e) {
                throw BrokerErrors.translate(e, "dead-lettering message " + messageId);
            }
        }
        it.state = outcome;
        it.text = text;
        if (items.values().stream().noneMatch(i -> i.state == State.PENDING)) {
            finish();
        }
    }

    private void finish() {
        boolean commit = items.values().stream().anyMatch(i -> i.state == State.ACKED || i.state == State.DEAD);
        List<DialogPool.Dialog> used = new ArrayList<>();
        boolean committed = false;
        try {
            if (commit) {
                for (Item i : items.values()) {
                    long id = i.env.messageId();
                    switch (i.state) {
                        case NACKED -> {
                            Sql.update(c, sql.raiseAttempts(), queue.value(), id, BrokerReceiver.clip(i.text));
                            used.add(sender.resendOn(c, queue, i.env.encode()));
                        }
                        case RELEASED -> used.add(sender.resendOn(c, queue, i.env.encode()));
                        default -> Sql.update(c, sql.clearAttempts(), queue.value(), id);
                    }
                }
                c.commit();
                committed = true;
            } else {
                raiseNackedElsewhere();
                c.rollback();
            }
        } catch (SQLException e) {
            BrokerSender.rollbackQuietly(c, e);
            throw BrokerErrors.translate(e, "ending claim " + token + " of queue '" + queue + "'");
        } finally {
            for (DialogPool.Dialog d : used) {
                sender.after(queue, d, committed);
            }
            close();
        }
    }

    private void raiseNackedElsewhere() throws SQLException {
        if (items.values().stream().noneMatch(i -> i.state == State.NACKED)) {
            return;
        }
        try (Connection other = ds.getConnection()) {
            boolean auto = other.getAutoCommit();
            other.setAutoCommit(true);
            try {
                for (Item i : items.values()) {
                    if (i.state == State.NACKED) {
                        Sql.update(other, sql.raiseAttempts(), queue.value(), i.env.messageId(), BrokerReceiver.clip(i.text));
                    }
                }
            } finally {
                other.setAutoCommit(auto);
            }
        }
    }

    /** Rolls back without settling (backend close): messages return with attempts unchanged. */
    synchronized void abandon() {
        if (!closed) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // closing the connection below rolls back on the server
            }
            close();
        }
    }

    private void close() {
        closed = true;
        BrokerSender.restore(c, autoBefore);
        BrokerSender.closeQuietly(c);
        onClose.run();
    }

    /** The exception for a settlement naming a claim that is no longer open. */
    static SqlQueueException gone(long messageId, long token) {
        return new LeaseLostException(messageId, "claim " + token + " is not open (settled, rolled back or the backend closed)");
    }
}
