package dev.sqlqueue.spi;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.Capabilities;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import java.sql.Connection;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A {@link QueueBackend} that forwards every call to another one: the base of decorators that observe
 * or enrich calls (metrics, tracing) without touching a dialect. Override the calls of interest and
 * call {@code super}; hand the decorated backend to {@link dev.sqlqueue.SqlQueue#wrap}, so validation,
 * long polling and wake-ups stay the core's.
 *
 * <pre>{@code
 * QueueBackend raw = BackendDiscovery.find(config).open(config);
 * SqlQueue q = SqlQueue.wrap(new ForwardingQueueBackend(raw) {
 *     public long enqueue(QueueName queue, Message m) { log(queue); return super.enqueue(queue, m); }
 * }, config);
 * }</pre>
 *
 * <p>Every method of {@link QueueBackend}, defaults included, is forwarded (a test in core checks it), so
 * a decorator keeps the delegate's capabilities, waiting behaviour and wake-ups. Thread-safe when the
 * delegate and the overriding code are.
 */
public abstract class ForwardingQueueBackend implements QueueBackend {
    private final QueueBackend delegate;

    /**
     * A backend forwarding every call to {@code delegate}.
     *
     * @param delegate the backend to forward to
     * @throws NullPointerException if {@code delegate} is null
     */
    protected ForwardingQueueBackend(QueueBackend delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * The backend calls are forwarded to.
     *
     * @return the delegate, never null
     */
    protected final QueueBackend delegate() {
        return delegate;
    }

    @Override
    public Capabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public String serverVersion() {
        return delegate.serverVersion();
    }

    @Override
    public long pruneHistory(dev.sqlqueue.QueueName queue, dev.sqlqueue.HistoryRetention retention) {
        return delegate.pruneHistory(queue, retention);
    }

    @Override
    public List<dev.sqlqueue.HeldForMove> claimForMove(QueueName queue, int maxMessages, Duration lease) {
        return delegate.claimForMove(queue, maxMessages, lease);
    }

    @Override
    public List<dev.sqlqueue.EnqueueResult> enqueueMoved(QueueName queue, List<dev.sqlqueue.MovedMessage> messages) {
        return delegate.enqueueMoved(queue, messages);
    }

    @Override
    public List<dev.sqlqueue.DeduplicationKey> deduplicationKeys(QueueName queue, String afterKey, int limit) {
        return delegate.deduplicationKeys(queue, afterKey, limit);
    }

    @Override
    public int enqueueMovedKeys(QueueName queue, List<dev.sqlqueue.DeduplicationKey> keys, String messageKeyPrefix) {
        return delegate.enqueueMovedKeys(queue, keys, messageKeyPrefix);
    }

    @Override
    public List<dev.sqlqueue.HistoryRow> historyForMove(QueueName queue, int limit) {
        return delegate.historyForMove(queue, limit);
    }

    @Override
    public int enqueueMovedHistory(QueueName queue, List<HistoryEntry> rows) {
        return delegate.enqueueMovedHistory(queue, rows);
    }

    @Override
    public long deleteHistory(QueueName queue, List<Long> historyIds) {
        return delegate.deleteHistory(queue, historyIds);
    }

    @Override
    public java.util.OptionalInt ownPoolSize() {
        return delegate.ownPoolSize();
    }

    @Override
    public java.util.OptionalInt poolSize() {
        return delegate.poolSize();
    }

    @Override
    public boolean waitsInConsume() {
        return delegate.waitsInConsume();
    }

    @Override
    public void onWakeup(Consumer<QueueName> listener) {
        delegate.onWakeup(listener);
    }

    @Override
    public long enqueue(QueueName queue, Message message) {
        return delegate.enqueue(queue, message);
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        return delegate.enqueueAll(queue, messages);
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        return delegate.enqueueAllDeduplicated(queue, messages);
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        return delegate.enqueue(connection, queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        return delegate.enqueueDeduplicated(queue, message);
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        return delegate.enqueueDeduplicated(connection, queue, message);
    }

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        return delegate.consume(queue, request);
    }

    @Override
    public void ack(Receipt receipt) {
        delegate.ack(receipt);
    }

    @Override
    public void ack(Receipt receipt, String detail) {
        delegate.ack(receipt, detail);
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        return delegate.ackAll(receipts);
    }

    @Override
    public AckedAndClaimed ackAllAndConsume(Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        return delegate.ackAllAndConsume(receipts, queue, request);
    }

    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        delegate.nack(receipt, delay, error);
    }

    @Override
    public void extend(Receipt receipt, Duration lease) {
        delegate.extend(receipt, lease);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        delegate.deadLetter(receipt, reason);
    }

    @Override
    public void release(Receipt receipt) {
        delegate.release(receipt);
    }

    @Override
    public void migrate() {
        delegate.migrate();
    }

    @Override
    public void createQueue(QueueName queue) {
        delegate.createQueue(queue);
    }

    @Override
    public void dropQueue(QueueName queue) {
        delegate.dropQueue(queue);
    }

    @Override
    public long purge(QueueName queue) {
        return delegate.purge(queue);
    }

    @Override
    public List<QueueName> queues() {
        return delegate.queues();
    }

    @Override
    public List<dev.sqlqueue.OpenTransaction> oldestTransactions(int limit) {
        return delegate.oldestTransactions(limit);
    }

    @Override
    public QueueStats stats(QueueName queue) {
        return delegate.stats(queue);
    }

    @Override
    public List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return delegate.deadLetters(queue, limit);
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return delegate.deadLetterSummaries(queue, limit);
    }

    @Override
    public List<dev.sqlqueue.DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        return delegate.deadLetterSummaries(queue, messageIds);
    }

    @Override
    public long requeueDeadLetters(QueueName queue, List<Long> messageIds) {
        return delegate.requeueDeadLetters(queue, messageIds);
    }

    @Override
    public long deleteDeadLetters(QueueName queue, List<Long> messageIds) {
        return delegate.deleteDeadLetters(queue, messageIds);
    }

    @Override
    public long purgeDeadLetters(QueueName queue) {
        return delegate.purgeDeadLetters(queue);
    }

    @Override
    public List<dev.sqlqueue.MessageSummary> messages(QueueName queue, dev.sqlqueue.MessageState state, long afterId, int limit) {
        return delegate.messages(queue, state, afterId, limit);
    }

    @Override
    public java.util.Optional<dev.sqlqueue.MessageSummary> message(QueueName queue, long messageId) {
        return delegate.message(queue, messageId);
    }

    @Override
    public List<dev.sqlqueue.HistoryBucket> historyBuckets(QueueName queue, java.time.Instant from, Duration bucket) {
        return delegate.historyBuckets(queue, from, bucket);
    }

    @Override
    public boolean pause(QueueName queue) {
        return delegate.pause(queue);
    }

    @Override
    public boolean resume(QueueName queue) {
        return delegate.resume(queue);
    }

    @Override
    public boolean isPaused(QueueName queue) {
        return delegate.isPaused(queue);
    }

    @Override
    public List<HistoryEntry> history(QueueName queue, int limit) {
        return delegate.history(queue, limit);
    }

    @Override
    public void dropSchema() {
        delegate.dropSchema();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
