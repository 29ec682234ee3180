package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The producer side of the {@code sqlserver} backend: enqueues in the backend's own transaction or in the
 * caller's, with and without deduplication keys. A queue that does not exist yet is created on first enqueue
 * (in the backend's transaction, or in a transaction of its own when the enqueue runs in the caller's).
 *
 * <p>Deduplication keys (review N1): a key is taken by inserting its row first, on the exact key, with no
 * key-range lock ({@code SqlServerStatements} "enqueueKeyed", "takeKey"); producers of different keys never wait
 * for each other. A batch takes all its keys before any of its messages, in one order (the stored key,
 * ascending), so two batches cannot deadlock on each other's keys; a key given twice in one batch makes the
 * second message a duplicate of the first. Every {@link #CLEANUP_EVERY}th keyed enqueue, on any path, makes the
 * next enqueue or claim on the backend's own session delete a batch of expired keys in a transaction of its
 * own, never in the caller's (review N9).
 *
 * <p>Thread-safe.
 */
public final class SqlServerEnqueues {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlServerEnqueues.class);
    /** Keyed enqueues per batch of expired keys deleted. */
    static final int CLEANUP_EVERY = 256;
    /** Error numbers of a duplicate key: 2627 (PRIMARY KEY or UNIQUE constraint), 2601 (unique index). */
    static final int DUPLICATE_KEY = 2627;
    static final int DUPLICATE_INDEX_KEY = 2601;

    private final SqlServerStatements sql;
    private final Sessions sessions;
    private final SqlServerAdmin admin;
    private final Duration window;
    private final AtomicLong keyedEnqueues = new AtomicLong();
    private final AtomicBoolean cleanupDue = new AtomicBoolean();

    SqlServerEnqueues(SqlServerStatements sql, Sessions sessions, SqlServerAdmin admin, Duration window) {
        this.sql = sql;
        this.sessions = sessions;
        this.admin = admin;
        this.window = window;
    }

    /** A batch in one transaction of the backend's own; keyed messages take their keys first (see the class). */
    List<EnqueueResult> enqueueAll(QueueName queue, List<Message> messages) {
        messages.forEach(SqlServerEnqueues::checkDelay);
        List<EnqueueResult> results = sessions.inTransaction("enqueue on queue '" + queue + "'", c -> batch(c, queue, messages));
        countKeyed(messages.stream().filter(m -> m.deduplicationKey() != null).count());
        cleanUpIfDue();
        return results;
    }

    /** One message, keyed or not, in one transaction of the backend's own (one statement). */
    EnqueueResult enqueue(QueueName queue, Message message) {
        checkDelay(message);
        if (message.deduplicationKey() == null) {
            return enqueueAll(queue, List.of(message)).get(0);
        }
        EnqueueResult r = sessions.inTransaction("enqueue on queue '" + queue + "'",
                c -> insertKeyed(c, "enqueueKeyed", queue, message, false));
        countKeyed(1);
        cleanUpIfDue();
        return r;
    }

    /** One message in the caller's transaction on {@code connection}: no SET, no commit, no clean-up there. */
    EnqueueResult enqueue(Connection connection, QueueName queue, Message message) {
        checkDelay(message);
        String what = "enqueue on queue '" + queue + "' in the caller's transaction";
        try {
            if (message.deduplicationKey() == null) {
                return new EnqueueResult(insert(connection, "enqueueJoined", queue, message, true), false);
            }
            EnqueueResult r = insertKeyed(connection, "enqueueKeyedJoined", queue, message, true);
            countKeyed(1);
            return r;
        } catch (SQLException e) {
            if (message.deduplicationKey() != null && isDuplicateKey(e)) {
                throw new SqlQueueException(what + " failed: another producer took deduplication key '"
                        + message.deduplicationKey() + "' at the same time, and the caller's session runs with"
                        + " SET XACT_ABORT ON, so SQL Server error " + e.getErrorCode() + " doomed the caller's"
                        + " transaction (XACT_STATE() = -1). Roll it back and run it again: the key's message then"
                        + " counts as a duplicate. With XACT_ABORT OFF (the default) the library answers such a race"
                        + " itself. " + e.getMessage(), e);
            }
            throw SqlServerErrors.map(what, e);
        }
    }

    private List<EnqueueResult> batch(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        // 1. the keys, each once, in stored-key order
        Map<String, Long> holders = new HashMap<>();
        TreeMap<String, String> keys = new TreeMap<>();
        for (Message m : messages) {
            if (m.deduplicationKey() != null) {
                keys.put(storedKey(m.deduplicationKey()), m.deduplicationKey());
            }
        }
        for (String stored : keys.keySet()) {
            holders.put(stored, takeKey(c, queue, stored));
        }
        // 2. the messages in their order; a key's first message binds it, later ones are its duplicates
        List<EnqueueResult> results = new ArrayList<>(messages.size());
        Map<String, Long> boundHere = new HashMap<>();
        for (Message m : messages) {
            if (m.deduplicationKey() == null) {
                results.add(new EnqueueResult(insert(c, "enqueue", queue, m, false), false));
                continue;
            }
            String stored = storedKey(m.deduplicationKey());
            Long holder = holders.get(stored);
            if (holder != null && holder != 0) {
                results.add(new EnqueueResult(holder, true));
            } else if (boundHere.containsKey(stored)) {
                results.add(new EnqueueResult(boundHere.get(stored), true));
            } else {
                long id = insert(c, "enqueue", queue, m, false);
                if (Jdbc.count(c, sql.get("bindKey"), id, queue.value(), stored) != 1) {
                    throw new SqlQueueException("deduplication key '" + m.deduplicationKey() + "' of queue '" + queue
                            + "' was taken by this batch but its row is gone; nothing was enqueued");
                }
                boundHere.put(stored, id);
                results.add(new EnqueueResult(id, false));
            }
        }
        return results;
    }

    /** {@code takeKey}: null when this call took the key, else the id holding it (0: this transaction). */
    private Long takeKey(Connection c, QueueName queue, String stored) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get("takeKey"), queue.value(), stored, Jdbc.seconds(window),
                Jdbc.millisPart(window)); ResultSet rs = ps.executeQuery()) {
            rs.next();
            long id = rs.getLong(1);
            return rs.wasNull() ? null : id;
        }
    }

    /**
     * The key as stored: followed by {@code .}, because {@code =} ignores trailing spaces even under a BIN2
     * collation (ANSI padding), which would make {@code k} and {@code k } one key.
     *
     * @param key the deduplication key as given
     * @return the key as stored
     */
    public static String storedKey(String key) {
        return key + ".";
    }

    /** A keyed enqueue ({@code enqueueKeyed} or its caller's-transaction form); a missing queue is created first. */
    private EnqueueResult insertKeyed(Connection c, String statement, QueueName queue, Message m, boolean callers)
            throws SQLException {
        EnqueueResult r = tryInsertKeyed(c, statement, queue, m);
        if (r == null) {
            createQueue(c, queue, callers);
            r = tryInsertKeyed(c, statement, queue, m);
        }
        if (r == null) {
            throw notEnqueued(queue, callers);
        }
        return r;
    }

    private EnqueueResult tryInsertKeyed(Connection c, String statement, QueueName queue, Message m) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get(statement), queue.value(), storedKey(m.deduplicationKey()),
                Jdbc.seconds(window), Jdbc.millisPart(window), m.priority(), Jdbc.seconds(m.delay()),
                Jdbc.millisPart(m.delay()), m.payloadUnsafe(), HeaderCodec.encode(m.headers()));
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? new EnqueueResult(rs.getLong("id"), rs.getInt("duplicate") == 1) : null;
        }
    }

    /** Insert one message; a queue that does not exist yet is created first. */
    private long insert(Connection c, String statement, QueueName queue, Message m, boolean callers) throws SQLException {
        Long id = tryInsert(c, statement, queue, m);
        if (id == null) {
            createQueue(c, queue, callers);
            id = tryInsert(c, statement, queue, m);
        }
        if (id == null) {
            throw notEnqueued(queue, callers);
        }
        return id;
    }

    private Long tryInsert(Connection c, String statement, QueueName queue, Message m) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get(statement), m.priority(), Jdbc.seconds(m.delay()),
                Jdbc.millisPart(m.delay()), m.payloadUnsafe(), HeaderCodec.encode(m.headers()), queue.value());
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : null;
        }
    }

    /** On {@code c} in its transaction, or for a caller's connection in a transaction of the backend's own. */
    private void createQueue(Connection c, QueueName queue, boolean callers) throws SQLException {
        if (callers) {
            admin.createQueue(queue);
        } else {
            admin.createQueueOn(c, queue);
        }
    }

    /**
     * Why the second insert found no queue. In the backend's own transaction the queue row it has just created
     * or found is locked by that transaction, so only a drop can explain it. In the caller's transaction the
     * queue was created in a transaction of the backend's own: a caller reading an older snapshot (SNAPSHOT
     * isolation) cannot see it.
     */
    private SqlQueueException notEnqueued(QueueName queue, boolean callers) {
        Optional<Boolean> dropping = callers ? admin.dropping(queue) : Optional.of(true);
        if (dropping.isPresent() && !dropping.get()) {
            return new SqlQueueException("queue '" + queue + "' did not exist, and the caller's transaction cannot see it"
                    + " although it was created just now in a transaction of its own: the caller's transaction reads a"
                    + " snapshot taken before (SNAPSHOT isolation). Create the queue before such a transaction begins"
                    + " (createQueue); nothing was enqueued");
        }
        if (dropping.isPresent()) {
            return SqlServerAdmin.beingDropped(queue);
        }
        return new SqlQueueException("queue '" + queue + "' was dropped while a message was being enqueued on it;"
                + " nothing was enqueued");
    }

    private void countKeyed(long n) {
        if (n > 0) {
            long after = keyedEnqueues.addAndGet(n);
            if (after / CLEANUP_EVERY != (after - n) / CLEANUP_EVERY) {
                cleanupDue.set(true);
            }
        }
    }

    /**
     * Deletes a batch of expired keys in a transaction of the backend's own, when {@link #CLEANUP_EVERY} keyed
     * enqueues have run since the last one. Called after the backend's own enqueues and claims, never inside the
     * caller's transaction (review N9 and, for Service Broker, N2).
     */
    void cleanUpIfDue() {
        if (cleanupDue.compareAndSet(true, false)) {
            try {
                sessions.inTransaction("deleting expired deduplication keys",
                        c -> Jdbc.count(c, sql.get("deleteExpiredKeysBatch"), SqlServerStatements.MAINTENANCE_BATCH));
            } catch (SqlQueueException e) {
                cleanupDue.set(true); // maintenance: the enqueue or claim that ran it has succeeded; try again later
                LOG.warn("deleting expired deduplication keys failed; it is tried again later: {}", e.getMessage());
            }
        }
    }

    static boolean isDuplicateKey(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException() == x ? null : x.getNextException()) {
            if (x.getErrorCode() == DUPLICATE_KEY || x.getErrorCode() == DUPLICATE_INDEX_KEY) {
                return true;
            }
        }
        return false;
    }

    static void checkDelay(Message m) {
        if (m.delay().getSeconds() >= Integer.MAX_VALUE) {
            throw new InvalidInputException("delay.max", "delay must be below " + Integer.MAX_VALUE + " s, was " + m.delay());
        }
    }
}
