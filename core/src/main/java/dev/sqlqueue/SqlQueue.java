package dev.sqlqueue;

import dev.sqlqueue.internal.WakeupHub;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The entry point: opens the backend a {@link QueueConfig} selects and validates every call before it
 * reaches the database, so bad input never changes the store. Adds long polling with back-off and an
 * in-process wake-up on enqueue for backends that cannot wait on the server.
 *
 * <pre>{@code
 * try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl("jdbc:h2:./.sqlqueue/db"))) {
 *     QueueName jobs = QueueName.of("jobs");
 *     q.createQueue(jobs);
 *     q.enqueue(jobs, Message.ofText("hello"));
 *     for (Delivery d : q.consume(jobs, ConsumeRequest.of(10))) {
 *         q.ack(d.receipt());
 *     }
 * }
 * }</pre>
 *
 * <p>An H2 file URL of any form is made durable by the {@code h2} provider ({@code WRITE_DELAY=0}: an
 * enqueue or ack that returned survives a crash of the process); a URL or database that delays commits is
 * refused (docs/backends/h2.md, "Durability").
 *
 * <p>Thread-safe: share one instance per database and table prefix.
 */
public final class SqlQueue implements QueueClient {
    private static final long MIN_POLL_MILLIS = 5;

    private final QueueBackend backend;
    private final Capabilities caps;
    private final WakeupHub hub = new WakeupHub();
    private final long maxPollMillis;
    private final java.util.OptionalInt ownPoolSize;
    /**
     * Per consumer thread, the queues whose last wait ended empty: when its last claim ran (nanoTime) and the wake-up
     * generation it had seen, so that the thread's next call claims no sooner than one idle poll after it.
     */
    private final ThreadLocal<java.util.Map<QueueName, IdleSince>> idleQueues = ThreadLocal.withInitial(java.util.HashMap::new);

    private record IdleSince(long claimedAtNanos, long generation) {
    }

    private SqlQueue(QueueBackend backend, QueueConfig config) {
        this.backend = backend;
        this.caps = backend.capabilities();
        this.maxPollMillis = config.idlePollMax().toMillis();
        this.ownPoolSize = config.dataSource() == null ? java.util.OptionalInt.of(config.poolSize()) : java.util.OptionalInt.empty();
        backend.onWakeup(hub::signal);
    }

    /**
     * Open the backend the config selects (by name, else by URL), migrating the schema when
     * {@link QueueConfig#migrate()} is set.
     *
     * @param config what to open
     * @return the open queue client; close it to release its pool and threads
     * @throws InvalidInputException if no backend matches (rule {@code backend.unknown} or {@code backend.url}), or
     *     the JDBC driver the URL needs is not on the class path (rule {@code backend.driver}, naming the Maven
     *     coordinates to add)
     * @throws TransientBackendException if the database cannot be reached
     */
    public static SqlQueue open(QueueConfig config) {
        Objects.requireNonNull(config, "config");
        BackendProvider provider = BackendDiscovery.find(config);
        if (config.dataSource() == null && config.url() != null) {
            provider.driver(config.url()).ifPresent(d -> d.require(null, provider.name()));
        }
        return new SqlQueue(provider.open(config), config);
    }

    /**
     * The DDL the selected backend would run to create {@code queue}, without connecting; empty when the
     * backend creates its schema itself (Flyway migrations).
     *
     * @param config selects the backend and gives its table prefix and options
     * @param queue the queue to create
     * @return the statements, in order; empty for backends that migrate their schema themselves
     * @throws InvalidInputException if no backend matches the config
     */
    public static List<String> ddl(QueueConfig config, QueueName queue) {
        Objects.requireNonNull(queue, "queue");
        return BackendDiscovery.find(config).ddl(config, queue);
    }

    /**
     * Wrap a backend built by hand (tests, or an application wiring its own).
     *
     * @param backend an open backend; the client owns it and closes it on {@link #close()}
     * @param config the config the backend was opened with
     * @return the client
     */
    public static SqlQueue wrap(QueueBackend backend, QueueConfig config) {
        return new SqlQueue(backend, config);
    }

