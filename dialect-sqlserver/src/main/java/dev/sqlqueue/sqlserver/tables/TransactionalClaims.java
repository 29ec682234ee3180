package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Open claims of {@link dev.sqlqueue.ClaimMode#TRANSACTIONAL}: each holds one borrowed connection whose
 * transaction ran the claim and stays open until every delivery of the claim is settled. The
 * {@link Receipt#token()} of such a delivery is the claim's handle (a number of this JVM); the row's own
 * lease token is kept here and matched by every settle statement.
 *
 * <p>Each settle statement's query timeout is what is left of the claim's lease ({@link QueryTimeouts});
 * a settle stopped by it ends the claim like any failed statement: the transaction is rolled back
 * explicitly, since the attention the driver sends need not roll it back.
 *
 * <p>When the last delivery is settled the transaction commits, unless every delivery was released:
 * then it rolls back. A failed settle statement (with {@code XACT_ABORT ON} any error has rolled the
 * transaction back) ends the claim: its messages are back on the queue with their attempt counts
 * unchanged, and later settles of the claim get {@link LeaseLostException}.
 *
 * <p>Thread-safe: calls on one claim are serialized on it.
 */
final class TransactionalClaims {
    /** What a settle call does to its row. */
    enum Kind { ACK, NACK, DEAD_LETTER, RELEASE, EXTEND }

    /**
     * A settle statement on the claim's connection; true when it changed exactly one row.
     * {@code secondsLeft}: what is left of the claim's lease, its query timeout ({@link QueryTimeouts}).
     */
    interface SettleWork {
        boolean run(Connection c, ClaimedRow row, int secondsLeft) throws SQLException;
    }

    private final Map<Long, OpenClaim> open = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();

    /** Register a claim whose session ran the claim statement and returned rows. Returns its handle. */
    long register(Sessions.Session session, dev.sqlqueue.QueueName queue, List<ClaimedRow> rows, long leaseMs) {
        long handle = handles.incrementAndGet();
        open.put(handle, new OpenClaim(handle, session, queue, rows, System.nanoTime() + leaseMs * 1_000_000L));
        return handle;
    }

    /** Number of open claims (each holds one connection). */
    int openCount() {
        return open.size();
    }

    /**
     * Run one settle statement of {@code receipt} in its claim's transaction.
     *
     * @throws dev.sqlqueue.InvalidInputException (rule {@code receipt.queue}) if the receipt names another
     *     queue than the claim's; nothing is run and the claim stays open
     * @throws LeaseLostException if the claim has ended, the delivery was already settled, or the
     *     statement changed no row
     * @throws TransientBackendException if the connection broke (the claim rolled back: messages back) or
     *     the commit failed (outcome unknown: the server may have committed; review finding 7)
     */
    void settle(Receipt receipt, Kind kind, SettleWork work) {
        OpenClaim claim = open.get(receipt.token());
        if (claim == null) {
            throw lost(receipt, "its transactional claim has ended (committed, rolled back or its connection failed)");
        }
        synchronized (claim) {
            if (claim.ended) {
                throw lost(receipt, "its transactional claim has ended");
            }
            if (!claim.queue.equals(receipt.queue())) {
                // bad input (issue 14): nothing runs, the claim stays open and unchanged
                throw SqlServerQueueBackend.otherQueue(receipt, claim.queue.value());
            }
            ClaimedRow row = claim.unsettled.get(receipt.messageId());
            if (row == null) {
                throw lost(receipt, "it was already settled in this claim or is not part of it");
            }
            boolean last = claim.unsettled.size() == 1 && kind != Kind.EXTEND;
            boolean skip = kind == Kind.RELEASE && last && !claim.anyKept;
            if (!skip) {
                boolean one;
                try {
                    one = work.run(claim.session.connection, row, QueryTimeouts.remaining(claim.deadlineNanos));
                } catch (SQLException e) {
                    end(claim, false);
                    throw SqlServerErrors.map("settling message " + receipt.messageId() + " of a transactional claim"
                            + " (the claim's transaction was rolled back; its messages are back on the queue)", e);
                } catch (RuntimeException | Error e) {
                    end(claim, false);
                    throw e;
                }
                if (!one) {
                    throw lost(receipt, "the claim's row no longer matches its lease token");
                }
            }
            if (kind == Kind.EXTEND) {
                return;
            }
            claim.unsettled.remove(receipt.messageId());
            if (kind != Kind.RELEASE) {
                claim.anyKept = true;
            }
            if (claim.unsettled.isEmpty()) {
                finish(claim);
            }
        }
    }

    private void finish(OpenClaim claim) {
        try {
            if (claim.anyKept) {
                claim.session.commit();
            } else {
                claim.session.rollback();
            }
        } catch (SQLException e) {
            end(claim, false);
            throw new TransientBackendException(claim.anyKept
                    ? "the transactional claim's commit failed, outcome unknown: the server may have committed before"
                    + " the connection failed, so its messages were either settled as asked or are back on the queue: "
                    + e.getMessage()
                    : "the transactional claim could not roll back; its messages are back on the queue once the"
                    + " server ends the session: " + e.getMessage(), e);
        }
        claim.ended = true;
        open.remove(claim.handle);
        claim.session.restoreAndClose();
    }

    private void end(OpenClaim claim, boolean alreadyRolledBack) {
        claim.ended = true;
        open.remove(claim.handle);
        if (!alreadyRolledBack) {
            claim.session.rollbackQuietly(new SqlQueueException("rollback"));
        }
        claim.session.restoreAndClose();
    }

    /** Roll back every open claim (backend close). */
    void rollbackAll() {
        for (OpenClaim c : new ArrayList<>(open.values())) {
            synchronized (c) {
                if (!c.ended) {
                    end(c, false);
                }
            }
        }
    }

    private static LeaseLostException lost(Receipt r, String why) {
        return new LeaseLostException(r.messageId(), "message " + r.messageId() + " of queue '" + r.queue()
                + "': lease lost, " + why + "; nothing was changed");
    }

    private static final class OpenClaim {
        final long handle;
        final Sessions.Session session;
        final dev.sqlqueue.QueueName queue;
        /** When the claim's lease ends ({@link System#nanoTime}): bounds its settle statements. */
        final long deadlineNanos;
        final Map<Long, ClaimedRow> unsettled = new HashMap<>();
        boolean anyKept;
        boolean ended;

        OpenClaim(long handle, Sessions.Session session, dev.sqlqueue.QueueName queue, List<ClaimedRow> rows,
                  long deadlineNanos) {
            this.handle = handle;
            this.session = session;
            this.queue = queue;
            this.deadlineNanos = deadlineNanos;
            rows.forEach(r -> unsettled.put(r.id(), r));
        }
    }
}
