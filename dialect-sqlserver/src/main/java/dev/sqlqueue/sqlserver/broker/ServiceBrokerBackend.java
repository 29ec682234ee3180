package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.sqlserver.PrepareMethods;

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
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.UnsupportedCapabilityException;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sqlserver-broker} backend: queues are Service Broker queues; enqueue is SEND on pooled
 * dialogs ({@link DialogPool}, {@link BrokerSender}); consume is {@code WAITFOR (RECEIVE ...)} in a
 * transaction ({@link BrokerReceiver}, {@link BrokerClaim}); poison messages go to a dead-letter table
 * at the adapter's own attempt limit; an initiator-side sweeper ({@link BrokerSweeper}) ends dialogs
 * the target ended or that failed. Every statement is in a class of its role, held by
 * {@link BrokerStatements}.
 *
 * <p>Capabilities: transactional claim mode only (no lease mode, so no lease extension); ordering
 * {@link Ordering#PER_GROUP} (in order within one conversation; a pool spreads a queue over several);
 * message groups (each group travels on a dialog of its own, so the target sees it as one conversation
 * group: one consumer at a time, in order); enqueue in the caller's transaction; history (when
 * {@link QueueConfig#history()}); server-side wait; dropping its own schema objects; payloads up to
 * {@value #MAX_PAYLOAD_BYTES} bytes; claims of up to {@value #MAX_CLAIM_BATCH} messages. Not offered:
 * delayed delivery and nack delays (a conversation timer is one per conversation and fires on the side
 * that set it, so it cannot delay single messages on shared dialogs), priority.
 *
 * <p>Thread-safe. Nothing here has been run against a SQL Server.
 */
public final class ServiceBrokerBackend implements QueueBackend {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceBrokerBackend.class);
    /**
     * The provider name: {@code sqlserver-broker}.
     */
    public static final String NAME = "sqlserver-broker";
    /**
     * The largest payload: 1 MiB.
     */
    public static final int MAX_PAYLOAD_BYTES = 1 << 20;
    /**
     * The most messages one claim takes: 100.
     */
    public static final int MAX_CLAIM_BATCH = 100;
    private static final int PURGE_BATCH = 500;
    /** RECEIVEs (conversation groups) purged per transaction. */
    private static final int PURGE_RECEIVES_PER_TRANSACTION = 50;

    private final DataSource ds;
    private final AutoCloseable ownedPool;
    private final BrokerStatements sql;
    private final BrokerOptions options;
    private final BrokerProvisioner provisioner;
    private final Map<QueueName, DialogPool> pools = BrokerSender.newStore();
    private final Function<QueueName, DialogPool> poolOf;
    private final BrokerSender sender;
    private final BrokerReceiver receiver;
    private final BrokerSweeper sweeper;
    private final DeadLetterStore dead;
    private final String owner = UUID.randomUUID().toString();
    private final ScheduledExecutorService scheduler;
    private final boolean history;
    private volatile boolean schemaDropped;

    /**
     * @param ds where connections come from
     * @param ownedPool closed on {@link #close()} (the backend's own pool), or null for a caller's pool
     * @param config the queue configuration (URL, table prefix and options)
     * @param options the backend's options
     * @param startSweeper whether to run the initiator-queue sweeper in the background
     */
    public ServiceBrokerBackend(DataSource ds, AutoCloseable ownedPool, QueueConfig config, BrokerOptions options,
                                boolean startSweeper) {
        ds = PrepareMethods.rpcOnly(ds); // no SET of a Broker statement stays on a pooled session (N7)
        this.ds = ds;
        this.ownedPool = ownedPool;
        this.options = options;
        this.history = config.history();
        this.sql = new BrokerStatements(new BrokerNames(config.tablePrefix()));
        this.provisioner = new BrokerProvisioner(sql, options);
        this.poolOf = BrokerSender.poolsOf(ds, sql, options, owner, pools);
        this.sender = new BrokerSender(ds, sql, poolOf, config.deduplicationWindow());
        this.receiver = new BrokerReceiver(ds, sql, options, sender, history);
        this.sweeper = new BrokerSweeper(ds, sql, options, poolOf);
        this.dead = new DeadLetterStore(ds, sql, sender);
        if (startSweeper) {
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "sqlqueue-broker-sweeper");
                t.setDaemon(true);
                return t;
            });
            scheduler.scheduleWithFixedDelay(this::sweepAll, options.sweepIntervalMillis(), options.sweepIntervalMillis(),
                    TimeUnit.MILLISECONDS);
        } else {
            scheduler = null;
        }
    }

    /**
     * The statements this backend runs (for tests and tools).
     *
     * @return the statements this backend runs (for tests and tools)
     */
    public BrokerStatements statements() {
        return sql;
    }

    /**
     * Runs the sweeper once over every queue of the prefix, then deletes expired deduplication keys. Errors
     * are logged, never thrown.
     */
    public void sweepAll() {
        try {
            sweeper.deleteExpiredKeys();
        } catch (SQLException e) {
            LOG.warn("deleting expired deduplication keys failed: {}", e.toString());
        }
        try {
            for (QueueName q : queues()) {
                try {
                    sweeper.sweep(q);
                } catch (SQLException e) {
                    LOG.warn("sweeping the initiator queue of '{}' failed: {}", q, e.toString());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("sweeper could not list queues: {}", e.toString());
        }
    }

    @Override
    public Capabilities capabilities() {
        EnumSet<Capability> features = EnumSet.of(Capability.MESSAGE_GROUPS, Capability.TRANSACTIONAL_ENQUEUE,
                Capability.SERVER_SIDE_WAIT, Capability.DROP_SCHEMA, Capability.DEDUPLICATION);
        if (history) {
            features.add(Capability.HISTORY);
        }
        return new Capabilities(NAME, EnumSet.of(ClaimMode.TRANSACTIONAL), features, Ordering.PER_GROUP, MAX_PAYLOAD_BYTES,
                MAX_CLAIM_BATCH).withAbsentReason(Capability.PAUSE, "RECEIVE takes whatever the queue holds: the one way to"
                + " stop it is ALTER QUEUE ... WITH STATUS = OFF, which also makes every SEND to the queue fail"
                + " (\"ALTER QUEUE (Transact-SQL)\"), so enqueues would stop too");
    }

    @Override
    public boolean waitsInConsume() {
        return true;
    }

    @Override
    public String serverVersion() {
        try (Connection c = ds.getConnection()) {
            Object[] r = Sql.query(c, sql.provisioning().serverVersion()).get(0);
            return "Microsoft SQL Server " + r[0] + " (" + r[1] + ")";
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "reading the server version");
        }
    }

    // ---- producer ---------------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        return sender.send(queue, List.of(message)).get(0);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return sender.send(queue, messages);
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        boolean[] duplicates = new boolean[messages.size()];
        List<Long> ids = sender.send(queue, messages, duplicates);
        List<EnqueueResult> results = new java.util.ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            results.add(new EnqueueResult(ids.get(i), duplicates[i]));
        }
        return results;
    }

    /**
     * Sends in the caller's transaction on the caller's connection (its auto-commit mode and session
     * options are left as they are; nothing is committed). A message with a group goes on its group's
     * dialog, whose row stays locked until the caller's transaction ends, so other senders of that group
     * wait until then; a message without one goes on a dialog of its own with the end-of-stream message
     * (one BEGIN DIALOG per message: slower than a pooled send). If this throws, the caller must roll
     * back. A connection in auto-commit mode has no transaction to join: the message is then sent as by
     * {@link #enqueue(QueueName, Message)}.
     */
    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return sender.sendInTransaction(connection, queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        boolean[] duplicate = new boolean[1];
        long id = sender.send(queue, List.of(message), duplicate).get(0);
        return new EnqueueResult(id, duplicate[0]);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        boolean[] duplicate = new boolean[1];
        long id = sender.sendInTransaction(connection, queue, message, duplicate);
        return new EnqueueResult(id, duplicate[0]);
    }

    // ---- consumer and acknowledger ------------------------------------------------------------------

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        if (request.mode() != ClaimMode.TRANSACTIONAL) {
            throw new InvalidInputException("consume.mode", "backend '" + NAME + "' offers only the transactional claim mode");
        }
        return receiver.consume(queue, request);
    }

    @Override
    public void ack(Receipt receipt) {
        receiver.claim(receipt).settle(receipt.messageId(), BrokerClaim.State.ACKED, null);
    }

    /** As {@link #ack(Receipt)}; the detail goes to the history row when the queue keeps history. */
    @Override
    public void ack(Receipt receipt, String detail) {
        receiver.claim(receipt).settle(receipt.messageId(), BrokerClaim.State.ACKED, detail);
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        Set<Receipt> lost = new HashSet<>();
        for (Receipt r : receipts) {
            try {
                ack(r);
            } catch (LeaseLostException e) {
                lost.add(r);
            }
        }
        return lost;
    }

    /** @throws UnsupportedCapabilityException for a delay other than zero */
    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        if (!delay.isZero()) {
            throw new UnsupportedCapabilityException(Capability.NACK_DELAY, NAME);
        }
        receiver.claim(receipt).settle(receipt.messageId(), BrokerClaim.State.NACKED, error);
    }

    @Override
    public void extend(Receipt receipt, Duration lease) {
        throw new UnsupportedCapabilityException(Capability.LEASE_EXTENSION, NAME);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        receiver.claim(receipt).settle(receipt.messageId(), BrokerClaim.State.DEAD, reason);
    }

    @Override
    public void release(Receipt receipt) {
        receiver.claim(receipt).settle(receipt.messageId(), BrokerClaim.State.RELEASED, null);
    }

    // ---- admin ----------------------------------------------------------------------------------------

    private interface Job<T> {
        T run(Connection c) throws SQLException;
    }

    private <T> T withConnection(String what, Job<T> job) {
        try (Connection c = ds.getConnection()) {
            return job.run(c);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, what);
        }
    }

    @Override
    public void migrate() {
        withConnection("provisioning", c -> {
            provisioner.migrate(c);
            return null;
        });
    }

    @Override
    public void createQueue(QueueName queue) {
        withConnection("creating queue '" + queue + "'", c -> {
            provisioner.createQueue(c, queue);
            return null;
        });
    }

    @Override
    public void dropQueue(QueueName queue) {
        withConnection("dropping queue '" + queue + "'", c -> {
            provisioner.dropQueue(c, queue);
            Sql.update(c, sql.admin().purgeKeys(), queue.value());
            return null;
        });
        pools.remove(queue);
    }

    /**
     * Receives every message without waiting and returns the data messages removed. One RECEIVE returns
     * one conversation group ("RECEIVE (Transact-SQL)", Remarks), so it receives until a RECEIVE comes
     * back empty, committing every {@link #PURGE_RECEIVES_PER_TRANSACTION} RECEIVEs; the attempt counts
     * of exactly the purged messages are cleared. Not purged: messages of conversation groups an open
     * claim holds (RECEIVE skips locked groups) and messages still in {@code sys.transmission_queue},
     * which arrive after the purge.
     */
    @Override
    public long purge(QueueName queue) {
        return withConnection("purging queue '" + queue + "'", c -> {
            boolean auto = c.getAutoCommit();
            long n = 0;
            try {
                boolean drained = false;
                while (!drained) {
                    Sql.begin(c); // RECEIVE opens no implicit transaction (L1)
                    for (int k = 0; k < PURGE_RECEIVES_PER_TRANSACTION; k++) {
                        List<Object[]> rows = Sql.query(c, sql.admin().receiveForPurge(queue), PURGE_BATCH);
                        if (rows.isEmpty()) {
                            drained = true;
                            break;
                        }
                        Set<String> ended = new HashSet<>();
                        for (Object[] r : rows) {
                            String type = String.valueOf(r[1]);
                            if (type.equals(sql.names().messageType(queue))) {
                                n++;
                                byte[] body = (byte[]) r[2];
                                long id = Envelope.idOrZero(body);
                                if (body != null && body.length >= 9 && body[0] == Envelope.VERSION_GROUPED) {
                                    Sql.update(c, sql.claims().groupSettled(), queue.value(), id);
                                }
                                if (id != 0) {
                                    Sql.update(c, sql.claims().clearAttempts(), queue.value(), id);
                                }
                            } else if (!type.equals(BrokerStatements.DIALOG_TIMER) && ended.add(String.valueOf(r[0]))) {
                                Sql.update(c, sql.dialogs().endConversation(), String.valueOf(r[0]));
                            }
                        }
                    }
                    c.commit();
                }
                return n;
            } catch (SQLException e) {
                BrokerConnections.rollback(c, e);
                throw e;
            } finally {
                // never a plain setAutoCommit: on a connection aborted after a failed rollback it would throw
                // "The connection is closed." and hide the purge's own error (N13)
                BrokerConnections.restore(c, auto);
            }
        });
    }

    /**
     * Removes everything this backend created under its prefix: every registered queue (as
     * {@link #dropQueue}: services, queues, contract, message types, rows), then the per-prefix tables
     * and sequence. Other prefixes are untouched.
     */
    @Override
    public void dropSchema() {
        boolean tables = withConnection("checking the queue registry",
                c -> Sql.asLong(Sql.query(c, sql.provisioning().registryExists()).get(0)[0]) == 1);
        if (tables) {
            for (QueueName q : queues()) {
                dropQueue(q);
            }
        }
        withConnection("dropping the prefix's tables", c -> {
            for (String s : sql.schema().dropPrefixObjects()) {
                Sql.update(c, s);
            }
            return null;
        });
        pools.clear();
        schemaDropped = true;
    }

    @Override
    public List<QueueName> queues() {
        return withConnection("listing queues", c -> {
            List<QueueName> names = new java.util.ArrayList<>();
            for (Object[] r : Sql.query(c, sql.provisioning().listQueues())) {
                try {
                    names.add(QueueName.of(String.valueOf(r[0])));
                } catch (InvalidInputException e) {
                    // a row written by other means than this library: listing the others matters more
                    LOG.warn("the queue table holds a row that is not a queue name, left out: {}", e.getMessage());
                }
            }
            return names;
        });
    }

    /**
     * ready = data messages on the queue not held by an open claim (a NOLOCK count; system messages
     * such as end-of-stream are not counted); inFlight and delayed are 0 (received but uncommitted
     * messages are not visible in the catalog, and there is no delayed delivery); dead from the
     * dead-letter table; oldest age from message_enqueue_time; processed = history rows (0 without
     * history). {@link #statistics} also gives the queue's row count with system messages.
     */
    @Override
    public QueueStats stats(QueueName queue) {
        BrokerStatistics s = statistics(queue);
        return new QueueStats(queue, s.ready(), 0, 0, s.dead(), s.oldestMillis(), s.processed());
    }

    /**
     * The Service Broker figures of a queue: depth, dead letters, oldest age, transmission queue, conversations by state.
     *
     * @param queue the queue to read the statistics of
     * @return the Service Broker figures of a queue
     */
    public BrokerStatistics statistics(QueueName queue) {
        return withConnection("reading statistics of '" + queue + "'", c -> {
            Object[] r = Sql.query(c, sql.admin().stats(queue), queue.value(), queue.value()).get(0);
            Map<String, Long> states = new LinkedHashMap<>();
            for (Object[] row : Sql.query(c, sql.admin().conversationsByState(queue))) {
                states.put(String.valueOf(row[0]), Sql.asLong(row[1]));
            }
            List<Object[]> status = Sql.query(c, sql.admin().queueStatus(queue));
            boolean receiving = !status.isEmpty() && truthy(status.get(0)[0]);
            return new BrokerStatistics(queue, Sql.asLong(r[0]), Sql.asLong(r[1]), Sql.asLong(r[2]), Sql.asLong(r[3]), states,
                    receiving, Sql.asLong(r[4]), Sql.asLong(r[5]));
        });
    }

    private static boolean truthy(Object o) {
        return o instanceof Boolean b ? b : Sql.asLong(o) != 0;
    }

    /**
     * Fails unless the broker is enabled in the database (sys.databases.is_broker_enabled).
     *
     * @throws dev.sqlqueue.SqlQueueException naming the database and how to enable the broker
     */
    public void requireBrokerEnabled() {
        withConnection("checking that Service Broker is enabled", c -> {
            provisioner.requireBrokerEnabled(c);
            return null;
        });
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        try {
            return dead.list(queue, limit);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "listing dead letters of '" + queue + "'");
        }
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        try {
            return dead.summaries(queue, limit);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "listing dead letters of '" + queue + "'");
        }
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        try {
            return dead.summaries(queue, messageIds);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "listing dead letters of '" + queue + "'");
        }
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        try {
            return dead.requeue(queue, messageIds);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "requeueing dead letters of '" + queue + "'");
        }
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        try {
            return dead.purge(queue);
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "purging dead letters of '" + queue + "'");
        }
    }

    /** Newest first; empty unless the queue config keeps history. */
    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return withConnection("reading the history of '" + queue + "'", c -> Sql.query(c, sql.deadLetters().listHistory(), limit, queue.value())
                .stream().map(r -> new HistoryEntry(Sql.asLong(r[0]), queue, r[1] == null ? null : Instant.ofEpochMilli(Sql.asLong(r[1])),
                        Instant.ofEpochMilli(Sql.asLong(r[2])), Instant.ofEpochMilli(Sql.asLong(r[3])), Sql.asLong(r[4]),
                        (int) Sql.asLong(r[5]), String.valueOf(r[6]), r[7] == null ? null : String.valueOf(r[7])))
                .toList());
    }

    /** Rows deleted per statement (and per transaction) by {@link #pruneHistory}. */
    static final int PRUNE_BATCH = 500;

    /**
     * Age first, then rows. Each reads its cutoff once, then deletes at most {@value #PRUNE_BATCH} rows per
     * statement, each statement its own transaction (auto-commit), until a batch deletes fewer: a prune runs
     * beside consumers that insert history rows in their claims' transactions, and one large DELETE could
     * escalate to a table lock that blocks them past their lease (re-review N3).
     */
    @Override
    public long pruneHistory(QueueName queue, HistoryRetention retention) {
        return withConnection("pruning the history of '" + queue + "'", c -> {
            boolean auto = c.getAutoCommit();
            if (!auto) {
                c.setAutoCommit(true);
            }
            try {
                long n = 0;
                if (retention.maxAge() != null) {
                    int seconds = (int) Math.min(Integer.MAX_VALUE, retention.maxAge().getSeconds());
                    long cutoff = Sql.asLong(Sql.query(c, sql.deadLetters().historyAgeCutoff(), -seconds,
                            -(retention.maxAge().getNano() / 1_000_000)).get(0)[0]);
                    n += pruneInBatches(c, sql.deadLetters().pruneHistoryBefore(), queue, cutoff);
                }
                if (retention.maxRows() != null) {
                    Long keepFrom;
                    if (retention.maxRows() == 0) {
                        keepFrom = Long.MAX_VALUE;
                    } else {
                        List<Object[]> r = Sql.query(c, sql.deadLetters().historyRowsCutoff(), (int) Math.min(Integer.MAX_VALUE, retention.maxRows()),
                                queue.value());
                        keepFrom = r.isEmpty() || r.get(0)[0] == null ? null : Sql.asLong(r.get(0)[0]);
                    }
                    if (keepFrom != null) {
                        n += pruneInBatches(c, sql.deadLetters().pruneHistoryRowsBelow(), queue, keepFrom);
                    }
                }
                return n;
            } finally {
                BrokerConnections.restore(c, auto);
            }
        });
    }

    private static long pruneInBatches(Connection c, String statement, QueueName queue, long cutoff) throws SQLException {
        long total = 0;
        while (true) {
            int deleted = Sql.update(c, statement, PRUNE_BATCH, queue.value(), cutoff);
            total += Math.max(0, deleted);
            if (deleted < PRUNE_BATCH) {
                return total;
            }
        }
    }

    /** Rolls back open claims, gives this process's pooled dialogs back to the table, closes its own pool. */
    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        receiver.abandonAll();
        // only a pool that owned a dialog has rows to give back: after a failed open there is none, and the
        // tables may not even exist (a close after a failed open warned about a missing dialogs table)
        if (!schemaDropped && pools.values().stream().anyMatch(DialogPool::everOwned)) {
            try (Connection c = ds.getConnection()) {
                DialogPool.releaseOwned(c, sql, owner);
            } catch (SQLException e) {
                LOG.warn("could not give pooled dialogs back to the table: {}", e.toString());
            }
        }
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception e) {
                LOG.warn("closing the connection pool failed: {}", e.toString());
            }
        }
    }
}