    /**
     * {@link QueueConfig#poolSize()} when the backend opened its own pool (every backend does so unless
     * the config brings a {@code DataSource}); empty for a caller's {@code DataSource}, whose size this
     * library cannot know.
     */
    @Override
    public java.util.OptionalInt ownPoolSize() {
        return ownPoolSize;
    }

    /** {@link #ownPoolSize()}, else what the backend reads of the caller's {@code DataSource}. */
    @Override
    public java.util.OptionalInt poolSize() {
        return ownPoolSize.isPresent() ? ownPoolSize : backend.poolSize();
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    /**
     * The server as it reports itself, for example "PostgreSQL 15.19".
     *
     * @return the product name and version the driver reports
     */
    public String serverVersion() {
        return backend.serverVersion();
    }

    // ---- validation -------------------------------------------------------------------------

    private void check(Message m) {
        if (m == null) {
            throw new InvalidInputException("payload.null", "message must not be null");
        }
        if (m.payloadLength() > caps.maxPayloadBytes()) {
            throw new InvalidInputException("payload.max-size", "payload is " + m.payloadLength()
                    + " bytes; backend '" + caps.backend() + "' accepts at most " + caps.maxPayloadBytes() + " bytes");
        }
        if (!m.delay().isZero() && !caps.has(Capability.DELAYED_DELIVERY)) {
            throw new UnsupportedCapabilityException(Capability.DELAYED_DELIVERY, caps.backend());
        }
        if (m.priority() != 0 && !caps.has(Capability.PRIORITY)) {
            throw new UnsupportedCapabilityException(Capability.PRIORITY, caps.backend());
        }
        if (m.group() != null && !caps.has(Capability.MESSAGE_GROUPS)) {
            throw new UnsupportedCapabilityException(Capability.MESSAGE_GROUPS, caps.backend());
        }
        if (m.deduplicationKey() != null && !caps.has(Capability.DEDUPLICATION)) {
            throw new UnsupportedCapabilityException(Capability.DEDUPLICATION, caps.backend());
        }
    }

    private static QueueName q(QueueName queue) {
        if (queue == null) {
            throw new InvalidInputException("queue-name.empty", "queue name must not be null");
        }
        return queue;
    }

    private static Receipt r(Receipt receipt) {
        if (receipt == null) {
            throw new InvalidInputException("receipt.null", "receipt must not be null");
        }
        return receipt;
    }

    /**
     * A diagnostic text (ack detail, nack error, dead-letter reason) as stored: U+0000 and lone surrogates,
     * which text columns cannot hold unchanged, become U+FFFD, so a settle never fails on its diagnostics.
     */
    private static String text(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            boolean bad = c == 0 || (!pair && Character.isSurrogate(c));
            if (bad && b == null) {
                b = new StringBuilder(s.length()).append(s, 0, i);
            }
            if (b != null) {
                b.append(bad ? '\uFFFD' : c);
                if (pair) {
                    b.append(s.charAt(i + 1));
                }
            }
            if (pair) {
                i++;
            }
        }
        return b == null ? s : b.toString();
    }

