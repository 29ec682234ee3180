package dev.sqlqueue.teradata;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Transactional claims: consume with {@code SELECT AND CONSUME TOP 1} in an ANSI transaction that stays
 * open until every delivery is settled, then write the outcomes and COMMIT (or ROLLBACK when every
 * delivery was released). Thread-safe; each open claim is guarded by its own monitor.
 *
 * <p>Per claim: a peek ({@link TeradataStatements#peek}) before every consume, so an empty queue never
 * puts the session in the delay state; at most {@code max} consumes of good rows, plus up to
 * {@value #MAX_MALFORMED} rows whose headers cannot be decoded (they go to the dead-letter table in the
 * same transaction and are not returned). The manual caps a transaction at 2,210 consumes (B035-1142).
 */
final class TeradataClaims {
    /** Malformed rows a single claim may move to the dead-letter table besides its good rows. */
    static final int MAX_MALFORMED = 100;

    private final Sessions sessions;
    private final WaitGate gate;
    private final Map<Long, Claim> open = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final AtomicLong tokens = new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 40) << 16);

    TeradataClaims(Sessions sessions, WaitGate gate) {
        this.sessions = sessions;
        this.gate = gate;
    }

    /** Up to {@code max} deliveries, in consume order; empty when the queue looked empty or no permit was free. */
    List<Delivery> consume(TeradataNames n, int max) {
        if (closed) {
            throw new SqlQueueException("the teradata backend is closed");
        }
        return sessions.run("consume from '" + n.queue() + "'", s -> {
            Connection c = s.connection();
            List<Consumed> rows = new ArrayList<>();
            List<Consumed> bad = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                while (rows.size() < max && bad.size() < MAX_MALFORMED && peek(st, n)) {
                    Consumed row = gate.consume(st, TeradataStatements.consume(n), rs -> rs.next() ? Consumed.read(rs) : null);
                    if (row == null) {
                        break;
                    }
                    (RowWriter.malformedReason(row) == null ? rows : bad).add(row);
                }
            } catch (WaitGate.Cancelled e) {
                c.rollback();
                return List.of();
            }
            if (rows.isEmpty()) {
                if (!bad.isEmpty()) {
                    writeMalformed(c, n, bad);
                    c.commit();
                } else {
                    c.rollback();
                }
                return List.of();
            }
            Claim claim = new Claim(tokens.incrementAndGet(), n, s, rows, bad);
            open.put(claim.token, claim);
            if (closed) {
                // close() ran while this claim was being consumed: do not leave its transaction open
                open.remove(claim.token);
                c.rollback();
                return List.of();
            }
            s.keep();
            List<Delivery> out = new ArrayList<>(rows.size());
            for (Consumed r : rows) {
                Receipt receipt = new Receipt(n.queue(), r.id(), claim.token, ClaimMode.TRANSACTIONAL);
                out.add(new Delivery(receipt, r.payload().clone(), HeaderCodec.decode(r.headers()), r.attempts() + 1, 0,
                        r.enqueuedAt().toInstant(), null));
            }
            return out;
        });
    }

    private static boolean peek(Statement st, TeradataNames n) throws SQLException {
        try (ResultSet rs = st.executeQuery(TeradataStatements.peek(n))) {
            return rs.next();
        }
    }

    private static void writeMalformed(Connection c, TeradataNames n, List<Consumed> bad) throws SQLException {
        for (Consumed m : bad) {
            RowWriter.deadLetter(c, n, m, m.attempts() + 1, RowWriter.malformedReason(m));
        }
    }

    /**
     * Records the outcome of one delivery; when it was the claim's last, writes every outcome and commits.
     *
     * @throws LeaseLostException if the receipt names no delivery pending in an open claim of this backend
     * @throws dev.sqlqueue.TransientBackendException if the final commit failed with connection loss or a
     *     retryable error: the transaction was rolled back and every message of the claim is back
     */
    void settle(Receipt r, Claim.Kind kind, String text) {
        Claim claim = r.mode() == ClaimMode.TRANSACTIONAL ? open.get(r.token()) : null;
        if (claim != null && !claim.names.queue().equals(r.queue())) {
            throw new dev.sqlqueue.InvalidInputException("receipt.queue", "the receipt names queue '" + r.queue()
                    + "' but message " + r.messageId() + " was claimed from queue '" + claim.names.queue() + "'; nothing was changed");
        }
        if (claim == null) {
            throw lost(r);
        }
        synchronized (claim) {
            if (claim.ended || claim.pending(r.messageId()) == null) {
                throw lost(r);
            }
            claim.record(kind, r.messageId(), text);
            if (!claim.settled()) {
                return;
            }
            open.remove(claim.token);
            finish(claim);
        }
    }

    private static LeaseLostException lost(Receipt r) {
        return new LeaseLostException(r.messageId(), "message " + r.messageId() + " of '" + r.queue()
                + "' is not pending in an open claim of this backend (already settled, rolled back or closed)");
    }

    private static void finish(Claim claim) {
        Connection c = claim.session.connection();
        TeradataNames n = claim.names;
        try {
            if (claim.onlyReleased()) {
                c.rollback();
                return;
            }
            for (Claim.Outcome o : claim.outcomes()) {
                switch (o.kind()) {
                    case NACK -> RowWriter.reinsert(c, n, o.row(), o.row().attempts() + 1, o.text());
                    case RELEASE -> RowWriter.restore(c, n, o.row());
                    case DEAD_LETTER -> RowWriter.deadLetter(c, n, o.row(), o.row().attempts() + 1, o.text());
                    case ACK -> { }
                }
            }
            writeMalformed(c, n, claim.malformed());
            c.commit();
        } catch (SQLException e) {
            boolean lost = !claim.session.rollbackQuietly() || !Sessions.valid(c);
            throw TeradataErrors.translate("committing the claim on '" + n.queue()
                    + "' (rolled back: its messages are back in the queue with unchanged attempt counts)", e, lost);
        } finally {
            claim.ended = true;
            claim.session.close();
        }
    }

    /** Deliveries of open claims of this backend instance on the queue (this process only). */
    long inFlight(QueueName q) {
        long sum = 0;
        for (Claim c : open.values()) {
            if (c.names.queue().equals(q)) {
                synchronized (c) {
                    sum += c.ended ? 0 : c.pendingCount();
                }
            }
        }
        return sum;
    }

    /** Cancels running consumes and rolls back every open claim (the messages are back at once). */
    void close() {
        closed = true;
        gate.close();
        for (Claim c : open.values()) {
            synchronized (c) {
                if (!c.ended) {
                    c.ended = true;
                    c.session.rollbackQuietly();
                    c.session.close();
                }
            }
        }
        open.clear();
    }
}
