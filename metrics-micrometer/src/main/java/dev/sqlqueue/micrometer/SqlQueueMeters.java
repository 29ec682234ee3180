package dev.sqlqueue.micrometer;

/**
 * The names and tags of every meter sqlqueue registers (Micrometer's dot-separated lower-case
 * convention; a Prometheus registry renders {@code sqlqueue.messages.enqueued} as
 * {@code sqlqueue_messages_enqueued_total}). docs/observability.md describes each one.
 */
public final class SqlQueueMeters {
    private SqlQueueMeters() {
    }

    /** Tag: the queue name. */
    public static final String TAG_QUEUE = "queue";
    /** Tag: the backend name ({@code h2}, {@code postgresql}, {@code mariadb}, {@code sqlserver}, ...). */
    public static final String TAG_BACKEND = "backend";
    /** Tag of the timers: how the call or the handler ended. */
    public static final String TAG_OUTCOME = "outcome";

    // gauges, sampled from stats() every statsInterval
    public static final String READY = "sqlqueue.queue.ready";
    public static final String DELAYED = "sqlqueue.queue.delayed";
    public static final String IN_FLIGHT = "sqlqueue.queue.in.flight";
    public static final String DEAD_LETTERS = "sqlqueue.queue.dead.letters";
    public static final String OLDEST_READY_AGE = "sqlqueue.queue.oldest.ready.age";
    /**
     * Time gauge, tag backend only: how long the oldest transaction open on the database (another session's) has been
     * open, 0 when none; only for backends with {@link dev.sqlqueue.Capability#OLDEST_TRANSACTIONS}. A long one keeps
     * the server from cleaning up the queue's dead row versions (issue 31).
     */
    public static final String OLDEST_TRANSACTION_AGE = "sqlqueue.oldest.transaction.age";

    // counters
    public static final String ENQUEUED = "sqlqueue.messages.enqueued";
    public static final String ACKED = "sqlqueue.messages.acked";
    public static final String NACKED = "sqlqueue.messages.nacked";
    public static final String DEAD_LETTERED = "sqlqueue.messages.dead.lettered";
    public static final String LEASE_LOST = "sqlqueue.messages.lease.lost";
    public static final String RELEASED = "sqlqueue.messages.released";

    // timers
    public static final String HANDLER_DURATION = "sqlqueue.handler.duration";
    public static final String CLAIM_DURATION = "sqlqueue.claim.duration";
    public static final String ENQUEUE_TO_ACK = "sqlqueue.message.enqueue.to.ack";
    public static final String STATS_SAMPLE = "sqlqueue.stats.sample";
}
