package dev.sqlqueue.micrometer;

import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_BACKEND;
import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_OUTCOME;
import static dev.sqlqueue.micrometer.SqlQueueMeters.TAG_QUEUE;

import dev.sqlqueue.AckedAndClaimed;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.LeaseLostException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.spi.ForwardingQueueBackend;
import dev.sqlqueue.spi.QueueBackend;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Counts and times the calls that reach the backend. Counters move only when the call succeeded; an
 * enqueue on the caller's connection counts when the {@link TransactionCommitHook} reports the caller's
 * commit, or, without a hook that can tell, when the insert succeeded. Remembers the enqueue time of each claimed delivery until it is settled, for the
 * enqueue-to-ack timer.
 */
final class MeteredBackend extends ForwardingQueueBackend {
    /** Deliveries never settled are forgotten after the longest lease plus an hour. */
    private static final long FORGET_AFTER_NANOS = TimeUnit.HOURS.toNanos(25);

    private final MeterRegistry registry;
    private final String backendName;
    private final Map<Receipt, Claimed> claimed = new ConcurrentHashMap<>();
    private volatile StatsSampler sampler;

    private record Claimed(Instant enqueuedAt, long claimedAtNanos) {
    }

    private final TransactionCommitHook commitHook;

    MeteredBackend(QueueBackend delegate, MeterRegistry registry, String backendName, TransactionCommitHook commitHook) {
        super(delegate);
        this.registry = registry;
        this.backendName = backendName;
        this.commitHook = commitHook;
    }

    /** Counts one enqueue made on {@code connection}: at the caller's commit when the hook can tell. */
    private void countEnqueuedOn(Connection connection, QueueName queue) {
        TransactionCommitHook hook = commitHook;
        if (hook == null || !hook.afterCommit(connection, () -> count(SqlQueueMeters.ENQUEUED, queue, 1))) {
            count(SqlQueueMeters.ENQUEUED, queue, 1);
        }
    }

    void startSampling(Duration interval, List<QueueName> queues) {
        sampler = new StatsSampler(delegate(), registry, backendName, interval, queues, this::forgetStale);
        sampler.start();
    }

    /** The counters every queue has, by name, with their descriptions (registered at 0 with its gauges). */
    static final java.util.Map<String, String> COUNTERS = java.util.Map.of(
            SqlQueueMeters.ENQUEUED, "Messages enqueued",
            SqlQueueMeters.ACKED, "Messages acked",
            SqlQueueMeters.NACKED, "Messages nacked (to be retried)",
            SqlQueueMeters.DEAD_LETTERED, "Messages moved to the dead-letter store by a consumer",
            SqlQueueMeters.RELEASED, "Messages given back unprocessed",
            SqlQueueMeters.LEASE_LOST, "Settle or extend calls refused because the lease was lost");

    private Counter counter(String name, QueueName queue) {
        return Counter.builder(name).description(COUNTERS.get(name))
                .tag(TAG_QUEUE, queue.value()).tag(TAG_BACKEND, backendName).register(registry);
    }

    private void count(String name, QueueName queue, long n) {
        if (n > 0) {
            counter(name, queue).increment(n);
        }
    }

    /** A new queue gets its gauges at once rather than at the next interval. */
    @Override
    public void createQueue(QueueName queue) {
        super.createQueue(queue);
        StatsSampler s = sampler;
        if (s != null) {
            s.sampleSoon();
        }
    }

    // ---- producer ----------------------------------------------------------------------------

    @Override
    public long enqueue(QueueName queue, Message message) {
        long id = super.enqueue(queue, message);
        count(SqlQueueMeters.ENQUEUED, queue, 1);
        return id;
    }

