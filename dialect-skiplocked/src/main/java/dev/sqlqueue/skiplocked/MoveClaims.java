package dev.sqlqueue.skiplocked;

import static dev.sqlqueue.skiplocked.Transactions.newToken;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.HeldForMove;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.skiplocked.ClaimRows.Row;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Move claims of the SKIP LOCKED backends ({@link dev.sqlqueue.QueueAdmin#claimForMove}): {@link
 * SkipLockedStatements#moveSelect} and {@link SkipLockedStatements#moveLease} in one transaction. Thread-safe.
 */
final class MoveClaims {
    private final SkipLockedStatements sql;
    private final Transactions tx;
    private final ClaimRows claimRows;
    private final QueryTimeouts timeouts;

    MoveClaims(SkipLockedStatements sql, Transactions tx, ClaimRows claimRows, QueryTimeouts timeouts) {
        this.sql = sql;
        this.tx = tx;
        this.claimRows = claimRows;
        this.timeouts = timeouts;
    }

    List<HeldForMove> claimForMove(QueueName queue, int max, Duration lease) {
        long token = newToken();
        int timeout = timeouts.claim(lease.toMillis());
        return tx.inTransaction("claim for move", timeout, c -> {
            List<Row> rows = new ArrayList<>();
            Map<Long, Long> delayLeft = new HashMap<>();
            Long[] candidates = null;
            if (sql.moveCandidates != null) {
                // H2: candidates without locks first, then those locked by id (see SkipLockedStatements.moveSelect)
                List<Long> ids = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(sql.moveCandidates)) {
                    ps.setString(1, queue.value());
                    ps.setInt(2, max);
                    QueryTimeouts.run(ps, "moveCandidates", sql.moveCandidates, timeout, () -> {
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                ids.add(rs.getLong(1));
                            }
                        }
                        return null;
                    });
                }
                if (ids.isEmpty()) {
                    return List.of();
                }
                candidates = ids.toArray(new Long[0]);
            }
            Long[] locked = candidates;
            try (PreparedStatement ps = c.prepareStatement(sql.moveSelect)) {
                if (locked != null) {
                    ps.setObject(1, locked);
                } else {
                    ps.setString(1, queue.value());
                    ps.setInt(2, max);
                }
                QueryTimeouts.run(ps, "moveSelect", sql.moveSelect, timeout, () -> {
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            Row r = new Row(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getInt(4), rs.getString(5),
                                    rs.getBytes(6), rs.getString(8));
                            long now = rs.getLong(7);
                            long claimedAt = rs.getLong(10);
                            boolean heldByMover = !rs.wasNull() && claimedAt < 0;
                            long visibleAt = heldByMover ? -claimedAt : rs.getLong(9);
                            rows.add(r);
                            delayLeft.put(r.id(), Math.max(0, visibleAt - now));
                        }
                    }
                    return null;
                });
            }
            if (rows.isEmpty()) {
                return List.of();
            }
            // rows whose headers cannot be decoded are dead-lettered here, as a claim does
            List<Map<String, String>> headers = claimRows.screen(c, rows);
            if (!rows.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(sql.moveLease)) {
                    for (Row r : rows) {
                        ps.setLong(1, token);
                        ps.setLong(2, lease.toMillis());
                        ps.setLong(3, r.id());
                        ps.addBatch();
                    }
                    QueryTimeouts.run(ps, "moveLease", sql.moveLease, timeout, ps::executeBatch);
                }
            }
            List<HeldForMove> out = new ArrayList<>(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                out.add(new HeldForMove(new Receipt(queue, r.id(), token, ClaimMode.LEASE), r.payload(), headers.get(i),
                        r.attempts(), r.priority(), Instant.ofEpochMilli(r.enqueuedAt()), r.group(),
                        Duration.ofMillis(delayLeft.get(r.id()))));
            }
            return out;
        });
    }
}
