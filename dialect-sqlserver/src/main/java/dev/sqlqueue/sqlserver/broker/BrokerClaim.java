package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One open RECEIVE transaction and the deliveries it returned (transactional claim mode). One RECEIVE
 * returns messages of one conversation, so a claim holds either messages without a group (from a
 * pooled dialog or a dialog of their own) or messages of one group (from the group's dialog). A
 * savepoint is taken just before the RECEIVE. The transaction stays open on its connection until every
 * delivery is settled, then:
 *
 * <ul>
 *   <li>no delivery acked or dead-lettered (only nacks and releases): rollback to the savepoint, which
 *       returns the messages to the queue in place (in front of the rest of their group) and releases
 *       the locks taken after it; the nacks' attempt counts are raised in the same batch
 *       ({@link ClaimStatements#releaseClaim}) and the transaction commits. One connection, one transaction, and no transaction is rolled back, so nothing counts
 *       toward Service Broker's poison-message rule (five rollbacks in a row);</li>
 *   <li>otherwise commit: acked messages are gone (with a history row when the queue keeps history);
 *       dead-lettered ones were copied to the dead-letter table; nacked ones get attempts + 1 and, like
 *       released ones, are sent again (same id, enqueue time and group) in the same transaction, so
 *       they come back behind later messages (of their group, for a group). The same happens when the
 *       receive itself already wrote something that must stay (a poison message moved to the dead-letter
 *       table, a conversation ended), because rolling back to the savepoint would undo it.</li>
 * </ul>
 *
 * Every message of a group that leaves the queue deletes its pending row in the same transaction
 * ({@link ClaimStatements#groupSettled}). A crash or closed connection rolls back the whole
 * transaction: the messages return, attempts unchanged.
 *
 * <p>Thread-safe: settlements are serialised on the claim.
 */
public final class BrokerClaim {
    enum State { PENDING, ACKED, DEAD, NACKED, RELEASED }

    private static final class Item {
        final Envelope env;
        final int attempt;
        final long receivedMillis;
        State state = State.PENDING;
        String text;

        Item(Envelope env, int attempt, long receivedMillis) {
            this.env = env;
            this.attempt = attempt;
            this.receivedMillis = receivedMillis;
        }
    }

    private final long token;
    private final QueueName queue;
    private final Connection c;
    private final Savepoint beforeReceive;
    private final boolean autoBefore;
    private final BrokerStatements sql;
    private final BrokerSender sender;
    private final Runnable onClose;
    private final boolean history;
    private final Map<Long, Item> items = new LinkedHashMap<>();
    private boolean wroteOnReceive;
    private boolean closed;

    BrokerClaim(long token, QueueName queue, Connection c, Savepoint beforeReceive, boolean autoBefore, BrokerStatements sql,
                BrokerSender sender, boolean history, Runnable onClose) {
        this.history = history;
        this.token = token;
        this.queue = queue;
        this.c = c;
        this.beforeReceive = beforeReceive;
        this.autoBefore = autoBefore;
        this.sql = sql;
        this.sender = sender;
        this.onClose = onClose;
    }

    long token() {
        return token;
    }

    QueueName queue() {
        return queue;
    }

    /** The query timeout of this claim's settle statements: its lease in whole seconds (issue 20). */
    int boundSeconds = 30;

    /** The receive wrote something that a rollback to the savepoint must not undo. */
    void wroteOnReceive() {
        wroteOnReceive = true;
    }

    /** @param receivedMillis when the RECEIVE returned, ms since 1970 on the database clock (0 without history) */
    void add(Envelope env, int attempt, long receivedMillis) {
        items.put(env.messageId(), new Item(env, attempt, receivedMillis));
    }

    /**
     * Records one outcome; the last one ends the transaction.
     *
     * @throws LeaseLostException if the message is not pending in this claim (already settled)
     */
    @SuppressWarnings("try") // the query-timeout scope is held for its close only, which restores the previous bound
    synchronized void settle(long messageId, State outcome, String text) {
        try (Sql.Scope bound = Sql.bound("settle of claim " + token, boundSeconds)) {
            settleBounded(messageId, outcome, text);
        }
    }

    private void settleBounded(long messageId, State outcome, String text) {
        Item it = items.get(messageId);
        if (closed || it == null || it.state != State.PENDING) {
            throw new LeaseLostException(messageId, "message " + messageId + " is not held by claim " + token
                    + " of queue '" + queue + "' (already settled, or the claim ended)");
        }
        if (outcome == State.DEAD) {
            try {
                Sql.update(c, sql.deadLetters().insertDeadLetter(), queue.value(), messageId, it.env.payload(), it.env.rawHeaders(),
                        it.attempt, BrokerReceiver.clip(text), it.env.enqueuedMillis(), BrokerReceiver.orNull(it.env.group()));
            } catch (SQLException e) {
                // the transaction may be gone (deadlock victim): end the claim, the messages come back
                abandon();
                throw BrokerErrors.translate(e, "dead-lettering message " + messageId + " (claim " + token
                        + " rolled back; its messages will be delivered again)");
            }
        }
        it.state = outcome;
        it.text = text;
        if (items.values().stream().noneMatch(i -> i.state == State.PENDING)) {
            finish();
        }
    }

    private void finish() {
        boolean done = items.values().stream().anyMatch(i -> i.state == State.ACKED || i.state == State.DEAD);
        BrokerSender.Resend resend = sender.resender(c, queue);
        boolean committed = false;
        boolean restore = true;
        try {
            Sql.update(c, sql.claims().requireOpenTransaction());
            if (!done && !wroteOnReceive) {
                List<Item> nacked = items.values().stream().filter(i -> i.state == State.NACKED).toList();
                List<Object> params = new ArrayList<>();
                params.add(queue.value());
                for (Item i : nacked) {
                    params.add(i.env.messageId());
                    params.add(BrokerReceiver.clip(i.text));
                }
                Sql.update(c, sql.claims().releaseClaim(nacked.size()), params.toArray());
            } else {
                for (Item i : items.values()) {
                    long id = i.env.messageId();
                    settledInGroup(i);
                    switch (i.state) {
                        case NACKED -> {
                            Sql.update(c, sql.claims().raiseAttempts(), queue.value(), id, BrokerReceiver.clip(i.text));
                            resend.send(i.env);
                        }
                        case RELEASED -> resend.send(i.env);
                        case ACKED -> {
                            Sql.update(c, sql.claims().clearAttempts(), queue.value(), id);
                            record(i, "acked");
                        }
                        default -> {
                            Sql.update(c, sql.claims().clearAttempts(), queue.value(), id);
                            record(i, "dead-lettered");
                        }
                    }
                }
            }
            c.commit();
            committed = true;
        } catch (SQLException e) {
            restore = BrokerConnections.rollback(c, e);
            throw BrokerErrors.translate(e, "ending claim " + token + " of queue '" + queue + "'");
        } catch (RuntimeException e) {
            // for example no pooled dialog for a resend: roll back before close() restores auto-commit,
            // which would otherwise commit the acks without the resend
            restore = BrokerConnections.rollback(c, e);
            throw e;
        } finally {
            resend.end(committed);
            close(restore);
        }
    }

    private void settledInGroup(Item i) throws SQLException {
        if (i.env.group() != null) {
            Sql.update(c, sql.claims().groupSettled(), queue.value(), i.env.messageId());
        }
    }

    private void record(Item i, String outcome) throws SQLException {
        if (history) {
            Sql.update(c, sql.deadLetters().insertHistory(), queue.value(), i.env.messageId(), i.env.enqueuedMillis(), i.receivedMillis,
                    i.attempt, outcome, BrokerReceiver.orNull(i.text == null ? null : BrokerReceiver.clip(i.text)));
        }
    }

    /**
     * Rolls back without settling (backend close, failed settlement): messages return with attempts
     * unchanged. If the rollback fails the connection is aborted, never given auto-commit back: mssql-jdbc's
     * {@code setAutoCommit(true)} would commit the RECEIVE, and the message would be lost (re-review m2).
     */
    synchronized void abandon() {
        if (!closed) {
            close(BrokerConnections.rollback(c, null));
        }
    }

    /** Ends the claim; {@code restore} false after an aborted rollback (auto-commit must not come back). */
    private void close(boolean restore) {
        closed = true;
        if (restore) {
            BrokerConnections.restore(c, autoBefore);
        }
        BrokerConnections.close(c);
        onClose.run();
    }

    /** The exception for a settlement naming a claim that is no longer open. */
    static SqlQueueException gone(long messageId, long token) {
        return new LeaseLostException(messageId, "claim " + token + " is not open (settled, rolled back or the backend closed)");
    }
}
