package dev.sqlqueue.skiplocked;

import static dev.sqlqueue.skiplocked.Transactions.update;
import static dev.sqlqueue.skiplocked.Transactions.clip;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What lease and transactional claims share: the locking read of candidate rows (on H2 in two steps) and
 * the dead-lettering of rows whose headers cannot be decoded. Thread-safe.
 */
final class ClaimRows {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedBackend.class);

    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Map<Long, TransactionalClaim> claims;

    ClaimRows(SkipLockedStatements sql, QueueConfig config, Map<Long, TransactionalClaim> claims) {
        this.sql = sql;
        this.config = config;
        this.claims = claims;
    }

    record Row(long id, int priority, long enqueuedAt, int attempts, String headers, byte[] payload, String group) {
    }

    /** H2: rounds of candidates a claim tries when rows it picked are locked by another backend. */
    private static final int H2_CLAIM_ROUNDS = 4;

    long selectCandidates(Connection c, QueueName queue, int limit, List<Row> rows, int timeoutSeconds)
            throws SQLException {
        if (sql.claimCandidates == null) {
            return lockRows(c, rows, timeoutSeconds, ps -> {
                ps.setString(1, queue.value());
                ps.setInt(2, limit);
            });
        }
        // H2: candidates are read without locks, then locked by id, skipping locked ones. Rows that
        // another backend (another process, or another SqlQueue in this one) holds come back as
        // candidates again and again, so a round that locked fewer than asked tries the next candidates,
        // leaving out every id tried so far
        Set<Long> tried = heldIds();
        long now = 0;
        for (int round = 0; round < H2_CLAIM_ROUNDS && rows.size() < limit; round++) {
            int wanted = limit - rows.size();
            List<Long> ids = new ArrayList<>(wanted);
            try (PreparedStatement ps = c.prepareStatement(sql.claimCandidates)) {
                ps.setString(1, queue.value());
                // enough candidates that the wanted number remain after leaving out those tried
                ps.setInt(2, (int) Math.min(Integer.MAX_VALUE, (long) wanted + tried.size()));
                QueryTimeouts.run(ps, "claimCandidates", sql.claimCandidates, timeoutSeconds, () -> {
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next() && ids.size() < wanted) {
                            long id = rs.getLong(1);
                            if (!tried.contains(id)) {
                                ids.add(id);
                            }
                        }
                    }
                    return null;
                });
            }
            if (ids.isEmpty()) {
                break;
            }
            Long[] candidates = ids.toArray(new Long[0]);
            now = lockRows(c, rows, timeoutSeconds, ps -> ps.setObject(1, candidates));
            tried.addAll(ids);
        }
        return now;
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Runs the locking claim select; adds the rows it locked; returns the database clock it read (0 if none). */
    private long lockRows(Connection c, List<Row> rows, int timeoutSeconds, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.claimSelect)) {
            binder.bind(ps);
            return QueryTimeouts.run(ps, "claimSelect", sql.claimSelect, timeoutSeconds, () -> {
                long now = 0;
                try (ResultSet rs = resultOf(ps, sql.claimSelect.startsWith(SkipLockedStatements.CLAIM_PLAN))) {
                    while (rs.next()) {
                        rows.add(new Row(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getInt(4), rs.getString(5),
                                rs.getBytes(6), rs.getString(8)));
                        now = rs.getLong(7);
                    }
                }
                return now;
            });
        }
    }

    /** Dead-letter rows whose headers cannot be decoded; returns the decoded headers of the others, in order. */
    List<Map<String, String>> screen(Connection c, List<Row> rows) throws SQLException {
        List<Map<String, String>> headers = new ArrayList<>(rows.size());
        for (java.util.Iterator<Row> it = rows.iterator(); it.hasNext(); ) {
            Row r = it.next();
            try {
                headers.add(HeaderCodec.decode(r.headers()));
            } catch (HeaderCodec.MalformedHeadersException e) {
                String reason = "malformed headers: " + e.getMessage();
                update(c, sql.deadLetterById, clip(reason), r.id());
                if (config.history()) {
                    update(c, sql.historyById, r.enqueuedAt(), "dead-lettered", clip(reason), r.id());
                }
                update(c, sql.deleteById, r.id());
                LOG.warn("message {} had malformed headers and was dead-lettered: {}", r.id(), e.getMessage());
                it.remove();
            }
        }
        return headers;
    }

    /** Ids held by this backend's open transactional claims (H2 leaves them out of a claim). */
    private Set<Long> heldIds() {
        Set<Long> held = new HashSet<>();
        for (TransactionalClaim claim : claims.values()) {
            held.addAll(claim.openIds());
        }
        return held;
    }

    /**
     * Executes a statement and returns its rows: with {@code afterPlan}, the result set after the one row of
     * the planner settings it starts with ({@link SkipLockedStatements#CLAIM_PLAN}, {@link
     * SkipLockedStatements#ackByClaim}); the update counts of statements after it (PostgreSQL's {@link
     * SkipLockedStatements#CLAIM_PLAN_END}) are left unread.
     *
     * @throws SQLException if it returns no rows result where one is expected
     */
    static ResultSet resultOf(PreparedStatement ps, boolean afterPlan) throws SQLException {
        boolean isResultSet = ps.execute();
        if (afterPlan) {
            if (!isResultSet) {
                throw new SQLException("the planner settings before the statement returned no row");
            }
            isResultSet = ps.getMoreResults();
        }
        if (!isResultSet) {
            throw new SQLException("the statement returned no rows result");
        }
        return ps.getResultSet();
    }
}
