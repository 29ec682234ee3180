package dev.sqlqueue.skiplocked;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SKIP LOCKED backend for H2, PostgreSQL and MariaDB. Claims lock candidate rows with
 * {@code SELECT ... ORDER BY priority DESC, visible_at, id ... FOR UPDATE SKIP LOCKED}; in lease mode
 * the same transaction stamps a lease and commits, in transactional mode the transaction stays open
 * until the claim is settled. Statements are in {@link SkipLockedStatements}. Claim and settle
 * statements carry a query timeout derived from the lease ({@link QueryTimeouts}); a statement stopped
 * by it raises {@link dev.sqlqueue.TransientBackendException} naming the statement and is not retried.
 * Thread-safe.
 *
 * <p>This class only dispatches; the work is split by role: {@link SkipLockedProducer} (enqueue),
 * {@link LeaseClaims} and {@link TransactionalClaims} (claims, sharing {@link ClaimRows}),
 * {@link SkipLockedAcks} (settling), {@link SkipLockedAdmin} (schema, queues, statistics, dead letters,
 * history), over {@link Transactions}.
 */
final class SkipLockedBackend implements QueueBackend {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedBackend.class);

    private final SkipLockedDialect dialect;
    private final DataSource ds;
    private final AutoCloseable ownedPool;
    private final SkipLockedStatements sql;
    private final QueueConfig config;
    private final Capabilities caps;
    private final Transactions tx;
    private final SkipLockedAdmin admin;
    private final SkipLockedProducer producer;
    private final LeaseClaims leases;
    private final TransactionalClaims transactional;
    private final SkipLockedAcks acks;
    private final MoveClaims moves;
    private volatile PostgresWakeups wakeups;
    /** PostgreSQL without a transaction pooler in between: wake-ups by LISTEN/NOTIFY. */
    private final boolean listen;
    /** PostgreSQL with {@code postgresql.vacuum-every}: the periodic VACUUM of the message table, else null. */
    private final PostgresVacuum vacuum;

    SkipLockedBackend(SkipLockedDialect dialect, String name, DataSource ds, AutoCloseable ownedPool, QueueConfig config) {
        this.dialect = dialect;
        this.ds = ds;
        this.ownedPool = ownedPool;
        this.config = config;
        this.sql = new SkipLockedStatements(dialect, config.tablePrefix());
        PostgresOptions postgres = dialect == SkipLockedDialect.POSTGRES ? PostgresOptions.from(config) : null;
        this.listen = postgres != null && !postgres.transactionPooler();
        this.caps = SkipLockedCapabilities.of(name, dialect, listen);
        // H2 has no socket to bound in embedded mode, and ignores a network timeout
        this.tx = new Transactions(ds, ownedPool, dialect != SkipLockedDialect.H2, dialect == SkipLockedDialect.H2);
        Map<Long, TransactionalClaim> claims = new ConcurrentHashMap<>();
        QueryTimeouts timeouts = new QueryTimeouts();
        ClaimRows claimRows = new ClaimRows(sql, config, claims);
        this.admin = new SkipLockedAdmin(dialect, ds, sql, config, tx, claims);
        this.producer = new SkipLockedProducer(dialect, sql, tx, admin, config.deduplicationWindow());
        this.leases = new LeaseClaims(sql, config, tx, claimRows, timeouts);
        this.transactional = new TransactionalClaims(ds, sql, config, tx, claims, claimRows, timeouts);
        this.acks = new SkipLockedAcks(sql, config, tx, transactional, timeouts);
        this.moves = new MoveClaims(sql, tx, claimRows, timeouts);
        this.vacuum = postgres == null || postgres.vacuumEvery() == null ? null
                : new PostgresVacuum(ds, config.tablePrefix(), postgres.vacuumEvery());
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    /**
     * The connections of the caller's {@code DataSource} left for claims and handlers when it is a HikariCP pool
     * (or wraps one and says so through {@code unwrap}): its {@code maximumPoolSize} now, less the one the
     * PostgreSQL LISTEN connection holds for as long as the backend is open (it comes from the caller's pool when
     * the config has no URL); empty for any other {@code DataSource} and for the own pool, whose size
     * {@code SqlQueue} knows from the config.
     */
    @Override
    public java.util.OptionalInt poolSize() {
        DataSource caller = config.dataSource();
        if (ownedPool != null || caller == null) {
            return java.util.OptionalInt.empty();
        }
        try {
            if (caller.isWrapperFor(com.zaxxer.hikari.HikariConfigMXBean.class)) {
                int max = caller.unwrap(com.zaxxer.hikari.HikariConfigMXBean.class).getMaximumPoolSize();
                int listening = wakeups != null && config.url() == null ? 1 : 0;
                return java.util.OptionalInt.of(Math.max(0, max - listening));
            }
        } catch (java.sql.SQLException | RuntimeException e) {
            LOG.debug("cannot read the size of the caller's DataSource", e);
        }
        return java.util.OptionalInt.empty();
    }

    @Override
    public String serverVersion() {
        return tx.inTransaction("read server version", c -> c.getMetaData().getDatabaseProductName() + " "
                + c.getMetaData().getDatabaseProductVersion());
    }

    @Override
    public void onWakeup(Consumer<QueueName> listener) {
        admin.wakeupListener = listener;
        if (listen && wakeups == null) {
            wakeups = new PostgresWakeups(config, ds, sql, listener);
            wakeups.start();
        } else if (dialect == SkipLockedDialect.POSTGRES && !listen) {
            LOG.debug("{}=true: no LISTEN connection; consumers of prefix {} poll, at most {} ms apart",
                    PostgresOptions.TRANSACTION_POOLER, config.tablePrefix(), config.idlePollMax().toMillis());
        }
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
    public void dropSchema() {
        admin.dropSchema();
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
    public List<dev.sqlqueue.OpenTransaction> oldestTransactions(int limit) {
        return admin.oldestTransactions(limit);
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
    public List<dev.sqlqueue.HistoryBucket> historyBuckets(QueueName queue, java.time.Instant from, java.time.Duration bucket) {
        return admin.historyBuckets(queue, from, bucket);
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

    @Override
    public List<dev.sqlqueue.HistoryRow> historyForMove(QueueName queue, int limit) {
        return admin.historyForMove(queue, limit);
    }

    @Override
    public int enqueueMovedHistory(QueueName queue, List<HistoryEntry> rows) {
        return admin.enqueueMovedHistory(queue, rows);
    }

    @Override
    public long deleteHistory(QueueName queue, List<Long> historyIds) {
        return admin.deleteHistory(queue, historyIds);
    }

    @Override
    public long pruneHistory(QueueName queue, HistoryRetention retention) {
        return admin.pruneHistory(queue, retention);
    }

    // ---- producer ----------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        return producer.enqueue(queue, message);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return producer.enqueueAll(queue, messages);
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        return producer.enqueueAllDeduplicated(queue, messages);
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return producer.enqueue(connection, queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        return producer.enqueueDeduplicated(queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        return producer.enqueueDeduplicated(connection, queue, message);
    }

    // ---- consumer ----------------------------------------------------------------------------

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
        return request.mode() == ClaimMode.LEASE ? leases.consumeLeased(queue, request) : transactional.consumeTransactional(queue, request);
    }

    /** H2: one claim per queue at a time in this process, so claims never lock each other's candidates. */
    private final Map<QueueName, Object> h2ClaimLocks = new ConcurrentHashMap<>();

    @Override
    public List<dev.sqlqueue.HeldForMove> claimForMove(QueueName queue, int maxMessages, Duration lease) {
        return moves.claimForMove(queue, maxMessages, lease);
    }

    @Override
    public List<EnqueueResult> enqueueMoved(QueueName queue, List<dev.sqlqueue.MovedMessage> messages) {
        return producer.enqueueMoved(queue, messages);
    }

    @Override
    public List<dev.sqlqueue.DeduplicationKey> deduplicationKeys(QueueName queue, String afterKey, int limit) {
        return producer.deduplicationKeys(queue, afterKey, limit);
    }

    @Override
    public int enqueueMovedKeys(QueueName queue, List<dev.sqlqueue.DeduplicationKey> keys, String messageKeyPrefix) {
        return producer.enqueueMovedKeys(queue, keys, messageKeyPrefix);
    }

    // ---- acknowledger ------------------------------------------------------------------------

    @Override
    public void ack(Receipt receipt) {
        acks.ack(receipt);
    }

    @Override
    public void ack(Receipt r, String detail) {
        acks.ack(r, detail);
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        return acks.ackAll(receipts);
    }

    /**
     * PostgreSQL, lease mode, no history, receipts of one claim on {@code queue}: one round trip and one
     * transaction ({@link SkipLockedStatements#ackAndLeaseClaim}); otherwise the interface's {@code ackAll}, then
     * {@code consume}. Not on MariaDB: there the acks and the next claim in one transaction drained slower than
     * in two (the claim's locks held through the acks' commit; measured for issue 32, docs/benchmarks.md).
     */
    @Override
    public AckedAndClaimed ackAllAndConsume(Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        List<Receipt> list = List.copyOf(receipts);
        if (sql.ackAndLeaseClaim != null && !config.history() && request.mode() == ClaimMode.LEASE && !list.isEmpty()
                && list.stream().allMatch(r -> r.mode() == ClaimMode.LEASE && r.queue().equals(queue)
                        && r.token() == list.get(0).token())) {
            return leases.ackAndConsumeLeased(list, queue, request);
        }
        return QueueBackend.super.ackAllAndConsume(list, queue, request);
    }

    @Override
    public void nack(Receipt r, Duration delay, String error) {
        acks.nack(r, delay, error);
    }

    @Override
    public void extend(Receipt r, Duration lease) {
        acks.extend(r, lease);
    }

    @Override
    public void deadLetter(Receipt r, String reason) {
        acks.deadLetter(r, reason);
    }

    @Override
    public void release(Receipt r) {
        acks.release(r);
    }

    @Override
    public void close() {
        if (vacuum != null) {
            vacuum.close();
        }
        producer.close();
        transactional.close();
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
