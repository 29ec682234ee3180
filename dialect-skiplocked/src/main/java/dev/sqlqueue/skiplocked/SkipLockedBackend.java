package dev.sqlqueue.skiplocked;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.HeaderCodec;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SKIP LOCKED backend for H2, PostgreSQL and MariaDB. Claims lock candidate rows with
 * {@code SELECT ... ORDER BY priority DESC, visible_at, id ... FOR UPDATE SKIP LOCKED}; in lease mode
 * the same transaction stamps a lease and commits, in transactional mode the transaction stays open
 * until the claim is settled. Statements are in {@link SkipLockedStatements}. Thread-safe.
 */
final class SkipLockedBackend implements QueueBackend {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedBackend.class);
    private static final int MAX_DEADLOCK_RETRIES = 6;
    private static final int MAX_TEXT = 4000;

    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    private final SkipLockedDialect dialect;
    private final DataSource ds;
    private final AutoCloseable ownedPool;
    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Capabilities caps;
    private final Set<QueueName> knownQueues = ConcurrentHashMap.newKeySet();
    private final Map<Long, TransactionalClaim> claims = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reaper;
    private volatile PostgresWakeups wakeups;
    private volatile Consumer<QueueName> wakeupListener;

    SkipLockedBackend(SkipLockedDialect dialect, String name, DataSource ds, AutoCloseable ownedPool, QueueConfig config) {
        this.dialect = dialect;
        this.ds = ds;
        this.ownedPool = ownedPool;
        this.config = config;
        this.sql = new SkipLockedStatements(dialect, config.tablePrefix());
        this.caps = SkipLockedCapabilities.of(name, dialect);
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-claim-reaper");
            t.setDaemon(true);
            return t;
        });
        reaper.scheduleWithFixedDelay(this::reapExpiredClaims, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String serverVersion() {
        return inTransaction("read server version", c -> c.getMetaData().getDatabaseProductName() + " "
                + c.getMetaData().getDatabaseProductVersion());
    }

    @Override
    public void onWakeup(Consumer<QueueName> listener) {
        this.wakeupListener = listener;
        if (dialect == SkipLockedDialect.POSTGRES && wakeups == null) {
            wakeups = new PostgresWakeups(config, ds, sql, listener);
            wakeups.start();
        }
    }

    // ---- transactions ------------------------------------------------------------------------

    /** Run {@code work} in one transaction on a pooled connection, retrying deadlock victims. */
    <T> T inTransaction(String what, SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            boolean committing = false;
            try (Connection c = ds.getConnection()) {
                ConnectionState state = prepare(c);
                try {
                    T result = work.run(c);
                    committing = true;
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                } finally {
                    state.restore(c);
                }
            } catch (SQLException e) {
                if (JdbcErrors.isRetryable(e) && attempt < MAX_DEADLOCK_RETRIES) {
                    sleepJitter(attempt);
                    continue;
                }
                // a pooled connection found dead before anything was committed: drop the pool's idle
                // connections (a killed session rarely dies alone) and try once more on a fresh one
                if (!committing && attempt == 1 && JdbcErrors.isConnectionLoss(e)) {
                    evictIdleConnections();
                    continue;
                }
                throw JdbcErrors.translate(what, e);
            }
        }
    }

    /** Own pool: already auto-commit off and READ COMMITTED; a caller's pool: recorded, set, restored later. */
    private ConnectionState prepare(Connection c) throws SQLException {
        return ownedPool != null ? ConnectionState.POOL_DEFAULTS : ConnectionState.prepare(c);
    }

    private void evictIdleConnections() {
        if (ownedPool instanceof com.zaxxer.hikari.HikariDataSource hikari) {
            hikari.getHikariPoolMXBean().softEvictConnections();
        }
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // connection broken: the server rolls back
        }
    }

    private static void sleepJitter(int attempt) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 5L << Math.min(attempt, 6)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SqlQueueException("interrupted while retrying a deadlocked statement", e);
        }
    }

    private static String clip(String s) {
        return s == null ? null : s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s;
    }

    // ---- admin -------------------------------------------------------------------------------

    @Override
    public void migrate() {
        SchemaMigrator.migrate(ds, dialect, config.tablePrefix());
    }

    @Override
    public void createQueue(QueueName queue) {
        inTransaction("create queue", c -> {
            ensureQueue(c, queue);
            return null;
        });
        knownQueues.add(queue);
    }

    private void ensureQueue(Connection c, QueueName queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.ensureQueue)) {
            ps.setString(1, queue.value());
            if (dialect == SkipLockedDialect.H2) {
                ps.setString(2, queue.value());
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                throw e;
            }
            // created concurrently by another process: fine
        }
    }

    private void ensureKnown(QueueName queue) {
        if (!knownQueues.contains(queue)) {
            createQueue(queue);
        }
    }

    @Override
    public void dropQueue(QueueName queue) {
        inTransaction("drop queue", c -> {
            for (String s : List.of(sql.purgeMessages, sql.purgeDead, sql.purgeHistory, sql.deleteQueue)) {
                update(c, s, queue.value());
            }
            return null;
        });
        knownQueues.remove(queue);
    }

    @Override
    public void dropSchema() {
        claims.values().forEach(TransactionalClaim::abort);
        inTransaction("drop schema", c -> {
            try (Statement st = c.createStatement()) {
                for (String s : sql.dropSchema) {
                    st.execute(s);
                }
                if (sql.dropFunction != null) {
                    st.execute(sql.dropFunction);
                }
            }
            return null;
        });
        knownQueues.clear();
    }

    @Override
    public long purge(QueueName queue) {
        return inTransaction("purge", c -> (long) update(c, sql.purgeMessages, queue.value()));
    }

    @Override
    public List<QueueName> queues() {
        return inTransaction("list queues", c -> {
            List<QueueName> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.listQueues); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(QueueName.of(rs.getString(1)));
                }
            }
            return out;
        });
    }

    @Override
    public QueueStats stats(QueueName queue) {
        return inTransaction("read statistics", c -> {
            long ready;
            long inFlight;
            long delayed;
            long oldest;
            try (PreparedStatement ps = c.prepareStatement(sql.stats)) {
                ps.setString(1, queue.value());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    ready = rs.getLong(1);
                    inFlight = rs.getLong(2);
                    delayed = rs.getLong(3);
                    long oldestEnqueue = rs.getLong(4);
                    boolean none = rs.wasNull();
                    long now = rs.getLong(5);
                    oldest = none ? 0 : Math.max(0, now - oldestEnqueue);
                }
            }
            long dead = count(c, sql.countDead, queue);
            long processed = count(c, sql.countHistory, queue);
            return new QueueStats(queue, ready, inFlight, delayed, dead, oldest, processed);
        });
    }

    private static long count(Connection c, String statement, QueueName queue) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, queue.value());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return inTransaction("list dead letters", c -> {
            List<DeadLetter> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.listDead)) {
                ps.setString(1, queue.value());
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String raw = rs.getString(5);
                        Map<String, String> headers;
                        try {
                            headers = HeaderCodec.decode(raw);
                        } catch (HeaderCodec.MalformedHeadersException e) {
                            headers = Map.of();
                        }
                        out.add(new DeadLetter(rs.getLong(1), queue, rs.getBytes(6), headers, raw, rs.getInt(4),
                                rs.getString(7), Instant.ofEpochMilli(rs.getLong(3)), Instant.ofEpochMilli(rs.getLong(8)),
                                rs.getString(9)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        long n = inTransaction("requeue dead letters", c -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.lockDeadIds)) {
                ps.setString(1, queue.value());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            if (!messageIds.isEmpty()) {
                ids.retainAll(new HashSet<>(messageIds));
            }
            long moved = 0;
            for (long id : ids) {
                moved += update(c, sql.requeueDead, queue.value(), id);
                moved += update(c, sql.requeueDeadGrouped, queue.value(), id);
                update(c, sql.deleteDead, queue.value(), id);
            }
            return moved;
        });
        if (n > 0 && wakeupListener != null) {
            wakeupListener.accept(queue);
        }
        return n;
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        return inTransaction("purge dead letters", c -> (long) update(c, sql.purgeDead, queue.value()));
    }

    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return inTransaction("read history", c -> {
            List<HistoryEntry> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.listHistory)) {
                ps.setString(1, queue.value());
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new HistoryEntry(rs.getLong(1), queue, Instant.ofEpochMilli(rs.getLong(2)),
                                Instant.ofEpochMilli(rs.getLong(3)), Instant.ofEpochMilli(rs.getLong(4)), rs.getLong(5),
                                rs.getInt(6), rs.getString(7), rs.getString(8)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public long pruneHistory(QueueName queue, HistoryRetention retention) {
        return inTransaction("prune history", c -> {
            long deleted = 0;
            if (retention.maxAge() != null) {
                deleted += update(c, sql.pruneHistoryAge, queue.value(), retention.maxAge().toMillis());
            }
            if (retention.maxRows() != null) {
                long cutoff = -1;
                try (PreparedStatement ps = c.prepareStatement(sql.historyCutoff)) {
                    ps.setString(1, queue.value());
                    ps.setInt(2, (int) Math.min(Integer.MAX_VALUE, retention.maxRows()));
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            cutoff = rs.getLong(1);
                        }
                    }
                }
                if (cutoff >= 0) {
                    deleted += update(c, sql.pruneHistoryRows, queue.value(), cutoff);
                }
            }
            return deleted;
        });
    }

    // ---- producer ----------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        return enqueueAll(queue, List.of(message)).get(0);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        ensureKnown(queue);
        return inTransaction("enqueue", c -> insert(c, queue, messages));
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        ensureKnown(queue);
        try {
            return insert(connection, queue, List.of(message)).get(0);
        } catch (SQLException e) {
            throw JdbcErrors.translate("enqueue in the caller's transaction", e);
        }
    }

    private List<Long> insert(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        List<Long> ids = new ArrayList<>(messages.size());
        try (PreparedStatement ps = dialect == SkipLockedDialect.POSTGRES
                ? c.prepareStatement(sql.insert, new String[] {"id"})
                : c.prepareStatement(sql.insert, Statement.RETURN_GENERATED_KEYS)) {
            for (Message m : messages) {
                ps.setString(1, queue.value());
                ps.setInt(2, m.priority());
                ps.setLong(3, m.delay().toMillis());
                ps.setString(4, HeaderCodec.encode(m.headers()));
                ps.setBytes(5, m.payloadUnsafe());
                ps.setString(6, m.group());
                if (messages.size() == 1) {
                    ps.executeUpdate();
                } else {
                    ps.addBatch();
                }
            }
            if (messages.size() > 1) {
                ps.executeBatch();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                while (keys.next()) {
                    ids.add(keys.getLong(1));
                }
            }
        }
        if (ids.size() != messages.size()) {
            throw new SqlQueueException("the driver returned " + ids.size() + " generated ids for " + messages.size() + " rows");
        }
        if (sql.notify != null) {
            try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
                ps.setString(1, sql.channel);
                ps.setString(2, queue.value());
                ps.executeQuery().close();
            }
        }
        return ids;
    }

    // ---- consumer ----------------------------------------------------------------------------

    private record Row(long id, int priority, long enqueuedAt, int attempts, String headers, byte[] payload, String group) {
    }

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        if (dialect == SkipLockedDialect.H2) {
            synchronized (h2ClaimLocks.computeIfAbsent(queue, k -> new Object())) {
                return claim(queue, request);
            }
        }
        return claim(queue, request);
    }

    private List<Delivery> claim(QueueName queue, ConsumeRequest request) {
        return request.mode() == ClaimMode.LEASE ? consumeLeased(queue, request) : consumeTransactional(queue, request);
    }

    /** H2: rounds of candidates a claim tries when rows it picked are locked by another backend. */
    private static final int H2_CLAIM_ROUNDS = 4;

    private long selectCandidates(Connection c, QueueName queue, int limit, List<Row> rows) throws SQLException {
        if (sql.claimCandidates == null) {
            return lockRows(c, rows, ps -> {
                ps.setString(1, queue.value());
                ps.setInt(2, limit);
            });
        }
        // H2: candidates are read without locks, then locked by id, skipping locked ones. Rows that
        // another backend (another process, or another SqlQueue in this one) holds come back as
        // candidates again and again, so a round that locked fewer than asked tries the next candidates,
        // leaving out every id tried so far
        List<Long> tried = heldIds();
        long now = 0;
        for (int round = 0; round < H2_CLAIM_ROUNDS && rows.size() < limit; round++) {
            List<Long> ids = new ArrayList<>(limit);
            try (PreparedStatement ps = c.prepareStatement(sql.claimCandidates)) {
                ps.setString(1, queue.value());
                ps.setObject(2, tried.toArray(new Long[0]));
                ps.setInt(3, limit - rows.size());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            if (ids.isEmpty()) {
                break;
            }
            Long[] candidates = ids.toArray(new Long[0]);
            now = lockRows(c, rows, ps -> ps.setObject(1, candidates));
            tried.addAll(ids);
        }
        return now;
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /** Runs the locking claim select; adds the rows it locked; returns the database clock it read (0 if none). */
    private long lockRows(Connection c, List<Row> rows, Binder binder) throws SQLException {
        long now = 0;
        try (PreparedStatement ps = c.prepareStatement(sql.claimSelect)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new Row(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getInt(4), rs.getString(5), rs.getBytes(6),
                            rs.getString(8)));
                    now = rs.getLong(7);
                }
            }
        }
        return now;
    }

    /** Dead-letter rows whose headers cannot be decoded; returns the decoded headers of the others, in order. */
    private List<Map<String, String>> screen(Connection c, List<Row> rows) throws SQLException {
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

    private List<Delivery> consumeLeased(QueueName queue, ConsumeRequest request) {
        long token = newToken();
        return inTransaction("consume", c -> {
            List<Row> rows = new ArrayList<>();
            selectCandidates(c, queue, request.maxMessages(), rows);
            if (rows.isEmpty()) {
                return List.of();
            }
            List<Map<String, String>> headers = screen(c, rows);
            if (!rows.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(sql.leaseUpdate)) {
                    for (Row r : rows) {
                        ps.setLong(1, token);
                        ps.setLong(2, request.lease().toMillis());
                        ps.setLong(3, r.id());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            List<Delivery> out = new ArrayList<>(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                out.add(new Delivery(new Receipt(queue, r.id(), token, ClaimMode.LEASE), r.payload(), headers.get(i),
                        r.attempts() + 1, r.priority(), Instant.ofEpochMilli(r.enqueuedAt()), r.group()));
            }
            return out;
        });
    }

    private List<Delivery> consumeTransactional(QueueName queue, ConsumeRequest request) {
        long token = newToken();
        for (int attempt = 1; ; attempt++) {
            Connection c = null;
            ConnectionState state = null;
            try {
                c = ds.getConnection();
                state = prepare(c);
                List<Row> rows = new ArrayList<>();
                long now = selectCandidates(c, queue, request.maxMessages(), rows);
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
                claims.put(token, new TransactionalClaim(token, now, queue.value(), c, state, ids, request.lease().toMillis(), before > rows.size()));
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
                if (attempt == 1 && JdbcErrors.isConnectionLoss(e)) {
                    evictIdleConnections();
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


    /** Ids held by this backend's open transactional claims (H2 leaves them out of a claim). */
    private List<Long> heldIds() {
        List<Long> held = new ArrayList<>();
        for (TransactionalClaim claim : claims.values()) {
            held.addAll(claim.openIds());
        }
        return held;
    }

    /** H2: one claim per queue at a time in this process, so claims never lock each other's candidates. */
    private final Map<QueueName, Object> h2ClaimLocks = new ConcurrentHashMap<>();

    private static long newToken() {
        long t;
        do {
            t = ThreadLocalRandom.current().nextLong();
        } while (t == 0);
        return t;
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

    // ---- acknowledger ------------------------------------------------------------------------

    private TransactionalClaim claim(Receipt r) {
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

    private void inClaim(Receipt r, TransactionalClaim.Work work, boolean release) {
        TransactionalClaim claim = claim(r);
        try {
            if (claim.settle(r.messageId(), work, release)) {
                claims.remove(claim.token);
            }
        } catch (SQLException e) {
            claims.remove(claim.token);
            if (JdbcErrors.isConnectionLoss(e)) {
                throw new LeaseLostException(r.messageId(), "the connection of transactional claim " + claim.token
                        + " broke; its messages were rolled back to the queue: " + e.getMessage());
            }
            throw JdbcErrors.translate("settle transactional claim", e);
        }
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

    private static InvalidInputException otherQueue(Receipt r, String actual) {
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

    @Override
    public void ack(Receipt receipt) {
        ack(receipt, null);
    }

    @Override
    public void ack(Receipt r, String detail) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt) -> {
                if (config.history()) {
                    update(c, sql.historyById, claimedAt, "acked", clip(detail), r.messageId());
                }
                update(c, sql.deleteById, r.messageId());
            }, false);
            return;
        }
        inTransaction("ack", c -> {
            if (config.history()) {
                update(c, sql.historyLeased, "acked", clip(detail), r.messageId(), r.token(), r.queue().value());
            }
            expectOne(c, update(c, sql.deleteLeased, r.messageId(), r.token(), r.queue().value()), r, "ack");
            return null;
        });
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
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
        inTransaction("ack", c -> {
            if (config.history()) {
                batch(c, sql.historyLeased, leased, r -> new Object[] {"acked", null, r.messageId(), r.token(), r.queue().value()});
            }
            int[] counts = batch(c, sql.deleteLeased, leased, r -> new Object[] {r.messageId(), r.token(), r.queue().value()});
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

    /** One statement over many receipts in a JDBC batch; exact per-row update counts. */
    private static int[] batch(Connection c, String statement, List<Receipt> receipts,
                               java.util.function.Function<Receipt, Object[]> params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (Receipt r : receipts) {
                Object[] p = params.apply(r);
                for (int i = 0; i < p.length; i++) {
                    ps.setObject(i + 1, p[i]);
                }
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int count : counts) {
                if (count == Statement.SUCCESS_NO_INFO) {
                    throw new SQLException("the driver did not report per-row update counts for a batch;"
                            + " with MariaDB Connector/J set useBulkStmts=false");
                }
            }
            return counts;
        }
    }

    @Override
    public void nack(Receipt r, Duration delay, String error) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt) -> update(c, sql.nackById, delay.toMillis(), clip(error), r.messageId()), false);
            return;
        }
        inTransaction("nack", c -> {
            expectOne(c, update(c, sql.nackLeased, delay.toMillis(), clip(error), r.messageId(), r.token(), r.queue().value()), r, "nack");
            return null;
        });
    }

    @Override
    public void extend(Receipt r, Duration lease) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            claim(r).extend(lease.toMillis());
            return;
        }
        inTransaction("extend lease", c -> {
            expectOne(c, update(c, sql.extend, lease.toMillis(), r.messageId(), r.token(), r.queue().value()), r, "lease extension");
            return null;
        });
    }

    @Override
    public void deadLetter(Receipt r, String reason) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt) -> {
                update(c, sql.deadLetterById, clip(reason), r.messageId());
                if (config.history()) {
                    update(c, sql.historyById, claimedAt, "dead-lettered", clip(reason), r.messageId());
                }
                update(c, sql.deleteById, r.messageId());
            }, false);
            return;
        }
        inTransaction("dead-letter", c -> {
            expectOne(c, update(c, sql.deadLetterLeased, clip(reason), r.messageId(), r.token(), r.queue().value()), r, "dead-letter");
            if (config.history()) {
                update(c, sql.historyLeased, "dead-lettered", clip(reason), r.messageId(), r.token(), r.queue().value());
            }
            update(c, sql.deleteLeased, r.messageId(), r.token(), r.queue().value());
            return null;
        });
    }

    @Override
    public void release(Receipt r) {
        if (r.mode() == ClaimMode.TRANSACTIONAL) {
            inClaim(r, (c, claimedAt) -> { }, true);
            return;
        }
        inTransaction("release", c -> {
            expectOne(c, update(c, sql.releaseLeased, r.messageId(), r.token(), r.queue().value()), r, "release");
            return null;
        });
    }

    @Override
    public void close() {
        reaper.shutdownNow();
        claims.values().forEach(TransactionalClaim::abort);
        claims.clear();
        if (wakeups != null) {
            wakeups.close();
        }
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                LOG.debug("closing the pool failed", e);
            }
        }
    }
}
