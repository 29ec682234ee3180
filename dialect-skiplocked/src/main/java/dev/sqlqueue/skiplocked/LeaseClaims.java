package dev.sqlqueue.skiplocked;

import static dev.sqlqueue.skiplocked.Transactions.update;
import static dev.sqlqueue.skiplocked.Transactions.clip;
import static dev.sqlqueue.skiplocked.Transactions.newToken;

import dev.sqlqueue.skiplocked.ClaimRows.Row;
import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease-mode claims of the SKIP LOCKED backend: the claim stamps a lease on the rows it locked and commits
 * (on PostgreSQL in one statement). Thread-safe.
 */
final class LeaseClaims {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedBackend.class);

    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Transactions tx;
    private final ClaimRows claimRows;
    private final QueryTimeouts timeouts;

    LeaseClaims(SkipLockedStatements sql, QueueConfig config, Transactions tx, ClaimRows claimRows, QueryTimeouts timeouts) {
        this.timeouts = timeouts;
        this.sql = sql;
        this.config = config;
        this.tx = tx;
        this.claimRows = claimRows;
    }

    private long selectCandidates(Connection c, QueueName queue, int limit, List<Row> rows, int timeoutSeconds)
            throws SQLException {
        return claimRows.selectCandidates(c, queue, limit, rows, timeoutSeconds);
    }

    private List<Map<String, String>> screen(Connection c, List<Row> rows) throws SQLException {
        return claimRows.screen(c, rows);
    }

    List<Delivery> consumeLeased(QueueName queue, ConsumeRequest request) {
        if (sql.leaseClaim != null) {
            return consumeLeasedInOne(queue, request);
        }
        long token = newToken();
        int timeout = timeouts.claim(request.lease().toMillis());
        return tx.inTransaction("consume", timeout, c -> claim(c, queue, request, token, timeout));
    }

    /** A lease claim in the transaction of {@code c}: the locking select, then the lease of the rows it locked. */
    private List<Delivery> claim(Connection c, QueueName queue, ConsumeRequest request, long token, int timeout)
            throws SQLException {
        List<Row> rows = new ArrayList<>();
        selectCandidates(c, queue, request.maxMessages(), rows, timeout);
        if (rows.isEmpty()) {
            return List.of();
        }
        List<Map<String, String>> headers = screen(c, rows);
        if (!rows.isEmpty() && sql.leaseUpdateByIds != null) {
            // H2: the lease of all the claim's rows in one statement
            try (PreparedStatement ps = c.prepareStatement(sql.leaseUpdateByIds)) {
                ps.setLong(1, token);
                ps.setLong(2, request.lease().toMillis());
                ps.setObject(3, rows.stream().map(Row::id).toArray(Long[]::new));
                QueryTimeouts.run(ps, "leaseUpdateByIds", sql.leaseUpdateByIds, timeout, ps::executeUpdate);
            }
        } else if (!rows.isEmpty() && sql.idLists) {
            // MariaDB: the lease of all the claim's rows in one statement, by their ids
            String update = sql.leaseUpdateIn(rows.size());
            try (PreparedStatement ps = c.prepareStatement(update)) {
                ps.setLong(1, token);
                ps.setLong(2, request.lease().toMillis());
                for (int i = 0; i < rows.size(); i++) {
                    ps.setLong(i + 3, rows.get(i).id());
                }
                int leased = QueryTimeouts.run(ps, "leaseUpdateIn", update, timeout, ps::executeUpdate);
                if (leased != rows.size()) {
                    throw new SQLException("the lease update matched " + leased + " of the " + rows.size()
                            + " rows its claim locked");
                }
            }
        } else if (!rows.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.leaseUpdate)) {
                for (Row r : rows) {
                    ps.setLong(1, token);
                    ps.setLong(2, request.lease().toMillis());
                    ps.setLong(3, r.id());
                    ps.addBatch();
                }
                QueryTimeouts.run(ps, "leaseUpdate", sql.leaseUpdate, timeout, ps::executeBatch);
            }
        }
        List<Delivery> out = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            out.add(new Delivery(new Receipt(queue, r.id(), token, ClaimMode.LEASE), r.payload(), headers.get(i),
                    r.attempts() + 1, r.priority(), Instant.ofEpochMilli(r.enqueuedAt()), r.group()));
        }
        return out;
    }

    /**
     * PostgreSQL: the acks of one claim and the next lease claim in one round trip and one commit ({@link
     * SkipLockedStatements#ackAndLeaseClaim}). Receipts whose row the delete did not return are the lost leases.
     *
     * @param receipts receipts of one lease claim (one queue, one token), not empty
     */
    AckedAndClaimed ackAndConsumeLeased(List<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        Set<Long> acked = new HashSet<>();
        List<Delivery> claimed = consumeLeasedInOne(queue, request, receipts, acked);
        Set<Receipt> lost = new HashSet<>();
        for (Receipt r : receipts) {
            if (!acked.contains(r.messageId())) {
                lost.add(r);
            }
        }
        return new AckedAndClaimed(lost, claimed);
    }

    /** A row the lease claim took: its columns, and its visible time, lease token and claim time before the claim. */
    private record Claimed(Row row, long was, Long wasToken, Long wasClaimed) {
    }

    /**
     * After an {@link SkipLockedStatements#ackAndLeaseClaim} that deleted none of its receipts' rows: lost leases,
     * or receipts naming another queue than their claim's. Those are refused ({@code receipt.queue}) with nothing
     * changed, so the claim made with them is first given back as it found its rows ({@link
     * SkipLockedStatements#unclaim}, one transaction).
     *
     * @throws InvalidInputException when a receipt's row is held under its token in another queue
     */
    private void refuseOtherQueue(Connection c, QueueName queue, List<Receipt> acks, List<Claimed> claimed, long token,
                                  int timeout) throws SQLException {
        Map.Entry<Receipt, String> held = queueOfClaim(c, acks);
        if (held == null || held.getValue().equals(queue.value())) {
            return;
        }
        if (!claimed.isEmpty()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(sql.unclaim)) {
                for (Claimed x : claimed) {
                    ps.setObject(1, x.wasToken());
                    ps.setObject(2, x.wasClaimed());
                    ps.setLong(3, x.was());
                    ps.setLong(4, x.row().id());
                    ps.setLong(5, token);
                    ps.addBatch();
                }
                QueryTimeouts.run(ps, "unclaim", sql.unclaim, timeout, ps::executeBatch);
            }
            c.commit();
        }
        throw SkipLockedAcks.otherQueue(held.getKey(), held.getValue());
    }

    /**
     * The first receipt whose row is held under its token, with the queue that holds it ({@link
     * SkipLockedStatements#leaseQueue}), or null when none is (every lease lost).
     */
    private Map.Entry<Receipt, String> queueOfClaim(Connection c, List<Receipt> receipts) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.leaseQueue)) {
            for (Receipt r : receipts) {
                ps.setLong(1, r.messageId());
                ps.setLong(2, r.token());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Map.entry(r, rs.getString(1));
                    }
                }
            }
        }
        return null;
    }

    /**
     * PostgreSQL: the lease claim in one statement ({@link SkipLockedStatements#leaseClaim}) and one round
     * trip, in auto-commit ({@link Transactions#inAutoCommit}); rows put back in claim order (priority,
     * visible_at before the claim, id). Rows with malformed headers are then dead-lettered by their new lease,
     * in a transaction of their own on the same connection; should that fail, they come back when the lease
     * ends, as any leased row does.
     */
    private List<Delivery> consumeLeasedInOne(QueueName queue, ConsumeRequest request) {
        return consumeLeasedInOne(queue, request, List.of(), new HashSet<>());
    }

    /** With {@code acks} not empty, {@link SkipLockedStatements#ackAndLeaseClaim}; the ids it deleted go to {@code acked}. */
    private List<Delivery> consumeLeasedInOne(QueueName queue, ConsumeRequest request, List<Receipt> acks, Set<Long> acked) {
        long token = newToken();
        int claimTimeout = timeouts.claim(request.lease().toMillis());
        // with acks, the bound of a settle (the longest lease granted, so never less than the claim's), as ackAll
        // has: an ack waiting on a row lock is not cut short by a shorter lease of the next claim
        int timeout = acks.isEmpty() ? claimTimeout : timeouts.settle();
        String statement = acks.isEmpty() ? sql.leaseClaim : sql.ackAndLeaseClaim;
        // with acks a lost connection is not retried: the statement may have committed, and its repeat would
        // report its own acks as lost leases
        return tx.inAutoCommit(acks.isEmpty() ? "consume" : "ack and consume", acks.isEmpty(), timeout, c -> {
            List<Claimed> claimed = new ArrayList<>();
            acked.clear(); // a deadlock victim's attempt changed nothing
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                int i = 1;
                if (!acks.isEmpty()) {
                    ps.setString(i++, queue.value());
                    ps.setLong(i++, acks.get(0).token());
                    ps.setObject(i++, acks.stream().map(Receipt::messageId).toArray(Long[]::new));
                }
                ps.setString(i++, queue.value());
                ps.setInt(i++, request.maxMessages());
                ps.setLong(i++, token);
                ps.setLong(i, request.lease().toMillis());
                QueryTimeouts.run(ps, acks.isEmpty() ? "leaseClaim" : "ackAndLeaseClaim", statement, timeout, () -> {
                    ResultSet rows = ClaimRows.resultOf(ps, true);
                    if (!acks.isEmpty()) {
                        try (ResultSet ids = rows) {
                            while (ids.next()) {
                                acked.add(ids.getLong(1));
                            }
                        }
                        if (!ps.getMoreResults()) {
                            throw new SQLException("the claim after the acks returned no rows result");
                        }
                        rows = ps.getResultSet();
                    }
                    try (ResultSet rs = rows) {
                        while (rs.next()) {
                            claimed.add(new Claimed(new Row(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getInt(4) - 1,
                                    rs.getString(5), rs.getBytes(6), rs.getString(8)), rs.getLong(9),
                                    rs.getObject(10, Long.class), rs.getObject(11, Long.class)));
                        }
                    }
                    return null;
                });
            }
            if (!acks.isEmpty() && acked.isEmpty()) {
                refuseOtherQueue(c, queue, acks, claimed, token, timeout);
            }
            if (claimed.isEmpty()) {
                return List.of();
            }
            claimed.sort(java.util.Comparator.comparingInt((Claimed x) -> -x.row().priority())
                    .thenComparingLong(Claimed::was).thenComparingLong(x -> x.row().id()));
            List<Delivery> out = new ArrayList<>(claimed.size());
            for (Claimed x : claimed) {
                Row r = x.row();
                Map<String, String> headers;
                try {
                    headers = HeaderCodec.decode(r.headers());
                } catch (HeaderCodec.MalformedHeadersException e) {
                    String reason = "malformed headers: " + e.getMessage();
                    c.setAutoCommit(false); // the three statements below, per row, in one transaction
                    update(c, sql.deadLetterLeased, clip(reason), r.id(), token, queue.value());
                    if (config.history()) {
                        update(c, sql.historyLeased, "dead-lettered", clip(reason), r.id(), token, queue.value());
                    }
                    update(c, sql.deleteLeased, r.id(), token, queue.value());
                    LOG.warn("message {} had malformed headers and was dead-lettered: {}", r.id(), e.getMessage());
                    continue;
                }
                out.add(new Delivery(new Receipt(queue, r.id(), token, ClaimMode.LEASE), r.payload(), headers,
                        r.attempts() + 1, r.priority(), Instant.ofEpochMilli(r.enqueuedAt()), r.group()));
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return out;
        });
    }
}
