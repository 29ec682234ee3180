package dev.sqlqueue.bench;

import dev.sqlqueue.skiplocked.SkipLockedDialect;
import dev.sqlqueue.skiplocked.SkipLockedStatements;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The raw-JDBC baseline: the library's own SQL strings ({@link SkipLockedStatements}) run in the same
 * transactions with the same batching as {@code SkipLockedBackend}, with nothing else around them.
 *
 * <ul>
 *   <li>enqueue: insert JDBC batch with generated keys (+ {@code pg_notify} on PostgreSQL), commit;</li>
 *   <li>claim: claimSelect FOR UPDATE SKIP LOCKED, leaseUpdate JDBC batch, commit (commit also when empty);</li>
 *   <li>ack: deleteLeased JDBC batch, commit.</li>
 * </ul>
 * Deadlock victims and lock time-outs are retried like the library does. On H2 one claim per queue runs at
 * a time, and reads candidate ids before it locks them by primary key, as the library does (H2 locks every
 * row a FOR UPDATE query matches before it applies FETCH).
 * Thread-safe.
 */
final class Baseline {
    private static final String NO_HEADERS = HeaderCodec.encode(Map.of());
    private static final Long[] NO_IDS = new Long[0];

    private final DataSource ds;
    private final SkipLockedStatements sql;
    private final SkipLockedDialect dialect;
    private final Object h2ClaimLock = new Object();

    Baseline(DataSource ds, SkipLockedStatements sql, SkipLockedDialect dialect) {
        this.ds = ds;
        this.sql = sql;
        this.dialect = dialect;
    }

    /** What one claim got: ids and the token they were leased with. */
    record Claim(long[] ids, int size, long token) {
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T tx(Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = ds.getConnection()) {
                try {
                    T t = work.run(c);
                    c.commit();
                    return t;
                } catch (SQLException | RuntimeException e) {
                    c.rollback();
                    throw e;
                }
            } catch (SQLException e) {
                if (retryable(e) && attempt < 6) {
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

    private static boolean retryable(SQLException e) {
        String s = e.getSQLState();
        return "40001".equals(s) || "40P01".equals(s) || e.getErrorCode() == 1213 || e.getErrorCode() == 1205
                || "HYT00".equals(s) || e.getErrorCode() == 50200;
    }

    /** One enqueue transaction of {@code n} rows with this payload; returns the number of generated ids. */
    int enqueue(String queue, int n, byte[] payload) throws SQLException {
        return tx(c -> {
            int ids = 0;
            try (PreparedStatement ps = dialect == SkipLockedDialect.POSTGRES
                    ? c.prepareStatement(sql.insert, new String[] {"id"})
                    : c.prepareStatement(sql.insert, Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < n; i++) {
                    ps.setString(1, queue);
                    ps.setInt(2, 0);
                    ps.setLong(3, 0L);
                    ps.setString(4, NO_HEADERS);
                    ps.setBytes(5, payload);
                    ps.setNull(6, java.sql.Types.VARCHAR);
                    if (n == 1) {
                        ps.executeUpdate();
                    } else {
                        ps.addBatch();
                    }
                }
                if (n > 1) {
                    ps.executeBatch();
                }
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    while (keys.next()) {
                        keys.getLong(1);
                        ids++;
                    }
                }
            }
            if (sql.notify != null) {
                try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
                    ps.setString(1, sql.channel);
                    ps.setString(2, queue);
                    ps.executeQuery().close();
                }
            }
            return ids;
        });
    }

    /** One lease claim transaction of up to {@code limit} rows (every column read, as the library does). */
    Claim claim(String queue, int limit, long leaseMillis) throws SQLException {
        if (dialect == SkipLockedDialect.H2) {
            synchronized (h2ClaimLock) {
                return claimOnce(queue, limit, leaseMillis);
            }
        }
        return claimOnce(queue, limit, leaseMillis);
    }

    private Claim claimOnce(String queue, int limit, long leaseMillis) throws SQLException {
        long token = ThreadLocalRandom.current().nextLong() | 1L;
        return tx(c -> {
            long[] ids = new long[limit];
            int n = 0;
            Long[] candidates = null;
            if (sql.claimCandidates != null) {
                // H2: candidate ids read without locks, then locked by primary key, as the library does
                java.util.List<Long> found = new java.util.ArrayList<>(limit);
                try (PreparedStatement ps = c.prepareStatement(sql.claimCandidates)) {
                    ps.setString(1, queue);
                    ps.setObject(2, NO_IDS);
                    ps.setInt(3, limit);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            found.add(rs.getLong(1));
                        }
                    }
                }
                if (found.isEmpty()) {
                    return new Claim(ids, 0, token);
                }
                candidates = found.toArray(new Long[0]);
            }
            try (PreparedStatement ps = c.prepareStatement(sql.claimSelect)) {
                if (candidates != null) {
                    ps.setObject(1, candidates);
                } else {
                    ps.setString(1, queue);
                    ps.setInt(2, limit);
                }
                // on PostgreSQL the claim starts with SkipLockedStatements.CLAIM_PLAN: skip its update count
                boolean isResultSet = ps.execute();
                while (!isResultSet && ps.getUpdateCount() != -1) {
                    isResultSet = ps.getMoreResults();
                }
                try (ResultSet rs = ps.getResultSet()) {
                    while (rs.next()) {
                        ids[n++] = rs.getLong(1);
                        rs.getInt(2);
                        rs.getLong(3);
                        rs.getInt(4);
                        rs.getString(5);
                        rs.getBytes(6);
                        rs.getLong(7);
                        rs.getString(8);
                    }
                }
            }
            if (n > 0) {
                try (PreparedStatement ps = c.prepareStatement(sql.leaseUpdate)) {
                    for (int i = 0; i < n; i++) {
                        ps.setLong(1, token);
                        ps.setLong(2, leaseMillis);
                        ps.setLong(3, ids[i]);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return new Claim(ids, n, token);
        });
    }

    /** One ack transaction: deleteLeased for every id of the claim; returns how many rows went. */
    int ack(Claim claim) throws SQLException {
        return tx(c -> {
            int gone = 0;
            try (PreparedStatement ps = c.prepareStatement(sql.deleteLeased)) {
                for (int i = 0; i < claim.size(); i++) {
                    ps.setLong(1, claim.ids()[i]);
                    ps.setLong(2, claim.token());
                    ps.addBatch();
                }
                for (int count : ps.executeBatch()) {
                    gone += count;
                }
            }
            return gone;
        });
    }
}
