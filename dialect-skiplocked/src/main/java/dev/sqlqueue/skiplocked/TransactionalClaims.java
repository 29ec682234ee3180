package dev.sqlqueue.skiplocked;

import static dev.sqlqueue.skiplocked.SkipLockedAcks.otherQueue;
import static dev.sqlqueue.skiplocked.Transactions.clip;
import static dev.sqlqueue.skiplocked.Transactions.newToken;
import static dev.sqlqueue.skiplocked.Transactions.rollbackQuietly;
import static dev.sqlqueue.skiplocked.Transactions.sleepJitter;
import static dev.sqlqueue.skiplocked.Transactions.MAX_DEADLOCK_RETRIES;

import dev.sqlqueue.skiplocked.ClaimRows.Row;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactional-mode claims of the SKIP LOCKED backend: the open claims (each a {@link TransactionalClaim}
 * holding its connection), their lookup by receipt, the reaper that rolls back claims older than their
 * lease, and the writing of a claim's gathered acks. Thread-safe.
 */
final class TransactionalClaims {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedBackend.class);

    private final DataSource ds;
    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Transactions tx;
    private final ClaimRows claimRows;
    final Map<Long, TransactionalClaim> claims;
    private final ScheduledExecutorService reaper;
    private final QueryTimeouts timeouts;

    TransactionalClaims(DataSource ds, SkipLockedStatements sql, QueueConfig config, Transactions tx,
                        Map<Long, TransactionalClaim> claims, ClaimRows claimRows, QueryTimeouts timeouts) {
        this.timeouts = timeouts;
        this.ds = ds;
        this.sql = sql;
        this.config = config;
        this.tx = tx;
        this.claims = claims;
        this.claimRows = claimRows;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-claim-reaper");
            t.setDaemon(true);
            return t;
        });
        reaper.scheduleWithFixedDelay(this::reapExpiredClaims, 1, 1, TimeUnit.SECONDS);
    }

    private void evictIdleConnections() {
        tx.evictIdleConnections();
    }

    private long selectCandidates(Connection c, QueueName queue, int limit, List<Row> rows, int timeoutSeconds)
            throws SQLException {
        return claimRows.selectCandidates(c, queue, limit, rows, timeoutSeconds);
    }

    private List<Map<String, String>> screen(Connection c, List<Row> rows) throws SQLException {
        return claimRows.screen(c, rows);
    }

    List<Delivery> consumeTransactional(QueueName queue, ConsumeRequest request) {
        long token = newToken();
        int timeout = timeouts.claim(request.lease().toMillis());
        for (int attempt = 1; ; attempt++) {
            Connection c = null;
            ConnectionState state = null;
            try {
                c = ds.getConnection();
                state = tx.prepare(c, timeout);
                List<Row> rows = new ArrayList<>();
                long now = selectCandidates(c, queue, request.maxMessages(), rows, timeout);
                int before = rows.size();
                List<Map<String, String>> headers = screen(c, rows);
                if (rows.isEmpty()) {
                    if (before > 0) {
                        c.commit();
                    } else {
                        c.rollback();
                    }
                    state.restore(c);
                    c.close();
                    return List.of();
                }
                Set<Long> ids = new LinkedHashSet<>();
                rows.forEach(r -> ids.add(r.id()));
                claims.put(token, new TransactionalClaim(token, now, queue.value(), c, state, ids, request.lease().toMillis(), before > rows.size(),
                        this::writeAcks));
                List<Delivery> out = new ArrayList<>(rows.size());
                for (int i = 0; i < rows.size(); i++) {
                    Row r = rows.get(i);
                    out.add(new Delivery(new Receipt(queue, r.id(), token, ClaimMode.TRANSACTIONAL), r.payload(),
                            headers.get(i), r.attempts() + 1, r.priority(), Instant.ofEpochMilli(r.enqueuedAt()), r.group()));
                }
                return out;
            } catch (SQLException e) {
                if (c != null) {
                    rollbackQuietly(c);
                    if (state != null) {
                        state.restore(c);
                    }
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // broken
                    }
                }
                if (e instanceof QueryTimeouts.StatementTimeout) {
                    throw JdbcErrors.translate("consume", e);
                }
                if (JdbcErrors.isConnectionLoss(e)) {
                    tx.sweepStaleSlots();
                }
                if (attempt == 1 && JdbcErrors.isConnectionLoss(e)) {
                    evictIdleConnections();
                    continue;
                }
                if (tx.repairedStaleSlot(e, attempt)) {
                    continue;
                }
                if (JdbcErrors.isRetryable(e) && attempt < MAX_DEADLOCK_RETRIES) {
                    sleepJitter(attempt);
                    continue;
                }
                throw JdbcErrors.translate("consume", e);
            }
        }
    }

    private void reapExpiredClaims() {
        for (TransactionalClaim claim : claims.values()) {
            if (claim.isClosed()) {
                claims.remove(claim.token);
            } else if (claim.expired()) {
                LOG.warn("transactional claim {} outlived its lease; rolling it back", claim.token);
                claim.abort();
                claims.remove(claim.token);
            }
        }
    }

    TransactionalClaim claim(Receipt r) {
        TransactionalClaim claim = claims.get(r.token());
        if (claim != null && !claim.queue.equals(r.queue().value()) && claim.holds(r.messageId())) {
            throw otherQueue(r, claim.queue);
        }
        if (claim == null || !claim.holds(r.messageId())) {
            throw new LeaseLostException(r.messageId(), "message " + r.messageId()
                    + " is no longer held: its transactional claim has ended");
        }
        return claim;
    }

    void inClaim(Receipt r, TransactionalClaim.Work work, boolean release) {
        TransactionalClaim claim = claim(r);
        try {
            if (claim.settle(r.messageId(), work, release)) {
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
    }

    /**
     * The acks of a transactional claim, written by its last settle: history rows (if kept) in one JDBC
     * batch, then one {@code DELETE ... WHERE id = ANY(?)} (PostgreSQL, H2), or on MariaDB a JDBC batch of
     * single-id deletes (a multi-id {@code DELETE ... IN (...)} deadlocked between claims there,
     * /work/shared/notes/performance.md).
     */
    private void writeAcks(Connection c, long claimedAt, List<Long> ids, List<String> details, int timeoutSeconds)
            throws SQLException {
        if (config.history()) {
            try (PreparedStatement ps = c.prepareStatement(sql.historyById)) {
                for (int i = 0; i < ids.size(); i++) {
                    ps.setLong(1, claimedAt);
                    ps.setString(2, "acked");
                    ps.setString(3, clip(details.get(i)));
                    ps.setLong(4, ids.get(i));
                    ps.addBatch();
                }
                QueryTimeouts.run(ps, "historyById", sql.historyById, timeoutSeconds, ps::executeBatch);
            }
        }
        if (sql.deleteByIds != null) {
            Transactions.setPlan(c, sql.idArrayPlan);
            try (PreparedStatement ps = c.prepareStatement(sql.deleteByIds)) {
                if (sql.planIdArraysEachTime) {
                    PostgresPlans.planEveryExecution(ps);
                }
                ps.setObject(1, ids.toArray(new Long[0]));
                QueryTimeouts.run(ps, "deleteByIds", sql.deleteByIds, timeoutSeconds, ps::executeUpdate);
            }
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.deleteById)) {
            for (long id : ids) {
                ps.setLong(1, id);
                ps.addBatch();
            }
            QueryTimeouts.run(ps, "deleteById", sql.deleteById, timeoutSeconds, ps::executeBatch);
        }
    }

    /** Stop the reaper and roll back every open claim. */
    void close() {
        reaper.shutdownNow();
        claims.values().forEach(TransactionalClaim::abort);
        claims.clear();
    }
}
