package dev.sqlqueue.skiplocked;

import dev.sqlqueue.LeaseLostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One open transactional claim: the connection whose transaction holds the claimed rows locked, and
 * which of them are still unsettled. The transaction commits when the last one is settled, or rolls
 * back when every one was released. Acks are not written one by one: they are gathered and written by the
 * last settle, in one statement for all of them ({@link AckWriter}), just before the commit; nothing of
 * the claim is durable before that commit in either case. Thread-safe (every use of the connection is
 * synchronized).
 */
final class TransactionalClaim {
    /**
     * Statements for one message, run on the claim's connection; {@code claimedAt} is the claim's database
     * time (ms); {@code timeoutSeconds} the query timeout of each statement: what is left of the claim's
     * lease, at least 1 s ({@link QueryTimeouts}).
     */
    interface Work {
        void run(Connection c, long claimedAt, int timeoutSeconds) throws SQLException;
    }

    /** Writes the gathered acks of a claim (ids, and each one's detail, in ack order) on its connection. */
    interface AckWriter {
        void write(Connection c, long claimedAt, List<Long> ids, List<String> details, int timeoutSeconds) throws SQLException;
    }

    final long token;
    final long claimedAt;
    /** The queue the claim was made on (a receipt naming another queue is refused). */
    final String queue;
    private final Connection connection;
    private final ConnectionState state;
    private final Set<Long> open = new HashSet<>();
    private final AckWriter ackWriter;
    private final List<Long> acked = new ArrayList<>();
    private final List<String> ackDetails = new ArrayList<>();
    private boolean changed;
    private boolean closed;
    private volatile long deadlineNanos;

    TransactionalClaim(long token, long claimedAt, String queue, Connection connection, ConnectionState state,
                       Set<Long> ids, long leaseMillis, boolean changedAlready, AckWriter ackWriter) {
        this.ackWriter = ackWriter;
        this.token = token;
        this.queue = queue;
        this.claimedAt = claimedAt;
        this.connection = connection;
        this.state = state;
        this.open.addAll(ids);
        this.changed = changedAlready;
        extend(leaseMillis);
    }

    void extend(long leaseMillis) {
        deadlineNanos = System.nanoTime() + leaseMillis * 1_000_000L;
    }

    boolean expired() {
        return System.nanoTime() - deadlineNanos > 0;
    }

    /**
     * Run {@code work} for message {@code id} inside the claim's transaction and mark it settled.
     *
     * @param release true when the message is handed back untouched
     * @return true when this settled the last open message (the transaction has then ended)
     * @throws LeaseLostException if the claim is over (committed, rolled back, expired) or the id is not open
     * @throws SQLException if the statement failed: the whole claim is then rolled back
     */
    synchronized boolean settle(long id, Work work, boolean release) throws SQLException {
        if (closed || !open.contains(id)) {
            throw new LeaseLostException(id, "message " + id + " is no longer held by transactional claim " + token
                    + (closed ? " (its transaction has ended)" : ""));
        }
        if (!release) {
            try {
                work.run(connection, claimedAt, QueryTimeouts.seconds((deadlineNanos - System.nanoTime()) / 1_000_000));
            } catch (SQLException | RuntimeException e) {
                abort();
                throw e;
            }
            changed = true;
        }
        open.remove(id);
        if (open.isEmpty()) {
            finish();
            return true;
        }
        return false;
    }

    /**
     * Ack message {@code id}: gathered, written with the others by the claim's last settle.
     *
     * @return true when this settled the last open message (the acks are then written and committed)
     * @throws LeaseLostException if the claim is over or the id is not open
     * @throws SQLException if writing the acks or the commit failed: the whole claim is then rolled back
     */
    synchronized boolean ack(long id, String detail) throws SQLException {
        if (closed || !open.contains(id)) {
            throw new LeaseLostException(id, "message " + id + " is no longer held by transactional claim " + token
                    + (closed ? " (its transaction has ended)" : ""));
        }
        acked.add(id);
        ackDetails.add(detail);
        changed = true;
        open.remove(id);
        if (open.isEmpty()) {
            finish();
            return true;
        }
        return false;
    }

    /** Ids the claim holds locked: unsettled ones and acked ones not yet written. */
    synchronized List<Long> openIds() {
        if (closed) {
            return List.of();
        }
        List<Long> ids = new ArrayList<>(open);
        ids.addAll(acked);
        return ids;
    }

    synchronized boolean holds(long id) {
        return !closed && open.contains(id);
    }

    private void finish() throws SQLException {
        closed = true;
        try {
            if (!acked.isEmpty()) {
                ackWriter.write(connection, claimedAt, acked, ackDetails,
                        QueryTimeouts.seconds((deadlineNanos - System.nanoTime()) / 1_000_000));
            }
            if (changed) {
                connection.commit();
            } else {
                connection.rollback();
            }
        } catch (SQLException e) {
            quietRollback();
            throw e;
        } finally {
            close();
        }
    }

    /** Roll back everything (crash-like): the messages are back with their attempt counts unchanged. */
    synchronized void abort() {
        if (closed) {
            return;
        }
        closed = true;
        quietRollback();
        close();
    }

    synchronized boolean isClosed() {
        return closed;
    }

    private void quietRollback() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection is gone; the server rolls back on its own
        }
    }

    private void close() {
        state.restore(connection);
        try {
            connection.close();
        } catch (SQLException ignored) {
            // already broken
        }
    }
}
