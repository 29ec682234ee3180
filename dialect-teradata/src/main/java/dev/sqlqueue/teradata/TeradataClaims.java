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
 * <p>Per claim: a peek ({@link TeradataStatements#peek}) before every consume, so an empty queue does not
 * put the session in the delay state; the peek is a dirty read, though, so a consume can still wait for
 * a row another consumer took or another transaction has not committed, which {@link WaitGate} ends
 * (review findings 4 and 5). At most {@code max} consumes of good rows, plus up to
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

    private final long cancelFirst;
    private final long cancelLater;

    /**
     * @param cancelFirst cancel time of a claim's first consume, ms ({@link TeradataOptions#consumeCancelMillis()})
     * @param cancelLater cancel time of the further consumes of a batch claim, which hold rows already
     *     ({@link TeradataOptions#batchConsumeCancelMillis()})
     */
    TeradataClaims(Sessions sessions, WaitGate gate, long cancelFirst, long cancelLater) {
        this.sessions = sessions;
        this.gate = gate;
        this.cancelFirst = cancelFirst;
        this.cancelLater = cancelLater;
    }

    /** Up to {@code max} deliveries, in consume order; empty when the queue looked empty or no permit was free. */
    List<Delivery> consume(TeradataNames n, int max, long leaseMs) {
        long deadline = System.nanoTime() + leaseMs * 1_000_000L;
        int peekSeconds = QueryTimeouts.seconds(leaseMs);
        if (closed) {
            throw new SqlQueueException("the teradata backend is closed");
        }
        return sessions.run("consume from '" + n.queue() + "'", s -> {
            Connection c = s.connection();
            List<Consumed> rows = new ArrayList<>();
            List<Consumed> bad = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                while (rows.size() < max && bad.size() < MAX_MALFORMED && peek(st, n, peekSeconds)) {
                    long cancelMillis = rows.isEmpty() && bad.isEmpty() ? cancelFirst : cancelLater;
                    Consumed row = gate.consume(c, TeradataStatements.consume(n),
                            rs -> rs.next() ? Consumed.read(rs) : null, cancelMillis);
                    if (row == null) {
                        break;
                    }
                    (RowWriter.malformedReason(row) == null ? rows : bad).add(row);
                }
            } catch (WaitGate.Cancelled e) {
                // the abort rolled the transaction back (or the session is gone): every row taken is back
                try {
                    c.rollback();
                } catch (SQLException ignored) {
                    // an aborted connection cannot roll back; the server already did
                }
                if (e.discard()) {
                    sessions.discard(c);
                }
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
            Claim claim = new Claim(tokens.incrementAndGet(), n, s, rows, bad, deadline);
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
                        JdbcTime.instant(r.enqueuedAt()), null));
            }
            return out;
        });
    }

    /** The peek, bounded by the claim's lease ({@link QueryTimeouts}). */
    private static boolean peek(Statement st, TeradataNames n, int seconds) throws SQLException {
        String sql = TeradataStatements.peek(n);
        return QueryTimeouts.run(st, "peek", sql, seconds, () -> {
            try (ResultSet rs = st.executeQuery(sql)) {
                return rs.next();
            }
        });
    }

    private static void writeMalformed(Connection c, TeradataNames n, List<Consumed> bad) throws SQLException {
        for (Consumed m : bad) {
            write(c, n, Claim.Kind.DEAD_LETTER, m, RowWriter.malformedReason(m), 0);
        }
    }

    /**
     * Records the outcome of one delivery; when it was the claim's last, writes every outcome and commits.
     *
     * @throws LeaseLostException if the receipt names no delivery pending in an open claim of this backend
     * @throws dev.sqlqueue.TransientBackendException if writing the outcomes failed with connection loss or a
     *     retryable error: the transaction was rolled back and every message of the claim is back
     * @throws SqlQueueException if COMMIT itself failed: the outcome is unknown (the message says so), or
     *     if an outcome could not be written even with ASCII-only text (rolled back)
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

    /**
     * Writes the outcomes and commits. An outcome INSERT refused for its text (6706) leaves the ANSI
     * transaction open (SQL Request and Transaction Processing, "ANSI Mode Transactions"), so it is tried
     * once more with its text cut to printable ASCII; any other error rolls back at once. A failure of
     * COMMIT itself leaves the outcome unknown and says so.
     */
    private static void finish(Claim claim) {
        Connection c = claim.session.connection();
        TeradataNames n = claim.names;
        try {
            if (claim.onlyReleased()) {
                c.rollback();
                return;
            }
            try {
                for (Claim.Outcome o : claim.outcomes()) {
                    write(c, n, o.kind(), o.row(), o.text(), QueryTimeouts.remaining(claim.deadlineNanos));
                }
                for (Consumed m : claim.malformed()) {
                    write(c, n, Claim.Kind.DEAD_LETTER, m, RowWriter.malformedReason(m), QueryTimeouts.remaining(claim.deadlineNanos));
                }
            } catch (SQLException e) {
                boolean lost = !claim.session.rollbackQuietly() || !Sessions.valid(c);
                throw TeradataErrors.translate("writing the outcomes of the claim on '" + n.queue()
                        + "' (rolled back: its messages are back in the queue with unchanged attempt counts)", e, lost);
            }
            try {
                c.commit();
            } catch (SQLException e) {
                claim.session.rollbackQuietly();
                throw TeradataErrors.commitUnknown("committing the claim on '" + n.queue() + "'", e);
            }
        } catch (SQLException e) {
            boolean lost = !claim.session.rollbackQuietly() || !Sessions.valid(c);
            throw TeradataErrors.translate("rolling back the claim on '" + n.queue() + "'", e, lost);
        } finally {
            claim.ended = true;
            claim.session.close();
        }
    }

    /**
     * {@code seconds}: the write's query timeout, what is left of the claim's lease (0: none). A nack or
     * dead-letter INSERT whose text the database refused (6706, a request-level error: the transaction and
     * its consumes stay open) is tried once more with ASCII-only text; every other error is thrown, because
     * an error that ended the transaction (a query timeout's abort, a deadlock, a lost session) would make a
     * second INSERT run in a new transaction while the consumed rows are back in the queue (review N1).
     */
    private static void write(Connection c, TeradataNames n, Claim.Kind kind, Consumed row, String text, int seconds)
            throws SQLException {
        try {
            writeOnce(c, n, kind, row, text, seconds);
        } catch (SQLException e) {
            boolean textWrite = kind == Claim.Kind.NACK || kind == Claim.Kind.DEAD_LETTER;
            if (!textWrite || !TeradataErrors.untranslatable(e) || !Sessions.valid(c)) {
                throw e;
            }
            writeOnce(c, n, kind, row, RowWriter.asciiText(text), seconds);
        }
    }

    private static void writeOnce(Connection c, TeradataNames n, Claim.Kind kind, Consumed row, String text, int seconds)
            throws SQLException {
        switch (kind) {
            case NACK -> RowWriter.reinsert(c, n, row, row.attempts() + 1, text, seconds);
            case RELEASE -> RowWriter.restore(c, n, row, seconds);
            case DEAD_LETTER -> RowWriter.deadLetter(c, n, row, row.attempts() + 1, text, seconds);
            case ACK -> { }
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