    @Override
    public List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        if (messages.stream().anyMatch(m -> m.deduplicationKey() != null)) {
            // only the backend knows which keyed messages were duplicates, and it says so here
            return enqueueAllDeduplicated(queue, messages).stream().map(EnqueueResult::id).toList();
        }
        List<Long> ids = super.enqueueAll(queue, messages);
        count(SqlQueueMeters.ENQUEUED, queue, ids.size());
        return ids;
    }

    @Override
    public List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        List<EnqueueResult> results = super.enqueueAllDeduplicated(queue, messages);
        count(SqlQueueMeters.ENQUEUED, queue, results.stream().filter(r -> !r.duplicate()).count());
        return results;
    }

    @Override
    public long enqueue(Connection connection, QueueName queue, Message message) {
        long id = super.enqueue(connection, queue, message);
        countEnqueuedOn(connection, queue);
        return id;
    }

    /** A duplicate enqueued nothing, so it is not counted. */
    @Override
    public EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        EnqueueResult r = super.enqueueDeduplicated(queue, message);
        if (!r.duplicate()) {
            count(SqlQueueMeters.ENQUEUED, queue, 1);
        }
        return r;
    }

    @Override
    public EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        EnqueueResult r = super.enqueueDeduplicated(connection, queue, message);
        if (!r.duplicate()) {
            countEnqueuedOn(connection, queue);
        }
        return r;
    }

    // ---- consumer ----------------------------------------------------------------------------

    @Override
    public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
        return claim(queue, () -> super.consume(queue, request));
    }

    /** The acks counted as {@link #ackAll} counts them, the claim timed and counted as {@link #consume}. */
    @Override
    public AckedAndClaimed ackAllAndConsume(Collection<Receipt> receipts, QueueName queue, ConsumeRequest request) {
        AckedAndClaimed[] result = new AckedAndClaimed[1];
        claim(queue, () -> {
            result[0] = super.ackAllAndConsume(receipts, queue, request);
            return result[0].claimed();
        });
        countAcks(receipts, result[0].lost());
        return result[0];
    }

    private List<Delivery> claim(QueueName queue, java.util.function.Supplier<List<Delivery>> call) {
        long start = System.nanoTime();
        String outcome = "error";
        try {
            List<Delivery> got = call.get();
            outcome = got.isEmpty() ? "empty" : "messages";
            long now = System.nanoTime();
            for (Delivery d : got) {
                claimed.put(d.receipt(), new Claimed(d.enqueuedAt(), now));
            }
            return got;
        } finally {
            Timer.builder(SqlQueueMeters.CLAIM_DURATION)
                    .description("Round trip of one claim statement (consume call reaching the backend)")
                    .tag(TAG_QUEUE, queue.value()).tag(TAG_BACKEND, backendName).tag(TAG_OUTCOME, outcome)
                    .register(registry).record(Duration.ofNanos(System.nanoTime() - start));
        }
    }

    // ---- acknowledger ------------------------------------------------------------------------

    private interface Call {
        void run();
    }

    /** Run a settle call; count lease-lost refusals; forget the claim unless only extended. */
    private boolean settle(Receipt receipt, Call call, boolean ends) {
        try {
            call.run();
            if (ends) {
                claimed.remove(receipt);
            }
            return true;
        } catch (LeaseLostException e) {
            claimed.remove(receipt);
            count(SqlQueueMeters.LEASE_LOST, receipt.queue(), 1);
            throw e;
        }
    }

    private void acked(Receipt receipt, Claimed c) {
        count(SqlQueueMeters.ACKED, receipt.queue(), 1);
        if (c != null) {
            Duration latency = Duration.between(c.enqueuedAt(), Instant.now());
            Timer.builder(SqlQueueMeters.ENQUEUE_TO_ACK)
                    .description("From the enqueue (database clock) to the ack (this JVM's clock)")
                    .tag(TAG_QUEUE, receipt.queue().value()).tag(TAG_BACKEND, backendName)
                    .register(registry).record(latency.isNegative() ? Duration.ZERO : latency);
        }
    }

    @Override
    public void ack(Receipt receipt) {
        Claimed c = claimed.get(receipt);
        settle(receipt, () -> super.ack(receipt), true);
        acked(receipt, c);
    }

    @Override
    public void ack(Receipt receipt, String detail) {
        Claimed c = claimed.get(receipt);
        settle(receipt, () -> super.ack(receipt, detail), true);
        acked(receipt, c);
    }

    @Override
    public Set<Receipt> ackAll(Collection<Receipt> receipts) {
        Set<Receipt> lost = super.ackAll(receipts);
        countAcks(receipts, lost);
        return lost;
    }

    private void countAcks(Collection<Receipt> receipts, Set<Receipt> lost) {
        for (Receipt r : receipts) {
            Claimed c = claimed.remove(r);
            if (lost.contains(r)) {
                count(SqlQueueMeters.LEASE_LOST, r.queue(), 1);
            } else {
                acked(r, c);
            }
        }
    }

    @Override
    public void nack(Receipt receipt, Duration delay, String error) {
        settle(receipt, () -> super.nack(receipt, delay, error), true);
        count(SqlQueueMeters.NACKED, receipt.queue(), 1);
    }

    @Override
    public void extend(Receipt receipt, Duration lease) {
        settle(receipt, () -> super.extend(receipt, lease), false);
    }

    @Override
    public void deadLetter(Receipt receipt, String reason) {
        settle(receipt, () -> super.deadLetter(receipt, reason), true);
        count(SqlQueueMeters.DEAD_LETTERED, receipt.queue(), 1);
    }

    @Override
    public void release(Receipt receipt) {
        settle(receipt, () -> super.release(receipt), true);
        count(SqlQueueMeters.RELEASED, receipt.queue(), 1);
    }

    private void forgetStale() {
        long now = System.nanoTime();
        claimed.values().removeIf(c -> now - c.claimedAtNanos() > FORGET_AFTER_NANOS);
    }

    @Override
    public void close() {
        StatsSampler s = sampler;
        if (s != null) {
            s.close();
        }
        super.close();
    }
}
