package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Message;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.TransactionalClaims.Kind;
import dev.sqlqueue.spi.HeaderCodec;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code sqlserver} backend: queue tables claimed with {@code READPAST}, in lease and transactional
 * claim modes. Statements are in {@link SqlServerStatements}; connection settings in {@link Sessions};
 * open transactional claims in {@link TransactionalClaims}; administration in {@link SqlServerAdmin}.
 *
 * <p>Lease mode: the claim commits at once; ack, nack, extend, dead-letter and release each run in
 * their own transaction and match id, queue and lease token, expecting exactly one row, else
 * {@link LeaseLostException}, or {@link InvalidInputException} (rule {@code receipt.queue}) when the row
 * is held under the receipt's token in another queue than the receipt names (read in the same
 * transaction, which the exception rolls back). Transactional mode: see {@link TransactionalClaims}. Deadlock victims
 * (1205) and lock time-outs (1222) are retried inside the library except inside an open transactional
 * claim, whose transaction the error has already rolled back.
 *
 * <p>Thread-safe.
 */
public final class SqlServerQueueBackend implements QueueBackend {
    /** Largest payload accepted, in bytes (16 MiB; the column is varbinary(max)). */
    public static final int MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
    /** Largest claim batch: far below the ~5,000 locks at which SQL Server escalates to a table lock. */
    public static final int MAX_CLAIM_BATCH = 500;

    private final SqlServerStatements sql;
    private final Sessions sessions;
    private final TransactionalClaims claims = new TransactionalClaims();
    private final QueryTimeouts timeouts = new QueryTimeouts();
    private final SqlServerAdmin admin;
    private final Capabilities caps;
    private final boolean history;
    private final SqlServerEnqueues enqueues;
    private final AutoCloseable pool;

    /**
     * @param sql the statements (prefix, schema, claim order)
     * @param sessions connection handling over the pool
     * @param history whether acked and dead-lettered messages are kept in the history table
     * @param migrate the schema migration, run by {@link #migrate()}
     * @param pool closed by {@link #close()}; null when the caller owns the pool
     */
    SqlServerQueueBackend(SqlServerStatements sql, Sessions sessions, boolean history, Runnable migrate, AutoCloseable pool,
                          ClaimOrder order) {
        this(sql, sessions, history, migrate, pool, order, dev.sqlqueue.QueueConfig.DEFAULT_DEDUPLICATION_WINDOW);
    }

    /** @param dedupeWindow {@link dev.sqlqueue.QueueConfig#deduplicationWindow()} */
    SqlServerQueueBackend(SqlServerStatements sql, Sessions sessions, boolean history, Runnable migrate, AutoCloseable pool,
                          ClaimOrder order, Duration dedupeWindow) {
        this.sql = sql;
        this.sessions = sessions;
        this.history = history;
        this.pool = pool;
        this.admin = new SqlServerAdmin(sql, sessions, migrate);
        this.enqueues = new SqlServerEnqueues(sql, sessions, admin, dedupeWindow);
        this.caps = capabilities(order);
    }