    // ---- producer ----------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        check(message);
        if (message.deduplicationKey() != null) {
            return enqueueDeduplicated(queue, message).id();
        }
        long id = backend.enqueue(q(queue), message);
        hub.signal(queue);
        return id;
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        check(message);
        if (message.deduplicationKey() == null) {
            return new EnqueueResult(enqueue(queue, message), false);
        }
        EnqueueResult r = backend.enqueueDeduplicated(q(queue), message);
        if (!r.duplicate()) {
            hub.signal(queue);
        }
        return r;
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        if (!caps.has(Capability.TRANSACTIONAL_ENQUEUE)) {
            throw new UnsupportedCapabilityException(Capability.TRANSACTIONAL_ENQUEUE, caps.backend());
        }
        Objects.requireNonNull(connection, "connection");
        check(message);
        if (message.deduplicationKey() == null) {
            return new EnqueueResult(backend.enqueue(connection, q(queue), message), false);
        }
        return backend.enqueueDeduplicated(connection, q(queue), message);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        if (checkBatch(queue, messages)) {
            return List.of();
        }
        List<Long> ids = backend.enqueueAll(queue, messages);
        hub.signal(queue);
        return ids;
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        if (checkBatch(queue, messages)) {
            return List.of();
        }
        List<EnqueueResult> results = backend.enqueueAllDeduplicated(queue, messages);
        if (results.stream().anyMatch(r -> !r.duplicate())) {
            hub.signal(queue);
        }
        return results;
    }

    /** Checks a batch and each message; returns true when it is empty. */
    private boolean checkBatch(QueueName queue, List<Message> messages) {
        q(queue);
        if (messages == null) {
            throw new InvalidInputException("batch.null", "message list must not be null");
        }
        messages.forEach(this::check);
        return messages.isEmpty();
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        if (!caps.has(Capability.TRANSACTIONAL_ENQUEUE)) {
            throw new UnsupportedCapabilityException(Capability.TRANSACTIONAL_ENQUEUE, caps.backend());
        }
        Objects.requireNonNull(connection, "connection");
        check(message);
        if (message.deduplicationKey() != null) {
            return backend.enqueueDeduplicated(connection, q(queue), message).id();
        }
        return backend.enqueue(connection, q(queue), message);
    }

    // ---- consumer ----------------------------------------------------------------------------

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        checkConsume(queue, request);
        return consumeChecked(queue, request);
    }

    private void checkConsume(QueueName queue, ConsumeRequest request) {
        q(queue);
        if (request == null) {
            throw new InvalidInputException("consume.null", "the consume request must not be null");
        }
        if (!caps.supports(request.mode())) {
            throw new InvalidInputException("consume.mode", "backend '" + caps.backend() + "' has no "
                    + request.mode().name().toLowerCase() + " claim mode; it offers " + caps.claimModes());
        }
        if (request.maxMessages() > caps.maxClaimBatch()) {
            throw new InvalidInputException("consume.max-messages", "a claim may take at most "
                    + caps.maxClaimBatch() + " messages on backend '" + caps.backend() + "', asked " + request.maxMessages());
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Input is checked before anything reaches the database: the receipts as {@link #ackAll} checks them,
     * each naming {@code queue} and lease mode, and the request as {@link #consume} checks it.
     */
    @Override
    public AckedAndClaimed ackAllAndConsume(Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        checkConsume(queue, request);
        checkReceipts(receipts);
        for (Receipt r : receipts) {
            if (!r.queue().equals(queue)) {
                throw new InvalidInputException("receipt.queue", "every receipt of ackAllAndConsume must name the queue it"
                        + " claims from ('" + queue.value() + "'); receipt of message " + r.messageId() + " names '"
                        + r.queue().value() + "'");
            }
            if (r.mode() != ClaimMode.LEASE) {
                throw new InvalidInputException("receipt.mode", "ackAllAndConsume settles lease-mode receipts; receipt of"
                        + " message " + r.messageId() + " is of a " + r.mode().name().toLowerCase() + " claim");
            }
        }
        if (request.mode() != ClaimMode.LEASE) {
            throw new InvalidInputException("consume.mode", "ackAllAndConsume claims in lease mode, as the receipts it"
                    + " settles are; the request asks for a " + request.mode().name().toLowerCase() + " claim: use ackAll,"
                    + " then consume");
        }
        return backend.ackAllAndConsume(receipts, queue, request.withWait(Duration.ZERO));
    }

    private List<Delivery> consumeChecked(QueueName queue, ConsumeRequest request) {
        if (backend.waitsInConsume() || request.maxWait().isZero()) {
            return backend.consume(queue, request);
        }
        ConsumeRequest once = request.withWait(Duration.ZERO);
        long deadline = System.nanoTime() + request.maxWait().toNanos();
        // a thread whose last wait on this queue ended empty polls at the idle interval, counted from that wait's
        // last claim, so the idle statement budget is one claim per idlePollMax per consumer thread however the
        // waits are cut into calls (a call that began with a claim at once made two per interval: issue 32)
        IdleSince idle = idleQueues.get().get(queue);
        long pause = idle != null ? maxPollMillis : MIN_POLL_MILLIS;
        if (idle != null) {
            long sinceMillis = (System.nanoTime() - idle.claimedAtNanos()) / 1_000_000;
            long untilPoll = maxPollMillis - sinceMillis;
            long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
            if (untilPoll > 0) {
                try {
                    boolean woken = hub.await(queue, idle.generation(), Math.min(untilPoll, remainingMillis));
                    if (!woken && untilPoll > remainingMillis) {
                        return List.of(); // the next poll is due after this call's wait: the next call makes it
                    }
                    if (woken) {
                        pause = MIN_POLL_MILLIS;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return List.of();
                }
            }
        }
        while (true) {
            long seen = hub.generation(queue);
            List<Delivery> got = backend.consume(queue, once);
            long claimedAt = System.nanoTime();
            long remainingMillis = (deadline - claimedAt) / 1_000_000;
            if (!got.isEmpty()) {
                idleQueues.get().remove(queue);
                return got;
            }
            if (remainingMillis <= 0) {
                idleQueues.get().put(queue, new IdleSince(claimedAt, seen));
                return got;
            }
            try {
                boolean woken = hub.await(queue, seen, Math.min(pause, remainingMillis));
                pause = woken ? MIN_POLL_MILLIS : Math.min(pause * 2, maxPollMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return List.of();
            }
        }
    }

    /**
     * Wake consumers of this JVM waiting on the queue (called after an enqueue by other means).
     *
     * @param queue the queue that has a new message
     */
    public void wakeUp(QueueName queue) {
        hub.signal(q(queue));
    }

    // ---- acknowledger ------------------------------------------------------------------------

    private static void checkReceipts(Collection<Receipt> receipts) {
        if (receipts == null) {
            throw new InvalidInputException("receipt.null", "receipts must not be null");
        }
        receipts.forEach(SqlQueue::r);
        if (new java.util.HashSet<>(receipts).size() != receipts.size()) {
            throw new InvalidInputException("receipt.duplicate", "the receipts of one ackAll must be distinct: a receipt"
                    + " given twice would be acked once and also reported lost");
        }
    }

    @Override
    public void ack(Receipt receipt) {
        backend.ack(r(receipt));
    }

    @Override
    public void ack(Receipt receipt, String detail) {
        backend.ack(r(receipt), text(detail));
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        checkReceipts(receipts);
        return receipts.isEmpty() ? Set.of() : backend.ackAll(receipts);
    }

    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        Message.checkDelay("nack delay", delay);
        if (!delay.isZero() && !caps.has(Capability.NACK_DELAY)) {
            throw new UnsupportedCapabilityException(Capability.NACK_DELAY, caps.backend());
        }
        backend.nack(r(receipt), delay, text(error));
        if (delay.isZero()) {
            hub.signal(receipt.queue());
        }
    }

    @Override
    public void extend(Receipt receipt, Duration lease) {
        if (!caps.has(Capability.LEASE_EXTENSION)) {
            throw new UnsupportedCapabilityException(Capability.LEASE_EXTENSION, caps.backend());
        }
        ConsumeRequest.checkLease(lease);
        backend.extend(r(receipt), lease);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        backend.deadLetter(r(receipt), text(reason));
    }

    @Override
    public void release(Receipt receipt) {
        backend.release(r(receipt));
        hub.signal(receipt.queue());
    }

    // ---- admin -------------------------------------------------------------------------------

    @Override
    public void migrate() {
        backend.migrate();
    }

    @Override
    public void createQueue(QueueName queue) {
        backend.createQueue(q(queue));
    }

    @Override
    public void dropQueue(QueueName queue) {
        backend.dropQueue(q(queue));
    }

    @Override
    public long purge(QueueName queue) {
        return backend.purge(q(queue));
    }

    @Override
    public List<QueueName> queues() {
        return backend.queues();
    }

    /**
     * {@inheritDoc}
     *
     * @throws InvalidInputException with rule {@code queue.exists} when the queue was never created nor enqueued to
     *     (or was dropped): a misspelt name is not answered with zeros. Checked only when the counts are all zero,
     *     so a busy queue costs no extra statement.
     */
    @Override
    public QueueStats stats(QueueName queue) {
        QueueStats s = backend.stats(q(queue));
        if (s.depth() == 0 && s.dead() == 0 && s.processed() == 0) {
            List<QueueName> all = backend.queues();
            if (!all.contains(queue)) {
                throw new InvalidInputException("queue.exists", "no queue '" + queue + "' ("
                        + (all.isEmpty() ? "there are no queues" : "queues: "
                        + all.stream().map(QueueName::value).collect(java.util.stream.Collectors.joining(", "))) + ")");
            }
        }
        return s;
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return backend.deadLetters(q(queue), limit(limit));
    }

    @Override
    public List<DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return backend.deadLetterSummaries(q(queue), limit(limit));
    }

    /** The most ids {@link #deadLetterSummaries(QueueName, List)} takes. */
    public static final int MAX_DEAD_LETTER_IDS = 10_000;

    @Override
    public List<DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        if (messageIds == null || messageIds.stream().anyMatch(java.util.Objects::isNull) || messageIds.size() > MAX_DEAD_LETTER_IDS) {
            throw new InvalidInputException("dlq.ids", "message ids must be a list of at most " + MAX_DEAD_LETTER_IDS
                    + " ids without null, was " + (messageIds == null ? "null" : messageIds.size() > MAX_DEAD_LETTER_IDS
                    ? messageIds.size() + " ids" : "a list holding null"));
        }
        if (messageIds.isEmpty()) {
            return List.of();
        }
        return backend.deadLetterSummaries(q(queue), List.copyOf(new java.util.LinkedHashSet<>(messageIds)));
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        if (messageIds == null || messageIds.stream().anyMatch(java.util.Objects::isNull)) {
            // a null list is no "all": only an empty list means every dead letter of the queue
            throw new InvalidInputException("dlq.ids", "message ids must be a list without null (empty: all dead letters"
                    + " of the queue), was " + (messageIds == null ? "null" : "a list holding null"));
        }
        return backend.requeueDeadLetters(q(queue), List.copyOf(messageIds));
    }

    @Override
    public long deleteDeadLetters(QueueName queue, List<Long> messageIds) {
        if (messageIds == null || messageIds.isEmpty() || messageIds.size() > MAX_DEAD_LETTER_IDS
                || messageIds.stream().anyMatch(java.util.Objects::isNull)) {
            throw new InvalidInputException("dlq.ids", "message ids to delete must be 1.." + MAX_DEAD_LETTER_IDS
                    + " ids without null (to delete all, purgeDeadLetters), was " + (messageIds == null ? "null"
                    : messageIds.isEmpty() ? "empty" : messageIds.size() > MAX_DEAD_LETTER_IDS ? messageIds.size() + " ids"
                    : "a list holding null"));
        }
        return backend.deleteDeadLetters(q(queue), List.copyOf(new java.util.TreeSet<>(messageIds)));
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        return backend.purgeDeadLetters(q(queue));
    }

    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return backend.history(q(queue), limit(limit));
    }

    @Override
    public long pruneHistory(QueueName queue, HistoryRetention retention) {
        if (retention == null) {
            throw new InvalidInputException("history-retention.empty", "a history retention must be given");
        }
        if (!capabilities().has(Capability.HISTORY)) {
            throw new UnsupportedCapabilityException(Capability.HISTORY, capabilities().backend());
        }
        try {
            return backend.pruneHistory(q(queue), retention);
        } catch (UnsupportedCapabilityException e) {
            throw new UnsupportedCapabilityException(Capability.HISTORY, capabilities().backend(), "history pruning");
        }
    }

    @Override
    public List<HistoryBucket> historyBuckets(QueueName queue, java.time.Instant from, Duration bucket) {
        QueueName q = q(queue);
        if (from == null || bucket == null || bucket.compareTo(Duration.ofSeconds(1)) < 0 || bucket.compareTo(Duration.ofDays(1)) > 0
                || from.isBefore(java.time.Instant.now().minus(Duration.ofDays(400)))) {
            throw new InvalidInputException("history-buckets.range", "buckets are 1 s..1 day wide and start within the last"
                    + " 400 days, were " + bucket + " from " + from);
        }
        if (!caps.has(Capability.HISTORY)) {
            throw new UnsupportedCapabilityException(Capability.HISTORY, caps.backend());
        }
        return backend.historyBuckets(q, from, bucket);
    }

    @Override
    public List<HeldForMove> claimForMove(QueueName queue, int maxMessages, Duration lease) {
        q(queue);
        if (maxMessages < 1 || maxMessages > MAX_MOVE_CLAIM) {
            throw new InvalidInputException("move.max-messages", "a move claim takes 1.." + MAX_MOVE_CLAIM
                    + " messages, asked " + maxMessages);
        }
        ConsumeRequest.checkLease(lease);
        if (!caps.has(Capability.MOVE_CLAIM)) {
            throw new UnsupportedCapabilityException(Capability.MOVE_CLAIM, caps.backend());
        }
        return backend.claimForMove(queue, maxMessages, lease);
    }

    @Override
    public List<EnqueueResult> enqueueMoved(QueueName queue, List<MovedMessage> messages) {
        q(queue);
        if (messages == null || messages.isEmpty() || messages.size() > MAX_MOVE_CLAIM) {
            throw new InvalidInputException("move.max-messages", "a moved batch holds 1.." + MAX_MOVE_CLAIM
                    + " messages, was " + (messages == null ? "null" : messages.size()));
        }
        for (MovedMessage m : messages) {
            if (m == null) {
                throw new InvalidInputException("move.message", "a moved message must not be null");
            }
            check(m.message());
        }
        if (!caps.has(Capability.MOVE_ENQUEUE)) {
            throw new UnsupportedCapabilityException(Capability.MOVE_ENQUEUE, caps.backend());
        }
        List<EnqueueResult> results = backend.enqueueMoved(queue, messages);
        for (int i = 0; i < results.size(); i++) {
            if (!results.get(i).duplicate() && !messages.get(i).deadLetter()) {
                hub.signal(queue);
                break;
            }
        }
        return results;
    }

    @Override
    public List<DeduplicationKey> deduplicationKeys(QueueName queue, String afterKey, int limit) {
        q(queue);
        if (limit < 1 || limit > MAX_MOVE_CLAIM) {
            throw new InvalidInputException("limit.range", "limit must be 1.." + MAX_MOVE_CLAIM + ", was " + limit);
        }
        if (!caps.has(Capability.MOVE_KEYS)) {
            throw new UnsupportedCapabilityException(Capability.MOVE_KEYS, caps.backend());
        }
        return backend.deduplicationKeys(queue, afterKey, limit);
    }

    @Override
    public int enqueueMovedKeys(QueueName queue, List<DeduplicationKey> keys, String messageKeyPrefix) {
        q(queue);
        if (keys == null || keys.isEmpty() || keys.size() > MAX_MOVE_CLAIM || keys.stream().anyMatch(Objects::isNull)) {
            throw new InvalidInputException("move.max-messages", "moved keys are 1.." + MAX_MOVE_CLAIM
                    + " keys without null, were " + (keys == null ? "null" : keys.size() + " entries"));
        }
        if (!caps.has(Capability.MOVE_KEYS)) {
            throw new UnsupportedCapabilityException(Capability.MOVE_KEYS, caps.backend());
        }
        return backend.enqueueMovedKeys(queue, keys, messageKeyPrefix);
    }

    @Override
    public List<HistoryRow> historyForMove(QueueName queue, int limit) {
        q(queue);
        if (limit < 1 || limit > MAX_MOVE_CLAIM) {
            throw new InvalidInputException("limit.range", "limit must be 1.." + MAX_MOVE_CLAIM + ", was " + limit);
        }
        requireMoveHistory();
        return backend.historyForMove(queue, limit);
    }

    @Override
    public int enqueueMovedHistory(QueueName queue, List<HistoryEntry> rows) {
        q(queue);
        if (rows == null || rows.isEmpty() || rows.size() > MAX_MOVE_CLAIM || rows.stream().anyMatch(Objects::isNull)) {
            throw new InvalidInputException("move.max-messages", "moved history rows are 1.." + MAX_MOVE_CLAIM
                    + " rows without null, were " + (rows == null ? "null" : rows.size() + " entries"));
        }
        requireMoveHistory();
        return backend.enqueueMovedHistory(queue, List.copyOf(rows));
    }

    @Override
    public long deleteHistory(QueueName queue, List<Long> historyIds) {
        q(queue);
        if (historyIds == null || historyIds.isEmpty() || historyIds.size() > MAX_MOVE_CLAIM
                || historyIds.stream().anyMatch(Objects::isNull)) {
            throw new InvalidInputException("move.max-messages", "history ids to delete are 1.." + MAX_MOVE_CLAIM
                    + " ids without null, were " + (historyIds == null ? "null" : historyIds.size() + " entries"));
        }
        requireMoveHistory();
        return backend.deleteHistory(queue, List.copyOf(new java.util.TreeSet<>(historyIds)));
    }

    private void requireMoveHistory() {
        if (!caps.has(Capability.MOVE_HISTORY)) {
            throw new UnsupportedCapabilityException(Capability.MOVE_HISTORY, caps.backend());
        }
    }

    @Override
    public List<OpenTransaction> oldestTransactions(int limit) {
        if (limit < 1 || limit > MAX_OPEN_TRANSACTIONS) {
            throw new InvalidInputException("limit.range", "limit must be 1.." + MAX_OPEN_TRANSACTIONS + ", was " + limit);
        }
        if (!caps.has(Capability.OLDEST_TRANSACTIONS)) {
            throw new UnsupportedCapabilityException(Capability.OLDEST_TRANSACTIONS, caps.backend());
        }
        return backend.oldestTransactions(limit);
    }

    @Override
    public List<MessageSummary> messages(QueueName queue, MessageState state, long afterId, int limit) {
        QueueName q = q(queue);
        if (limit < 1 || limit > MAX_MESSAGE_PAGE) {
            throw new InvalidInputException("limit.range", "limit must be 1.." + MAX_MESSAGE_PAGE + ", was " + limit);
        }
        if (afterId < 0) {
            throw new InvalidInputException("messages.after", "afterId must be 0 or more (0: the first page), was " + afterId);
        }
        if (state == null) {
            throw new InvalidInputException("messages.state", "a message state must be given: READY, DELAYED or IN_FLIGHT");
        }
        if (!caps.has(Capability.BROWSE)) {
            throw new UnsupportedCapabilityException(Capability.BROWSE, caps.backend());
        }
        return backend.messages(q, state, afterId, limit);
    }

    @Override
    public java.util.Optional<MessageSummary> message(QueueName queue, long messageId) {
        QueueName q = q(queue);
        if (!caps.has(Capability.BROWSE)) {
            throw new UnsupportedCapabilityException(Capability.BROWSE, caps.backend());
        }
        return backend.message(q, messageId);
    }

    @Override
    public boolean pause(QueueName queue) {
        return backend.pause(pausable(queue));
    }

    @Override
    public boolean resume(QueueName queue) {
        return backend.resume(pausable(queue));
    }

    @Override
    public boolean isPaused(QueueName queue) {
        QueueName q = q(queue);
        if (!caps.has(Capability.PAUSE)) {
            throw new UnsupportedCapabilityException(Capability.PAUSE, caps.backend());
        }
        return backend.isPaused(q); // one query: false for a queue that does not exist
    }

    /** The rule named when a pause, resume or pause check names a queue that does not exist. */
    public static final String QUEUE_EXISTS_RULE = "queue.exists";

    private QueueName pausable(QueueName queue) {
        QueueName q = q(queue);
        if (!caps.has(Capability.PAUSE)) {
            throw new UnsupportedCapabilityException(Capability.PAUSE, caps.backend());
        }
        List<QueueName> known = backend.queues();
        if (!known.contains(q)) {
            throw new InvalidInputException(QUEUE_EXISTS_RULE, "no queue '" + q.value() + "' (create it first; queues: "
                    + (known.isEmpty() ? "none" : known.stream().map(QueueName::value).collect(java.util.stream.Collectors.joining(", ")))
                    + ")");
        }
        return q;
    }

    private static int limit(int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new InvalidInputException("limit.range", "limit must be 1..100000, was " + limit);
        }
        return limit;
    }

    @Override
    public void dropSchema() {
        backend.dropSchema();
    }

    @Override
    public void close() {
        backend.close();
    }
}
