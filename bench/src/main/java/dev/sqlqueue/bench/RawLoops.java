package dev.sqlqueue.bench;

import dev.sqlqueue.skiplocked.SkipLockedDialect;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The minimal raw-JDBC loops of /work/shared/notes/performance.md (issue 16): what the database allows,
 * not the library's statements replayed (that is {@link Baseline}). They read the library's tables but
 * ignore message groups and dead letters. Per claim of up to {@code limit} rows:
 *
 * <ul>
 *   <li>lease, PostgreSQL: one {@code UPDATE ... WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)
 *       RETURNING} and commit, then one {@code DELETE ... WHERE id = ANY(?)} and commit;</li>
 *   <li>transactional, PostgreSQL: one {@code DELETE ... WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP
 *       LOCKED) RETURNING} and commit;</li>
 *   <li>MariaDB (no {@code UPDATE ... RETURNING}): lease = {@code SELECT ... FOR UPDATE SKIP LOCKED}, one lease
 *       {@code UPDATE ... WHERE id IN (...)} of the ids it locked, commit; ack = one {@code DELETE ... WHERE id IN
 *       (...)}, commit. Transactional = {@code SELECT ... FOR UPDATE SKIP LOCKED}, one {@code DELETE ... WHERE id
 *       IN (...)}, commit. Of the forms measured for issue 32 (single-id statements in a JDBC batch, the same
 *       batch over Connector/J's bulk protocol, id lists) id lists and bulk batches were the fastest, 1.5-2x the
 *       single-id batches. The lease loop met no deadlock with 8 workers; the transactional loop's
 *       {@code DELETE ... IN (...)} of the rows its select locked met 20 in 16 drains on the shared server,
 *       retried here (the library keeps single-id batches there, docs/benchmarks.md);</li>
 *   <li>H2 (locks every row a {@code FOR UPDATE} query matches before it applies its limit): candidate ids
 *       read without locks, then {@code SELECT ... WHERE id = ANY(?) FOR UPDATE SKIP LOCKED}, lease
 *       {@code UPDATE ... WHERE id = ANY(?)}, commit; ack {@code DELETE ... WHERE id = ANY(?)}, commit;
 *       one claim at a time.</li>
 * </ul>
 * Enqueue: one JDBC batch of plain {@code INSERT}s (no generated keys, no wake-up) and commit; on MariaDB over
 * Connector/J's bulk protocol for inserts, which its default settings use (the pool is {@link Target#raw}).
 * Deadlock victims are retried. Thread-safe.
 */
final class RawLoops {
    private final DataSource ds;
    private final SkipLockedDialect dialect;
    private final String now;
    private final String leaseClaim;
    private final String txClaim;
    private final String select;
    private final String candidates;
    private final String leaseById;
    private final String leaseByIds;
    private final String deleteById;
    private final String deleteByIds;
    private final String insert;
    private final Object h2Lock = new Object();

    RawLoops(DataSource ds, SkipLockedDialect dialect, String prefix) {
        this.ds = ds;
        this.dialect = dialect;
        String q = dialect == SkipLockedDialect.MARIADB ? "`" : "\"";
        String t = q + prefix + "message" + q;
        this.now = "(" + dialect.nowMillis(prefix) + ")";
        String cols = "id, priority, enqueued_at, attempts, headers, payload, group_key";
        // PostgreSQL: the claim index ends with (id + 0) (migration V4), the order that reads it without a sort
        String lastKey = dialect == SkipLockedDialect.POSTGRES ? "(id + 0)" : "id";
        String pick = "SELECT id FROM " + t + " WHERE queue = ? AND visible_at <= " + now
                + " ORDER BY priority DESC, visible_at, " + lastKey + " LIMIT ?";
        this.leaseClaim = "UPDATE " + t + " SET lease_token = ?, attempts = attempts + 1, claimed_at = " + now
                + ", visible_at = " + now + " + ? WHERE id IN (" + pick + " FOR UPDATE SKIP LOCKED) RETURNING " + cols;
        this.txClaim = "DELETE FROM " + t + " WHERE id IN (" + pick + " FOR UPDATE SKIP LOCKED) RETURNING " + cols;
        this.select = dialect == SkipLockedDialect.H2
                ? "SELECT " + cols + " FROM " + t + " WHERE id = ANY(?) AND visible_at <= " + now + " FOR UPDATE SKIP LOCKED"
                : "SELECT " + cols + " FROM " + t + " WHERE queue = ? AND visible_at <= " + now
                  + " ORDER BY priority DESC, visible_at, id LIMIT ? FOR UPDATE SKIP LOCKED";
        this.candidates = "SELECT id FROM " + t + " WHERE queue = ? AND visible_at <= " + now
                + " ORDER BY queue, priority DESC, visible_at, id LIMIT ?";
        this.leaseById = "UPDATE " + t + " SET lease_token = ?, attempts = attempts + 1, claimed_at = " + now
                + ", visible_at = " + now + " + ? WHERE id = ?";
        this.leaseByIds = "UPDATE " + t + " SET lease_token = ?, attempts = attempts + 1, claimed_at = " + now
                + ", visible_at = " + now + " + ? WHERE id = ANY(?)";
        this.deleteById = "DELETE FROM " + t + " WHERE id = ?";
        this.deleteByIds = "DELETE FROM " + t + " WHERE id = ANY(?)";
        this.insert = "INSERT INTO " + t + " (queue, priority, visible_at, enqueued_at, attempts, headers, payload)"
                + " VALUES (?, 0, " + now + ", " + now + ", 0, '', ?)";
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T tx(Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ds.getConnection()) {
                try {
                    T r = work.run(c);
                    c.commit();
                    return r;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                String s = e.getSQLState();
                boolean retry = "40001".equals(s) || "40P01".equals(s) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205
                        || "HYT00".equals(s) || e.getErrorCode() == 50200;
                if (retry && attempt < 8) {
                    try {
                        Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << Math.min(attempt, 6)));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                    continue;
                }
                throw e;
            }
        }
    }

    /** Reads every column of every row (as a consumer would); returns the ids. */
    private static long[] read(ResultSet rs, int limit) throws SQLException {
        long[] ids = new long[limit];
        int n = 0;
        while (rs.next()) {
            ids[n++] = rs.getLong(1);
            rs.getInt(2);
            rs.getLong(3);
            rs.getInt(4);
            rs.getString(5);
            rs.getBytes(6);
            rs.getString(7);
        }
        return java.util.Arrays.copyOf(ids, n);
    }

    private static Array array(Connection c, long[] ids) throws SQLException {
        Long[] boxed = new Long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            boxed[i] = ids[i];
        }
        return c.createArrayOf("bigint", boxed);
    }

    /** One lease claim transaction; returns the ids claimed. */
    long[] leaseClaim(String queue, int limit, long leaseMillis) throws SQLException {
        long token = ThreadLocalRandom.current().nextLong() | 1L;
        if (dialect == SkipLockedDialect.POSTGRES) {
            return tx(c -> {
                try (PreparedStatement ps = c.prepareStatement(leaseClaim)) {
                    ps.setLong(1, token);
                    ps.setLong(2, leaseMillis);
                    ps.setString(3, queue);
                    ps.setInt(4, limit);
                    try (ResultSet rs = ps.executeQuery()) {
                        return read(rs, limit);
                    }
                }
            });
        }
        if (dialect == SkipLockedDialect.H2) {
            synchronized (h2Lock) {
                return tx(c -> {
                    long[] ids = h2Lock(c, queue, limit);
                    if (ids.length > 0) {
                        try (PreparedStatement ps = c.prepareStatement(leaseByIds)) {
                            ps.setLong(1, token);
                            ps.setLong(2, leaseMillis);
                            ps.setArray(3, array(c, ids));
                            ps.executeUpdate();
                        }
                    }
                    return ids;
                });
            }
        }
        return tx(c -> {
            long[] ids = selectLocked(c, queue, limit);
            if (ids.length > 0) {
                byIdList(c, leaseById, ids, token, leaseMillis);
            }
            return ids;
        });
    }

    /** MariaDB: {@code statement}, which ends with {@code id = ?}, once for all {@code ids} as {@code id IN (...)}. */
    private static int byIdList(Connection c, String statement, long[] ids, long token, long lease) throws SQLException {
        StringBuilder in = new StringBuilder(statement.substring(0, statement.length() - "id = ?".length())).append("id in (");
        for (int i = 0; i < ids.length; i++) {
            in.append(i == 0 ? "?" : ",?");
        }
        try (PreparedStatement ps = c.prepareStatement(in.append(')').toString())) {
            int i = 1;
            if (token != 0) {
                ps.setLong(i++, token);
                ps.setLong(i++, lease);
            }
            for (long id : ids) {
                ps.setLong(i++, id);
            }
            return ps.executeUpdate();
        }
    }

    private long[] selectLocked(Connection c, String queue, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setString(1, queue);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return read(rs, limit);
            }
        }
    }

    private long[] h2Lock(Connection c, String queue, int limit) throws SQLException {
        long[] cand;
        try (PreparedStatement ps = c.prepareStatement(candidates)) {
            ps.setString(1, queue);
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                long[] ids = new long[limit];
                int n = 0;
                while (rs.next()) {
                    ids[n++] = rs.getLong(1);
                }
                cand = java.util.Arrays.copyOf(ids, n);
            }
        }
        if (cand.length == 0) {
            return cand;
        }
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setArray(1, array(c, cand));
            try (ResultSet rs = ps.executeQuery()) {
                return read(rs, limit);
            }
        }
    }

    /** One ack transaction for the ids of one claim; returns the rows deleted. */
    int ack(long[] ids) throws SQLException {
        if (dialect == SkipLockedDialect.MARIADB) {
            return tx(c -> byIdList(c, deleteById, ids, 0, 0));
        }
        return tx(c -> {
            try (PreparedStatement ps = c.prepareStatement(deleteByIds)) {
                ps.setArray(1, array(c, ids));
                return ps.executeUpdate();
            }
        });
    }

    /** One transactional claim: the rows deleted in the claim's own transaction; returns how many. */
    int transactionalClaim(String queue, int limit) throws SQLException {
        if (dialect == SkipLockedDialect.POSTGRES) {
            return tx(c -> {
                try (PreparedStatement ps = c.prepareStatement(txClaim)) {
                    ps.setString(1, queue);
                    ps.setInt(2, limit);
                    try (ResultSet rs = ps.executeQuery()) {
                        return read(rs, limit).length;
                    }
                }
            });
        }
        if (dialect == SkipLockedDialect.H2) {
            synchronized (h2Lock) {
                return tx(c -> {
                    long[] ids = h2Lock(c, queue, limit);
                    if (ids.length > 0) {
                        try (PreparedStatement ps = c.prepareStatement(deleteByIds)) {
                            ps.setArray(1, array(c, ids));
                            ps.executeUpdate();
                        }
                    }
                    return ids.length;
                });
            }
        }
        return tx(c -> {
            long[] ids = selectLocked(c, queue, limit);
            if (ids.length > 0) {
                byIdList(c, deleteById, ids, 0, 0);
            }
            return ids.length;
        });
    }

    /** One enqueue transaction: a JDBC batch of {@code n} plain inserts; returns the rows inserted. */
    int enqueue(String queue, int n, byte[] payload) throws SQLException {
        return tx(c -> {
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                for (int i = 0; i < n; i++) {
                    ps.setString(1, queue);
                    ps.setBytes(2, payload);
                    ps.addBatch();
                }
                int rows = 0;
                for (int count : ps.executeBatch()) {
                    rows += count == java.sql.Statement.SUCCESS_NO_INFO ? 1 : count;
                }
                return rows;
            }
        });
    }
}
