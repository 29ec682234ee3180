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
    /** Gauge, tags queue and backend: messages ready to be claimed now. */
    public static final String READY = "sqlqueue.queue.ready";
    /** Gauge, tags queue and backend: messages whose delay has not yet passed. */
    public static final String DELAYED = "sqlqueue.queue.delayed";
    /** Gauge, tags queue and backend: messages claimed and not yet settled. */
    public static final String IN_FLIGHT = "sqlqueue.queue.in.flight";
    /** Gauge, tags queue and backend: messages in the dead-letter queue. */
    public static final String DEAD_LETTERS = "sqlqueue.queue.dead.letters";
    /** Time gauge, tags queue and backend: age of the oldest ready message, 0 when none. */
    public static final String OLDEST_READY_AGE = "sqlqueue.queue.oldest.ready.age";
    /**
     * Time gauge, tag backend only: how long the oldest transaction open on the database (another session's) has been
     * open, 0 when none; only for backends with {@link dev.sqlqueue.Capability#OLDEST_TRANSACTIONS}. A long one keeps
     * the server from cleaning up the queue's dead row versions (issue 31).
     */
    public static final String OLDEST_TRANSACTION_AGE = "sqlqueue.oldest.transaction.age";

    // counters
    /** Counter, tags queue and backend: messages enqueued (committed). */
    public static final String ENQUEUED = "sqlqueue.messages.enqueued";
    /** Counter, tags queue and backend: messages acked. */
    public static final String ACKED = "sqlqueue.messages.acked";
    /** Counter, tags queue and backend: deliveries given back for a retry (nack). */
    public static final String NACKED = "sqlqueue.messages.nacked";
    /** Counter, tags queue and backend: messages moved to the dead-letter queue. */
    public static final String DEAD_LETTERED = "sqlqueue.messages.dead.lettered";
    /** Counter, tags queue and backend: settles refused because the lease had been lost. */
    public static final String LEASE_LOST = "sqlqueue.messages.lease.lost";
    /** Counter, tags queue and backend: claimed deliveries released unprocessed. */
    public static final String RELEASED = "sqlqueue.messages.released";

    // timers
    /** Timer, tags queue, backend and outcome: time a handler ran. */
    public static final String HANDLER_DURATION = "sqlqueue.handler.duration";
    /** Timer, tags queue, backend and outcome: time one claim (consume) call took. */
    public static final String CLAIM_DURATION = "sqlqueue.claim.duration";
    /** Timer, tags queue and backend: time from enqueue to ack, by the database clock. */
    public static final String ENQUEUE_TO_ACK = "sqlqueue.message.enqueue.to.ack";
    /** Timer, tag backend: time one sample of every queue's stats() took. */
    public static final String STATS_SAMPLE = "sqlqueue.stats.sample";
}