    static Capabilities capabilities(ClaimOrder order) {
        Set<Capability> f = EnumSet.of(Capability.DELAYED_DELIVERY, Capability.LEASE_EXTENSION, Capability.NACK_DELAY,
                Capability.TRANSACTIONAL_ENQUEUE, Capability.HISTORY, Capability.DROP_SCHEMA, Capability.KILL_SESSION,
                Capability.RAW_ROW_INSERT, Capability.DEDUPLICATION, Capability.PAUSE,
                Capability.BROWSE, Capability.MOVE_CLAIM);
        if (order == ClaimOrder.PRIORITY_FIRST) {
            f.add(Capability.PRIORITY);
        }
        return new Capabilities("sqlserver", EnumSet.allOf(ClaimMode.class), f,
                order == ClaimOrder.LIFO ? Ordering.NONE : Ordering.FIFO_APPROXIMATE, MAX_PAYLOAD_BYTES, MAX_CLAIM_BATCH);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String serverVersion() {
        return sessions.inTransaction("reading the server version", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("serverVersion")); ResultSet rs = ps.executeQuery()) {
                rs.next();
                String reported = rs.getString("version") + " (" + rs.getString("edition") + ")";
                return sql.engine() == SqlServerEngine.BABELFISH
                        ? "Babelfish for PostgreSQL, reporting itself as SQL Server " + reported
                        : "Microsoft SQL Server " + reported;
            }
        });
    }

    // ---- producer: SqlServerEnqueues -------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        return enqueueAll(queue, List.of(message)).get(0);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return enqueueAllDeduplicated(queue, messages).stream().map(EnqueueResult::id).toList();
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        return enqueues.enqueueAll(queue, messages);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        return enqueues.enqueue(queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        return enqueues.enqueue(connection, queue, message);
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return enqueues.enqueue(connection, queue, message).id();
    }

    // ---- consumer ----------------------------------------------------------------------------

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        int n = Math.min(request.maxMessages(), MAX_CLAIM_BATCH);
        long leaseMs = request.lease().toMillis();
        String what = "claim from queue '" + queue + "'";
        enqueues.cleanUpIfDue();
        if (request.mode() == ClaimMode.LEASE) {
            int bound = timeouts.claim(leaseMs);
            List<ClaimedRow> rows = sessions.inTransaction(what, bound, c -> claim(c, queue, n, leaseMs, bound));
            return deliveries(queue, rows, ClaimMode.LEASE, 0);
        }
        for (int attempt = 0; ; attempt++) {
            Sessions.Session s = null;
            long handle = 0; // non-zero once TransactionalClaims owns the session (and ends it; review finding 6)
            try {
                int bound = timeouts.claim(leaseMs);
                s = sessions.open(bound);
                List<ClaimedRow> rows = claim(s.connection, queue, n, leaseMs, bound);
                if (rows.isEmpty()) {
                    s.commit();
                    s.restoreAndClose();
                    return List.of();
                }
                handle = claims.register(s, queue, rows, leaseMs);
                return deliveries(queue, rows, ClaimMode.TRANSACTIONAL, handle);
            } catch (SQLException e) {
                if (s != null && handle == 0) {
                    s.rollbackQuietly(e);
                    s.restoreAndClose();
                }
                if (attempt < sessions.retries() && SqlServerErrors.isRetryable(e)) {
                    sessions.pause(what, attempt + 1, e);
                    continue;
                }
                throw SqlServerErrors.map(what, e);
            } catch (RuntimeException | Error e) {
                // an Error too (OutOfMemoryError reading payloads): never keep the connection and its locks
                if (s != null && handle == 0) {
                    s.rollbackQuietly(e);
                    s.restoreAndClose();
                }
                throw e;
            }
        }
    }

    /**
     * The move claim (issue 35, {@link Capability#MOVE_CLAIM}): committed before it returns, bounded as the claim is.
     * Rows with undecodable headers are dead-lettered, as {@link #deliveries} does.
     */
    @Override
    public List<dev.sqlqueue.HeldForMove> claimForMove(QueueName queue, int maxMessages, Duration lease) {
        int n = Math.min(maxMessages, MAX_CLAIM_BATCH);
        long leaseMs = lease.toMillis();
        int bound = timeouts.claim(leaseMs);
        List<MovedRow> rows = sessions.inTransaction("move claim from queue '" + queue + "'", bound,
                c -> MovedRow.claim(c, sql, queue, n, leaseMs, bound));
        rows.sort(java.util.Comparator.comparingLong(MovedRow::id)); // OUTPUT rows come in no defined order
        List<dev.sqlqueue.HeldForMove> out = new ArrayList<>(rows.size());
        for (MovedRow r : rows) {
            Receipt receipt = new Receipt(queue, r.id(), r.token(), ClaimMode.LEASE);
            try {
                out.add(new dev.sqlqueue.HeldForMove(receipt, r.payload(), HeaderCodec.decode(r.rawHeaders()), r.attempts(),
                        r.priority(), r.enqueuedAt(), null, Duration.ofMillis(Math.max(0, r.delayMs()))));
            } catch (HeaderCodec.MalformedHeadersException e) {
                try {
                    deadLetter(receipt, "malformed headers: " + e.getMessage());
                } catch (SqlQueueException failed) {
                    // the row comes back after the move claim's lease and meets the same check again
                }
            }
        }
        return out;
    }

    /**
     * The claim, bounded by its own lease ({@link QueryTimeouts}: READPAST does not skip a table lock), and on a
     * silent server by the session's network timeout ({@code seconds} plus {@link QueryTimeouts#NETWORK_GRACE_MS}).
     */
    private List<ClaimedRow> claim(Connection c, QueueName queue, int n, long leaseMs, int seconds) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get("claim"), n, queue.value(), (int) leaseMs)) {
            ps.setQueryTimeout(seconds);
            ResultSet rs;
            try {
                rs = ps.executeQuery();
            } catch (java.sql.SQLTimeoutException e) {
                throw new QueryTimeouts.StatementTimeout("claim", sql.get("claim"), seconds, e);
            }
            try (rs) {
                return ClaimedRow.readAll(rs);
            }
        }
    }

    /**
     * Rows with undecodable headers go to the dead-letter table (reason names the defect) and are not
     * returned. If moving one fails in lease mode the others are still returned (the row comes back
     * after its lease); in transactional mode the failure ended the claim, so it is thrown.
     */
    private List<Delivery> deliveries(QueueName queue, List<ClaimedRow> rows, ClaimMode mode, long handle) {
        List<Delivery> out = new ArrayList<>(rows.size());
        for (ClaimedRow r : rows) {
            Receipt receipt = new Receipt(queue, r.id(), mode == ClaimMode.LEASE ? r.token() : handle, mode);
            try {
                out.add(new Delivery(receipt, r.payload(), HeaderCodec.decode(r.rawHeaders()), r.attempts(), r.priority(),
                        r.enqueuedAt(), null));
            } catch (HeaderCodec.MalformedHeadersException e) {
                try {
                    deadLetter(receipt, "malformed headers: " + e.getMessage());
                } catch (SqlQueueException failed) {
                    if (mode == ClaimMode.TRANSACTIONAL) {
                        throw failed; // the claim has ended: its other deliveries are back on the queue
                    }
                    // lease mode: the row comes back after its lease and meets the same check again
                }
            }
        }
        return out;
    }

    // ---- acknowledger ------------------------------------------------------------------------

    @Override
    public void ack(Receipt receipt) {
        ack(receipt, "");
    }

    @Override
    public void ack(Receipt receipt, String detail) {
        settle(receipt, Kind.ACK, "ack", (c, token, row, seconds) -> doAck(c, receipt, token, detail, seconds));
    }

    private boolean doAck(Connection c, Receipt r, long token, String detail, int seconds) throws SQLException {
        if (history) {
            return QueryTimeouts.count(c, sql, "ackToHistory", seconds, detail, r.messageId(), r.queue().value(), token) == 1;
        }
        return QueryTimeouts.count(c, sql, "ack", seconds, r.messageId(), r.queue().value(), token) == 1;
    }

    /**
     * Lease receipts are acked in one transaction per {@link SqlServerStatements#MAINTENANCE_BATCH};
     * transactional receipts through their claims.
     */
    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        Set<Receipt> lost = new LinkedHashSet<>();
        List<Receipt> leased = new ArrayList<>();
        for (Receipt r : receipts) {
            if (r.mode() == ClaimMode.LEASE) {
                leased.add(r);
            } else {
                try {
                    ack(r);
                } catch (LeaseLostException e) {
                    lost.add(r);
                }
            }
        }
        for (int from = 0; from < leased.size(); from += SqlServerStatements.MAINTENANCE_BATCH) {
            List<Receipt> chunk = leased.subList(from, Math.min(leased.size(), from + SqlServerStatements.MAINTENANCE_BATCH));
            int seconds = timeouts.settle();
            lost.addAll(sessions.inTransaction("ack of " + chunk.size() + " messages", seconds, c -> {
                Set<Receipt> missed = new LinkedHashSet<>();
                for (Receipt r : chunk) {
                    if (!doAck(c, r, r.token(), "", seconds)) {
                        rejectOtherQueue(c, r, seconds);
                        missed.add(r);
                    }
                }
                return missed;
            }));
        }
        return lost;
    }

    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        if (delay.getSeconds() >= Integer.MAX_VALUE) {
            throw new InvalidInputException("delay.max", "nack delay must be below " + Integer.MAX_VALUE + " s, was " + delay);
        }
        settle(receipt, Kind.NACK, "nack", (c, token, row, seconds) -> QueryTimeouts.count(c, sql, "nack", seconds, Jdbc.seconds(delay),
                Jdbc.millisPart(delay), error, receipt.messageId(), receipt.queue().value(), token) == 1);
    }

    @Override
    public void extend(Receipt receipt, Duration lease) {
        settle(receipt, Kind.EXTEND, "extend", lease.toMillis(), (c, token, row, seconds) -> QueryTimeouts.count(c, sql, "extend", seconds, (int) lease.toMillis(),
                receipt.messageId(), receipt.queue().value(), token) == 1);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        settle(receipt, Kind.DEAD_LETTER, "dead-letter", (c, token, row, seconds) -> {
            boolean one = QueryTimeouts.count(c, sql, "deadLetter", seconds, reason, receipt.messageId(),
                    receipt.queue().value(), token) == 1;
            if (one && history) {
                QueryTimeouts.execute(c, sql, "historyFromDeadLetter", seconds, receipt.messageId(), receipt.queue().value());
            }
            return one;
        });
    }

    @Override
    public void release(Receipt receipt) {
        settle(receipt, Kind.RELEASE, "release", (c, token, row, seconds) -> row == null
                ? QueryTimeouts.count(c, sql, "release", seconds, receipt.messageId(), receipt.queue().value(), token) == 1
                : QueryTimeouts.count(c, sql, "releaseRestore", seconds, row.priorVisibleAt(), receipt.messageId(),
                        receipt.queue().value(), token) == 1);
    }

    /**
     * A settle statement: {@code row} is the claimed row in transactional mode, null in lease mode;
     * {@code seconds} its query timeout ({@link QueryTimeouts}).
     */
    private interface Settle {
        boolean run(Connection c, long token, ClaimedRow row, int seconds) throws SQLException;
    }

    private void settle(Receipt receipt, Kind kind, String verb, Settle work) {
        settle(receipt, kind, verb, 0, work);
    }

    /** {@code extendMs}: the new lease of an extension (its bound is at least that), else 0. */
    private void settle(Receipt receipt, Kind kind, String verb, long extendMs, Settle work) {
        if (receipt.mode() == ClaimMode.TRANSACTIONAL) {
            claims.settle(receipt, kind, (c, row, left) -> work.run(c, row.token(), row,
                    Math.max(left, extendMs > 0 ? QueryTimeouts.seconds(extendMs) : 0)));
            return;
        }
        int seconds = extendMs > 0 ? timeouts.extend(extendMs) : timeouts.settle();
        boolean one = sessions.inTransaction(verb + " of message " + receipt.messageId(), seconds, c -> {
            boolean matched = work.run(c, receipt.token(), null, seconds);
            if (!matched) {
                rejectOtherQueue(c, receipt, seconds); // throws, which rolls the transaction back
            }
            return matched;
        });
        if (!one) {
            throw new LeaseLostException(receipt.messageId(), "message " + receipt.messageId() + " of queue '"
                    + receipt.queue() + "': lease lost (expired and claimed again, or already settled); " + verb
                    + " changed nothing");
        }
    }

    /**
     * After a lease-mode settle statement matched no row, in its transaction: throws
     * {@link InvalidInputException} (rule {@code receipt.queue}) when the receipt's row is held under its
     * token in another queue than the receipt names (issue 14); the exception rolls the transaction back,
     * so the store is unchanged. Returns when the row is gone or held under another token (a lost lease).
     */
    private void rejectOtherQueue(Connection c, Receipt r, int seconds) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get("leaseQueue"), r.messageId(), r.token())) {
            ps.setQueryTimeout(seconds);
            ResultSet rs;
            try {
                rs = ps.executeQuery();
            } catch (java.sql.SQLTimeoutException e) {
                throw new QueryTimeouts.StatementTimeout("leaseQueue", sql.get("leaseQueue"), seconds, e);
            }
            try (rs) {
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

    // ---- admin -------------------------------------------------------------------------------

    @Override
    public void migrate() {
        admin.migrate();
    }

    @Override
    public void createQueue(QueueName queue) {
        admin.createQueue(queue);
    }

    @Override
    public void dropQueue(QueueName queue) {
        admin.dropQueue(queue);
    }

    @Override
    public long purge(QueueName queue) {
        return admin.purge(queue);
    }

    @Override
    public List<QueueName> queues() {
        return admin.queues();
    }

    @Override
    public QueueStats stats(QueueName queue) {
        return admin.stats(queue);
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return admin.deadLetters(queue, limit);
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return admin.deadLetterSummaries(queue, limit);
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        return admin.deadLetterSummaries(queue, messageIds);
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        return admin.requeueDeadLetters(queue, messageIds);
    }

    @Override
    public long pruneHistory(QueueName queue, HistoryRetention retention) {
        return admin.pruneHistory(queue, retention);
    }

    @Override
    public long deleteDeadLetters(QueueName queue, List<Long> messageIds) {
        return admin.deleteDeadLetters(queue, messageIds);
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        return admin.purgeDeadLetters(queue);
    }

    @Override
    public List<dev.sqlqueue.MessageSummary> messages(QueueName queue, dev.sqlqueue.MessageState state, long afterId, int limit) {
        return admin.messages(queue, state, afterId, limit);
    }

    @Override
    public java.util.Optional<dev.sqlqueue.MessageSummary> message(QueueName queue, long messageId) {
        return admin.message(queue, messageId);
    }

    @Override
    public boolean pause(QueueName queue) {
        return admin.pause(queue);
    }

    @Override
    public boolean resume(QueueName queue) {
        return admin.resume(queue);
    }

    @Override
    public boolean isPaused(QueueName queue) {
        return admin.isPaused(queue);
    }

    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return admin.history(queue, limit);
    }

    /** Rolls back open transactional claims (their locks would block the drop), then drops every table of the prefix. */
    @Override
    public void dropSchema() {
        claims.rollbackAll();
        admin.dropSchema();
    }

    /** The statements this backend runs (for tests). */
    SqlServerStatements statements() {
        return sql;
    }

    /**
     * Open transactional claims (each holds a connection); for tests and monitoring.
     *
     * @return the number of open transactional claims, 0 or more
     */
    public int openTransactionalClaims() {
        return claims.openCount();
    }

    /** Rolls back open transactional claims, then closes the pool if the backend opened it. */
    @Override
    public void close() {
        claims.rollbackAll();
        if (pool != null) {
            try {
                pool.close();
            } catch (Exception e) {
                throw Sessions.unexpected("closing the connection pool", e);
            }
        }
    }
}
