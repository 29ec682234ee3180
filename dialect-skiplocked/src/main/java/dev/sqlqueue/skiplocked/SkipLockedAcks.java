package dev.sqlqueue.skiplocked;

import static dev.sqlqueue.skiplocked.Transactions.timedUpdate;
import static dev.sqlqueue.skiplocked.Transactions.clip;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.Receipt;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settling claimed messages on the SKIP LOCKED backend: ack, nack, lease extension, dead-letter and
 * release, of leases (each in its own transaction, matching id, token and queue) and of transactional
 * claims (inside the claim's transaction, through {@link TransactionalClaims}). Thread-safe.
 */
final class SkipLockedAcks {
    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Transactions tx;
    private final TransactionalClaims transactional;
    private final Map<Long, TransactionalClaim> claims;
    private final QueryTimeouts timeouts;

    SkipLockedAcks(SkipLockedStatements sql, QueueConfig config, Transactions tx, TransactionalClaims transactional,
                   QueryTimeouts timeouts) {
        this.timeouts = timeouts;
        this.sql = sql;
        this.config = config;
        this.tx = tx;
        this.transactional = transactional;
        this.claims = transactional.claims;
    }

    /** A settle's transaction, its network bounded as its statements are (the longest lease granted so far). */
    private <T> T inTransaction(String what, Transactions.SqlWork<T> work) {
        return tx.inTransaction(what, timeouts.settle(), work);
    }

    private TransactionalClaim claim(Receipt r) {
        return transactional.claim(r);
    }

    private void inClaim(Receipt r, TransactionalClaim.Work work, boolean release) {
        transactional.inClaim(r, work, release);
    }

    /**
     * Throws {@link InvalidInputException} (rule {@code receipt.queue}) when the receipt's row is held
     * under its token but in another queue than the receipt names. Called after a settle statement
     * matched no row, inside its transaction, which the exception rolls back.
     */
    private void rejectOtherQueue(Connection c, Receipt r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.leaseQueue)) {
            ps.setLong(1, r.messageId());
            ps.setLong(2, r.token());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && !rs.getString(1).equals(r.queue().value())) {
                    throw otherQueue(r, rs.getString(1));
                }
            }
        }
    }

    static InvalidInputException otherQueue(Receipt r, String actual) {
        return new InvalidInputException("receipt.queue", "the receipt names queue '" + r.queue().value()
                + "' but message " + r.messageId() + " was claimed from queue '" + actual + "'; nothing was changed");
    }

    private void expectOne(Connection c, int count, Receipt r, String what) throws SQLException {
        if (count != 1) {
            rejectOtherQueue(c, r);
            throw new LeaseLostException(r.messageId(), what + " of message " + r.messageId()
                    + " found no row with its lease token: the lease was lost (expired and claimed again, or already settled)");
        }
    }

    void ack(Receipt receipt) {
        ack(receipt, null);
    }

    void ack(Receipt r, String detail) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            TransactionalClaim claim = claim(r);
            try {
                if (claim.ack(r.messageId(), detail)) {
                    claims.remove(claim.token);
                }
            } catch (SQLException e) {
                claims.remove(claim.token);
                if (JdbcErrors.isConnectionLoss(e) && !(e instanceof QueryTimeouts.StatementTimeout)) {
                    tx.sweepStaleSlots(); // a killed session may have left a slot stale (H2)
                    throw new LeaseLostException(r.messageId(), "the connection of transactional claim " + claim.token
                            + " broke; its messages were rolled back to the queue: " + e.getMessage());
                }
                throw JdbcErrors.translate("settle transactional claim", e);
            }
            return;
        }
        int t = timeouts.settle();
        inTransaction("ack", c -> {
            if (config.history()) {
                timedUpdate(c, "historyLeased", sql.historyLeased, t, "acked", clip(detail), r.messageId(), r.token(), r.queue().value());
            }
            expectOne(c, timedUpdate(c, "deleteLeased", sql.deleteLeased, t, r.messageId(), r.token(), r.queue().value()), r, "ack");
            return null;
        });
    }

    Set<Receipt> ackAll(Collection<Receipt> receipts) {
        Set<Receipt> lost = new HashSet<>();
        List<Receipt> leased = new ArrayList<>();
        for (Receipt r : receipts) {
            if (r.mode() == ClaimMode.TRANSACTIONAL) {
                try {
                    ack(r);
                } catch (LeaseLostException e) {
                    lost.add(r);
                }
            } else {
                leased.add(r);
            }
        }
        if (leased.isEmpty()) {
            return lost;
        }
        int t = timeouts.settle();
        if (sql.ackByClaim != null && !config.history() && oneClaim(leased)) {
            lost.addAll(ackOneClaim(leased, t));
            return lost;
        }
        if (sql.deleteLeasedByIds != null && !config.history() && ackedByClaim(leased, t)) {
            return lost;
        }
        if (sql.idLists && !config.history() && ackedByIdLists(leased, t)) {
            return lost;
        }
        inTransaction("ack", c -> {
            if (config.history()) {
                batch(c, "historyLeased", sql.historyLeased, t, leased,
                        r -> new Object[] {"acked", null, r.messageId(), r.token(), r.queue().value()});
            }
            int[] counts = batch(c, "deleteLeased", sql.deleteLeased, t, leased,
                    r -> new Object[] {r.messageId(), r.token(), r.queue().value()});
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == 0) {
                    rejectOtherQueue(c, leased.get(i)); // rolls the whole batch back
                    lost.add(leased.get(i));
                }
            }
            return null;
        });
        return lost;
    }

    private static boolean oneClaim(List<Receipt> leased) {
        Receipt first = leased.get(0);
        for (Receipt r : leased) {
            if (r.token() != first.token() || !r.queue().equals(first.queue())) {
                return false;
            }
        }
        return true;
    }

    /**
     * PostgreSQL without history, receipts of one claim (queue and lease token; a worker's batch): {@link
     * SkipLockedStatements#ackByClaim}, one statement in one auto-commit round trip, where a transaction needs
     * two. It returns the ids it deleted, so the receipts it did not return are the lost leases, with no
     * second pass. A receipt naming another queue than its claim's matched no row (a claim is one queue, its
     * token is its own): {@link InvalidInputException} (rule {@code receipt.queue}), nothing was changed.
     *
     * @return the receipts whose lease was lost
     */
    private Set<Receipt> ackOneClaim(List<Receipt> leased, int timeoutSeconds) {
        Receipt first = leased.get(0);
        Long[] ids = new Long[leased.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = leased.get(i).messageId();
        }
        return tx.inAutoCommit("ack", false, timeouts.settle(), c -> {
            Set<Long> deleted = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement(sql.ackByClaim)) {
                PostgresPlans.planEveryExecution(ps);
                ps.setString(1, first.queue().value());
                ps.setLong(2, first.token());
                ps.setObject(3, ids);
                QueryTimeouts.run(ps, "ackByClaim", sql.ackByClaim, timeoutSeconds, () -> {
                    try (ResultSet rs = ClaimRows.resultOf(ps, true)) {
                        while (rs.next()) {
                            deleted.add(rs.getLong(1));
                        }
                    }
                    return null;
                });
            }
            Set<Receipt> lost = new HashSet<>();
            for (Receipt r : leased) {
                if (!deleted.contains(r.messageId())) {
                    lost.add(r);
                }
            }
            if (deleted.isEmpty()) {
                rejectOtherQueue(c, first);
            }
            return lost;
        });
    }

    /** A claim's acks matched fewer rows than receipts: roll back, and ack row by row to learn which. */
    private static final class NotAllHeld extends RuntimeException {
        NotAllHeld() {
            super(null, null, false, false);
        }
    }

    /**
     * PostgreSQL and H2 without history: one {@link SkipLockedStatements#deleteLeasedByIds} per claim (queue
     * and lease token) of the receipts, in one JDBC batch and one transaction.
     *
     * @return true when every receipt's row was deleted (committed); false when one was not held (rolled
     *     back, nothing changed: the caller then acks row by row, which tells which leases were lost)
     */
    private boolean ackedByClaim(List<Receipt> leased, int timeoutSeconds) {
        Map<Map.Entry<String, Long>, List<Long>> byClaim = new java.util.LinkedHashMap<>();
        for (Receipt r : leased) {
            byClaim.computeIfAbsent(Map.entry(r.queue().value(), r.token()), k -> new ArrayList<>()).add(r.messageId());
        }
        try {
            inTransaction("ack", c -> {
                Transactions.setPlan(c, sql.idArrayPlan);
                try (PreparedStatement ps = c.prepareStatement(sql.deleteLeasedByIds)) {
                    if (sql.planIdArraysEachTime) {
                        PostgresPlans.planEveryExecution(ps);
                    }
                    List<Integer> sizes = new ArrayList<>();
                    for (Map.Entry<Map.Entry<String, Long>, List<Long>> e : byClaim.entrySet()) {
                        ps.setString(1, e.getKey().getKey());
                        ps.setLong(2, e.getKey().getValue());
                        ps.setObject(3, e.getValue().toArray(new Long[0]));
                        ps.addBatch();
                        sizes.add(e.getValue().size());
                    }
                    int[] counts = QueryTimeouts.run(ps, "deleteLeasedByIds", sql.deleteLeasedByIds, timeoutSeconds,
                            ps::executeBatch);
                    for (int i = 0; i < counts.length; i++) {
                        if (counts[i] != sizes.get(i)) {
                            throw new NotAllHeld();
                        }
                    }
                }
                return null;
            });
            return true;
        } catch (NotAllHeld e) {
            return false;
        }
    }

    /**
     * MariaDB without history: one {@link SkipLockedStatements#deleteLeasedIn} per claim (queue and lease token) of
     * the receipts, at most {@link SkipLockedStatements#MAX_IDS_PER_STATEMENT} ids each, in one transaction: a
     * statement per claim where a JDBC batch of {@link SkipLockedStatements#deleteLeased} ran one per receipt.
     *
     * @return true when every receipt's row was deleted (committed); false when one was not held (rolled back,
     *     nothing changed: the caller then acks row by row, which tells which leases were lost)
     */
    private boolean ackedByIdLists(List<Receipt> leased, int timeoutSeconds) {
        Map<Map.Entry<String, Long>, List<Long>> byClaim = new java.util.LinkedHashMap<>();
        for (Receipt r : leased) {
            byClaim.computeIfAbsent(Map.entry(r.queue().value(), r.token()), k -> new ArrayList<>()).add(r.messageId());
        }
        try {
            inTransaction("ack", c -> {
                for (Map.Entry<Map.Entry<String, Long>, List<Long>> e : byClaim.entrySet()) {
                    List<Long> ids = e.getValue();
                    for (int from = 0; from < ids.size(); from += SkipLockedStatements.MAX_IDS_PER_STATEMENT) {
                        List<Long> part = ids.subList(from, Math.min(ids.size(), from + SkipLockedStatements.MAX_IDS_PER_STATEMENT));
                        String delete = sql.deleteLeasedIn(part.size());
                        try (PreparedStatement ps = c.prepareStatement(delete)) {
                            ps.setLong(1, e.getKey().getValue());
                            ps.setString(2, e.getKey().getKey());
                            for (int i = 0; i < part.size(); i++) {
                                ps.setLong(i + 3, part.get(i));
                            }
                            if (QueryTimeouts.run(ps, "deleteLeasedIn", delete, timeoutSeconds, ps::executeUpdate) != part.size()) {
                                throw new NotAllHeld();
                            }
                        }
                    }
                }
                return null;
            });
            return true;
        } catch (NotAllHeld e) {
            return false;
        }
    }

    /** One statement over many receipts in a JDBC batch; exact per-row update counts. */
    private static int[] batch(Connection c, String name, String statement, int timeoutSeconds, List<Receipt> receipts,
                               java.util.function.Function<Receipt, Object[]> params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (Receipt r : receipts) {
                Object[] p = params.apply(r);
                for (int i = 0; i < p.length; i++) {
                    ps.setObject(i + 1, p[i]);
                }
                ps.addBatch();
            }
            int[] counts = QueryTimeouts.run(ps, name, statement, timeoutSeconds, ps::executeBatch);
            for (int count : counts) {
                if (count == Statement.SUCCESS_NO_INFO) {
                    throw new SQLException("the driver did not report per-row update counts for a batch;"
                            + " with MariaDB Connector/J set useBulkStmts=false");
                }
            }
            return counts;
        }
    }

    void nack(Receipt r, Duration delay, String error) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt, t) -> timedUpdate(c, "nackById", sql.nackById, t, delay.toMillis(), clip(error),
                    r.messageId()), false);
            return;
        }
        int t = timeouts.settle();
        inTransaction("nack", c -> {
            expectOne(c, timedUpdate(c, "nackLeased", sql.nackLeased, t, delay.toMillis(), clip(error), r.messageId(), r.token(),
                    r.queue().value()), r, "nack");
            return null;
        });
    }

    void extend(Receipt r, Duration lease) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            claim(r).extend(lease.toMillis());
            return;
        }
        int t = timeouts.extend(lease.toMillis());
        inTransaction("extend lease", c -> {
            expectOne(c, timedUpdate(c, "extend", sql.extend, t, lease.toMillis(), r.messageId(), r.token(), r.queue().value()),
                    r, "lease extension");
            return null;
        });
    }

    void deadLetter(Receipt r, String reason) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt, t) -> {
                timedUpdate(c, "deadLetterById", sql.deadLetterById, t, clip(reason), r.messageId());
                if (config.history()) {
                    timedUpdate(c, "historyById", sql.historyById, t, claimedAt, "dead-lettered", clip(reason), r.messageId());
                }
                timedUpdate(c, "deleteById", sql.deleteById, t, r.messageId());
            }, false);
            return;
        }
        int t = timeouts.settle();
        inTransaction("dead-letter", c -> {
            expectOne(c, timedUpdate(c, "deadLetterLeased", sql.deadLetterLeased, t, clip(reason), r.messageId(), r.token(),
                    r.queue().value()), r, "dead-letter");
            if (config.history()) {
                timedUpdate(c, "historyLeased", sql.historyLeased, t, "dead-lettered", clip(reason), r.messageId(), r.token(),
                        r.queue().value());
            }
            timedUpdate(c, "deleteLeased", sql.deleteLeased, t, r.messageId(), r.token(), r.queue().value());
            return null;
        });
    }

    void release(Receipt r) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt, t) -> { }, true);
            return;
        }
        int t = timeouts.settle();
        inTransaction("release", c -> {
            expectOne(c, timedUpdate(c, "releaseLeased", sql.releaseLeased, t, r.messageId(), r.token(), r.queue().value()),
                    r, "release");
            return null;
        });
    }
}
