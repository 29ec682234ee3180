package dev.sqlqueue;

/**
 * Optional features a backend may declare in {@link Capabilities}. The conformance suite runs the cases
 * of the features a backend declares and reports the others as skipped with {@link #describe()}.
 */
public enum Capability {
    /** {@link Message.Builder#delay} hides a message until a database-clock time. */
    DELAYED_DELIVERY("delayed delivery"),
    /** Higher {@link Message#priority()} is consumed first. */
    PRIORITY("priority"),
    /** Strict one-at-a-time order within a {@link Message#group()}. */
    MESSAGE_GROUPS("message groups"),
    /** {@link Acknowledger#extend} pushes a lease's expiry further out. */
    LEASE_EXTENSION("lease extension"),
    /** {@link Acknowledger#nack} takes a delay before redelivery. */
    NACK_DELAY("nack with delay"),
    /** {@link Producer#enqueue(java.sql.Connection, QueueName, Message)} joins the caller's transaction. */
    TRANSACTIONAL_ENQUEUE("enqueue in the caller's transaction"),
    /**
     * {@link Message.Builder#deduplicationKey}: an enqueue whose key was seen on the same queue within
     * {@link QueueConfig#deduplicationWindow()} enqueues nothing and returns the first message's id,
     * enforced by the database (a unique key), also across processes and in the caller's transaction.
     */
    DEDUPLICATION("deduplication keys"),
    /** The database itself wakes a waiting consumer (LISTEN/NOTIFY, WAITFOR RECEIVE...). */
    SERVER_SIDE_WAIT("server-side wait"),
    /** Processed messages can be kept in a history table (start, end, duration, attempts, outcome). */
    HISTORY("processed-message history"),
    /** {@link QueueClient#dropSchema()} removes every object of the backend's table prefix. */
    DROP_SCHEMA("dropping its own schema objects"),
    /**
     * {@link QueueAdmin#oldestTransactions} reports the sessions whose open transactions hold back the server's
     * clean-up of the queue's tables (PostgreSQL, MariaDB).
     */
    OLDEST_TRANSACTIONS("reporting the oldest open transactions"),
    /**
     * {@link QueueAdmin#pause} and {@link QueueAdmin#resume}: claims of every client on the database skip a paused
     * queue (the claim statement itself checks it), while enqueues, acks and admin calls go on.
     */
    PAUSE("pausing and resuming a queue"),
    /**
     * {@link QueueAdmin#messages} and {@link QueueAdmin#message}: a queue's ready, delayed and in-flight messages can be
     * listed, with payload previews only.
     */
    BROWSE("browsing a queue's messages"),
    /**
     * {@link QueueAdmin#claimForMove} holds ready and delayed messages for a move to another database, with their
     * attempts and remaining delay, without counting a delivery ({@link QueueMover}).
     */
    MOVE_CLAIM("claiming ready and delayed messages to move them"),
    /**
     * {@link QueueAdmin#enqueueMoved} writes moved messages with the attempts they had, and moved dead letters with
     * their reason, each under a deduplication key in one transaction ({@link QueueMover}'s target side).
     */
    MOVE_ENQUEUE("enqueuing moved messages with their attempts, and moved dead letters"),
    /**
     * {@link QueueAdmin#deduplicationKeys} lists a queue's deduplication keys still in their window and
     * {@link QueueAdmin#enqueueMovedKeys} writes such keys from another database ({@link QueueMover}).
     */
    MOVE_KEYS("listing and writing deduplication keys for a move"),
    /**
     * {@link QueueAdmin#historyForMove} reads a queue's history rows oldest first, {@link QueueAdmin#enqueueMovedHistory}
     * writes rows from another database once, {@link QueueAdmin#deleteHistory} deletes rows by id ({@link QueueMover}).
     */
    MOVE_HISTORY("reading, writing and deleting history rows for a move"),
    /** Fault hook: the suite can kill a consumer's database session. */
    KILL_SESSION("killing a database session (fault hook)"),
    /** Fault hook: the suite can take the database away and bring it back. */
    RESTART_SERVER("restarting the database server (fault hook)"),
    /** Raw SQL rows with broken headers can be written by the suite. */
    RAW_ROW_INSERT("writing raw rows (fault hook)");

    private final String description;

    Capability(String description) {
        this.description = description;
    }

    /**
     * What the capability is, in a few words, for messages.
     *
     * @return the description, for example {@code "writing raw rows (fault hook)"}
     */
    public String describe() {
        return description;
    }
}
