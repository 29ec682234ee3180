package dev.sqlqueue.teradata;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.HistoryEntry;
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
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The Teradata backend: one queue table per queue consumed with {@code SELECT AND CONSUME TOP 1} in
 * transactional claim mode only, plus a normal dead-letter table. See {@code docs/backends/teradata.md}.
 *
 * <p>Capabilities: claim mode {@link ClaimMode#TRANSACTIONAL}; {@link Capability#TRANSACTIONAL_ENQUEUE};
 * ordering {@link Ordering#FIFO_APPROXIMATE}; payloads up to {@value TeradataStatements#MAX_PAYLOAD_BYTES}
 * bytes; claims of up to {@value #MAX_CLAIM_BATCH} messages. No lease mode, delayed delivery, nack delay,
 * priority, message groups or history.
 *
 * <p>Thread-safe.
 */
public final class TeradataBackend implements QueueBackend {
    /** Largest claim; each message is one consume request (the manual caps a transaction at 2,210). */
    public static final int MAX_CLAIM_BATCH = 100;

    static final Capabilities CAPABILITIES = new Capabilities(TeradataProvider.NAME, EnumSet.of(ClaimMode.TRANSACTIONAL),
            EnumSet.of(Capability.TRANSACTIONAL_ENQUEUE, Capability.DROP_SCHEMA, Capability.DEDUPLICATION), Ordering.FIFO_APPROXIMATE,
            TeradataStatements.MAX_PAYLOAD_BYTES, MAX_CLAIM_BATCH).withAbsentReason(Capability.PAUSE, "SELECT AND CONSUME"
            + " takes the queue table's first row, with no predicate on another table to skip a paused queue; not built");

    private final String prefix;
    private final String database;
    private final String version;
    private final Sessions sessions;
    private final TeradataEnqueue producer;
    private final TeradataClaims claims;
    private final TeradataAdmin admin;
    private final AutoCloseable ownedPool;

    private TeradataBackend(QueueConfig config, TeradataOptions options, Sessions sessions, String database,
                            String version, AutoCloseable ownedPool) {
        this.prefix = config.tablePrefix();
        this.database = database;
        this.version = version;
        this.sessions = sessions;
        this.producer = new TeradataEnqueue(sessions, options.insertBatchRows(), config.deduplicationWindow());
        this.claims = new TeradataClaims(sessions, new WaitGate(options.maxWaitingSessions()), options.consumeCancelMillis(),
                options.batchConsumeCancelMillis());
        this.admin = new TeradataAdmin(sessions, prefix, database, options.fallback());
        this.ownedPool = ownedPool;
    }

    /**
     * Opens the backend on a pool: checks the session (ANSI mode, Unicode character set), finds the
     * database and the server version.
     *
     * @param ownedPool closed by {@link #close()}; null when the caller owns {@code dataSource}
     * @throws dev.sqlqueue.SqlQueueException if the session is not in ANSI mode or not Unicode
     * @throws dev.sqlqueue.TransientBackendException if the database cannot be reached
     */
    static TeradataBackend open(QueueConfig config, TeradataOptions options, DataSource dataSource, AutoCloseable ownedPool) {
        Sessions sessions = new Sessions(dataSource, options,
                ownedPool instanceof com.zaxxer.hikari.HikariDataSource pool ? TeradataProvider.evictor(pool) : null);
        String[] found = sessions.run("checking the Teradata session", s -> {
            Connection c = s.connection();
            SessionMode.checkSession(c);
            String db = options.database();
            String v;
            try (Statement st = c.createStatement()) {
                if (db == null) {
                    try (ResultSet rs = st.executeQuery(TeradataStatements.currentDatabase())) {
                        rs.next();
                        db = rs.getString(1).trim();
                    }
                }
                try (ResultSet rs = st.executeQuery(TeradataStatements.serverVersion())) {
                    v = rs.next() ? "Teradata " + rs.getString(1).trim() : "Teradata";
                }
            }
            c.commit();
            return new String[] {TeradataNames.checkDatabase(db), v};
        });
        return new TeradataBackend(config, options, sessions, found[0], found[1], ownedPool);
    }

    TeradataNames names(QueueName q) {
        return TeradataNames.of(prefix, database, q);
    }

    @Override
    public Capabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public String serverVersion() {
        return version;
    }

    // ---- producer ----------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        return producer.enqueueAll(names(queue), List.of(message)).get(0);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return messages.isEmpty() ? List.of() : producer.enqueueAll(names(queue), messages);
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        return messages.isEmpty() ? List.of() : producer.enqueueAllDeduplicated(names(queue), messages);
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return producer.enqueue(connection, names(queue), message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        return producer.enqueueDeduplicated(names(queue), message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        return producer.enqueueDeduplicated(connection, names(queue), message);
    }

    // ---- consumer and acknowledger -----------------------------------------------------------

    /** Ignores {@code request.maxWait()}: returns at once when the peek finds the queue empty. */
    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        if (request.mode() != ClaimMode.TRANSACTIONAL) {
            throw new InvalidInputException("consume.mode", "backend 'teradata' offers only the transactional claim mode");
        }
        if (request.maxMessages() > MAX_CLAIM_BATCH) {
            throw new InvalidInputException("consume.max-messages", "a claim may take at most " + MAX_CLAIM_BATCH
                    + " messages on backend 'teradata', asked " + request.maxMessages());
        }
        return claims.consume(names(queue), request.maxMessages(), request.lease().toMillis());
    }

    @Override
    public void ack(Receipt receipt) {
        claims.settle(receipt, Claim.Kind.ACK, null);
    }

    /** The detail is not kept: this backend has no history. */
    @Override
    public void ack(Receipt receipt, String detail) {
        claims.settle(receipt, Claim.Kind.ACK, null);
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        Set<Receipt> lost = new HashSet<>();
        for (Receipt r : receipts) {
            try {
                claims.settle(r, Claim.Kind.ACK, null);
            } catch (LeaseLostException e) {
                lost.add(r);
            }
        }
        return lost;
    }

    /** @throws UnsupportedCapabilityException for a non-zero delay (no {@link Capability#NACK_DELAY}) */
    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        if (delay != null && !delay.isZero()) {
            throw new UnsupportedCapabilityException(Capability.NACK_DELAY, TeradataProvider.NAME);
        }
        claims.settle(receipt, Claim.Kind.NACK, error);
    }

    /** @throws UnsupportedCapabilityException always: there are no leases */
    @Override
    public void extend(Receipt receipt, Duration lease) {
        throw new UnsupportedCapabilityException(Capability.LEASE_EXTENSION, TeradataProvider.NAME);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        claims.settle(receipt, Claim.Kind.DEAD_LETTER, reason);
    }

    @Override
    public void release(Receipt receipt) {
        claims.settle(receipt, Claim.Kind.RELEASE, null);
    }

    // ---- admin -------------------------------------------------------------------------------

    /** Nothing is shared between queues; checks that the database answers. */
    @Override
    public void migrate() {
        sessions.run("checking the Teradata session", s -> {
            SessionMode.checkSession(s.connection());
            s.connection().commit();
            return null;
        });
    }

    @Override
    public void createQueue(QueueName queue) {
        admin.createQueue(names(queue));
    }

    @Override
    public void dropQueue(QueueName queue) {
        admin.dropQueue(names(queue));
    }

    @Override
    public long purge(QueueName queue) {
        return admin.purge(names(queue));
    }

    @Override
    public List<QueueName> queues() {
        return admin.queues();
    }

    /**
     * ready: rows in the queue table (an ACCESS-lock read); inFlight: deliveries of this process's open
     * claims; delayed and processed: always 0; oldest age from {@code MIN(enqueued_at)} and the database clock.
     */
    @Override
    public QueueStats stats(QueueName queue) {
        long[] c = admin.counts(names(queue));
        return new QueueStats(queue, c[0], claims.inFlight(queue), 0, c[2], c[1], 0);
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return admin.deadLetters(names(queue), limit);
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        return admin.requeue(names(queue), messageIds);
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        return admin.purgeDeadLetters(names(queue));
    }

    /** Drops the tables of every queue under this backend's table prefix. */
    @Override
    public void dropSchema() {
        admin.dropAll();
    }

    /** Always empty: this backend keeps no history. */
    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return List.of();
    }

    /** Cancels running consumes, rolls back open claims, closes the pool the backend opened. */
    @Override
    public void close() {
        claims.close();
        producer.close();
        sessions.close();
        if (ownedPool != null) {
            try {
                ownedPool.close();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
    }
}
