package dev.sqlqueue.skiplocked;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.MovedMessage;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueue on the SKIP LOCKED backend: on its pool or in a caller's transaction. Messages with a
 * deduplication key go through {@link DeduplicationKeys}; the first keyed enqueue starts a daemon thread
 * that deletes expired keys every {@link #CLEANUP_SECONDS} s, in bounded batches. Thread-safe.
 */
final class SkipLockedProducer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SkipLockedProducer.class);
    /** Seconds between two clean-ups of expired deduplication keys. */
    static final int CLEANUP_SECONDS = 30;
    /** Batches of {@link DeduplicationKeys#CLEANUP_BATCH} one clean-up deletes at most. */
    static final int CLEANUP_MAX_BATCHES = 20;
    /** Rows of one multi-row insert (MariaDB, H2) at most. */
    static final int ROWS_PER_INSERT = 100;
    /**
     * Bytes of one multi-row insert at most, by {@link #rowBytes} (a larger message goes alone): far below MariaDB's
     * {@code max_allowed_packet} (16 MiB by default since 10.2), which one statement must fit in.
     */
    static final long BYTES_PER_INSERT = 1L << 20;

    private final SkipLockedDialect dialect;
    private final SkipLockedStatements sql;
    private final Transactions tx;
    private final SkipLockedAdmin admin;
    private final DeduplicationKeys keys;
    /** Multi-row insert statements by row count (MariaDB, H2); a race only builds one twice. */
    private final String[] insertRowsCache = new String[ROWS_PER_INSERT + 1];
    private ScheduledExecutorService cleaner;
    private boolean closed;

    SkipLockedProducer(SkipLockedDialect dialect, SkipLockedStatements sql, Transactions tx, SkipLockedAdmin admin,
                       Duration deduplicationWindow) {
        this.dialect = dialect;
        this.sql = sql;
        this.tx = tx;
        this.admin = admin;
        this.keys = new DeduplicationKeys(dialect, sql, deduplicationWindow.toMillis());
    }

    /** Starts the clean-up thread on the first keyed enqueue. */
    private synchronized void startCleaner() {
        if (cleaner != null || closed) {
            return;
        }
        cleaner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-dedupe-key-cleanup");
            t.setDaemon(true);
            return t;
        });
        cleaner.scheduleWithFixedDelay(this::deleteExpiredKeys, CLEANUP_SECONDS, CLEANUP_SECONDS, TimeUnit.SECONDS);
    }

    /** Deletes expired keys of every queue, batch by batch (each its own transaction), up to a bound. */
    void deleteExpiredKeys() {
        try {
            for (int i = 0; i < CLEANUP_MAX_BATCHES; i++) {
                if (inTransaction("delete expired deduplication keys", keys::deleteExpired) < DeduplicationKeys.CLEANUP_BATCH) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            // expired keys are harmless meanwhile: each enqueue deletes its own key's expired row
            LOG.debug("deleting expired deduplication keys failed; the next run tries again", e);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (cleaner != null) {
            cleaner.shutdownNow();
        }
    }

    EnqueueResult enqueueDeduplicated(QueueName queue, Message message) {
        if (message.deduplicationKey() == null) {
            return new EnqueueResult(enqueue(queue, message), false);
        }
        ensureKnown(queue);
        startCleaner();
        return inTransaction("enqueue", c -> keyed(c, queue, List.of(message))).get(0);
    }

    EnqueueResult enqueueDeduplicated(Connection connection, QueueName queue, Message message) {
        if (message.deduplicationKey() == null) {
            return new EnqueueResult(enqueue(connection, queue, message), false);
        }
        ensureKnown(queue);
        startCleaner();
        try {
            return keyed(connection, queue, List.of(message)).get(0);
        } catch (SQLException e) {
            throw JdbcErrors.translate("enqueue in the caller's transaction", e);
        }
    }

    /** Keyed and plain messages in order, one row per statement, in the transaction of {@code c}. */
    private List<EnqueueResult> keyed(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        return keys.enqueue(c, queue, messages, (conn, m) -> insert(conn, queue, List.of(m)).get(0));
    }

    private <T> T inTransaction(String what, Transactions.SqlWork<T> work) {
        return tx.inTransaction(what, work);
    }

    private void ensureKnown(QueueName queue) {
        admin.ensureKnown(queue);
    }

    long enqueue(QueueName queue, Message message) {
        return enqueueAll(queue, List.of(message)).get(0);
    }

    List<Long> enqueueAll(QueueName queue, List<Message> messages) {
        if (messages.stream().anyMatch(m -> m.deduplicationKey() != null)) {
            return enqueueAllDeduplicated(queue, messages).stream().map(EnqueueResult::id).toList();
        }
        ensureKnown(queue);
        return inTransaction("enqueue", c -> insert(c, queue, messages));
    }

    List<EnqueueResult> enqueueAllDeduplicated(QueueName queue, List<Message> messages) {
        if (messages.stream().noneMatch(m -> m.deduplicationKey() != null)) {
            return enqueueAll(queue, messages).stream().map(id -> new EnqueueResult(id, false)).toList();
        }
        ensureKnown(queue);
        startCleaner();
        return inTransaction("enqueue", c -> keyed(c, queue, messages));
    }

    /**
     * {@link dev.sqlqueue.QueueAdmin#enqueueMoved}: in one transaction, each message takes its key as a keyed enqueue
     * does; one whose key was free is inserted, its attempts set, and a dead letter copied to the dead-letter table
     * (with its attempts as they are) and deleted from the message table before the commit, so no consumer sees it.
     */
    List<EnqueueResult> enqueueMoved(QueueName queue, List<MovedMessage> messages) {
        ensureKnown(queue);
        startCleaner();
        return inTransaction("enqueue moved messages", c -> {
            List<EnqueueResult> out = new ArrayList<>(messages.size());
            for (MovedMessage mm : messages) {
                Message m = mm.message();
                OptionalLong held = keys.take(c, queue, m.deduplicationKey());
                if (held.isPresent()) {
                    out.add(new EnqueueResult(held.getAsLong(), true));
                    continue;
                }
                long id = insert(c, queue, List.of(m)).get(0);
                keys.bind(c, queue, m.deduplicationKey(), id);
                if (mm.attempts() > 0) {
                    Transactions.update(c, sql.setAttempts, mm.attempts(), id);
                }
                if (mm.deadLetter()) {
                    Transactions.update(c, sql.deadLetterMoved, Transactions.clip(mm.deadLetterReason()), id);
                    Transactions.update(c, sql.deleteById, id);
                }
                out.add(new EnqueueResult(id, false));
            }
            return out;
        });
    }

    /** {@link dev.sqlqueue.QueueAdmin#deduplicationKeys}. */
    List<dev.sqlqueue.DeduplicationKey> deduplicationKeys(QueueName queue, String afterKey, int limit) {
        return inTransaction("list deduplication keys", c -> keys.list(c, queue, afterKey, limit));
    }

    /** {@link dev.sqlqueue.QueueAdmin#enqueueMovedKeys}: every key in one transaction. */
    int enqueueMovedKeys(QueueName queue, List<dev.sqlqueue.DeduplicationKey> moved, String messageKeyPrefix) {
        ensureKnown(queue);
        startCleaner();
        return inTransaction("enqueue moved deduplication keys", c -> {
            int n = 0;
            for (dev.sqlqueue.DeduplicationKey k : moved) {
                if (keys.keep(c, queue, k, messageKeyPrefix)) {
                    n++;
                }
            }
            return n;
        });
    }

    long enqueue(Connection connection, QueueName queue, Message message) {
        if (message.deduplicationKey() != null) {
            return enqueueDeduplicated(connection, queue, message).id();
        }
        ensureKnown(queue);
        try {
            return insert(connection, queue, List.of(message)).get(0);
        } catch (SQLException e) {
            throw JdbcErrors.translate("enqueue in the caller's transaction", e);
        }
    }

    private List<Long> insert(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        if (sql.insertMany != null) {
            return insertMany(c, queue, messages);
        }
        List<Long> ids = new ArrayList<>(messages.size());
        int from = 0;
        while (from < messages.size()) {
            int to = from + 1;
            long bytes = rowBytes(messages.get(from));
            while (to < messages.size() && to - from < ROWS_PER_INSERT
                    && bytes + rowBytes(messages.get(to)) <= BYTES_PER_INSERT) {
                bytes += rowBytes(messages.get(to));
                to++;
            }
            ids.addAll(insertRows(c, queue, messages.subList(from, to)));
            from = to;
        }
        return ids;
    }

    /**
     * The most bytes a message's row adds to a multi-row insert: its payload, and its headers and group key at
     * 3 bytes a character (UTF-8 of a UTF-16 code unit, at most), with room for the headers' encoding.
     */
    static long rowBytes(Message m) {
        long chars = 0;
        for (Map.Entry<String, String> h : m.headers().entrySet()) {
            chars += 2L * (h.getKey().length() + h.getValue().length()) + 2;
        }
        if (m.group() != null) {
            chars += m.group().length();
        }
        return m.payloadUnsafe().length + 3 * chars + 64;
    }

    /**
     * MariaDB and H2: the messages in one multi-row insert that returns their ids
     * ({@link SkipLockedStatements#insertRows}); one statement and one round trip where a JDBC batch of
     * single-row inserts with generated keys took one execution per row.
     */
    private List<Long> insertRows(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        int n = messages.size();
        String statement = n < insertRowsCache.length ? insertRowsCache[n] : null;
        if (statement == null) {
            statement = sql.insertRows(n);
            if (n < insertRowsCache.length) {
                insertRowsCache[n] = statement;
            }
        }
        long[] ids = new long[n];
        int got = 0;
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            int i = 1;
            for (Message m : messages) {
                ps.setString(i++, queue.value());
                ps.setInt(i++, m.priority());
                ps.setLong(i++, m.delay().toMillis());
                ps.setString(i++, HeaderCodec.encode(m.headers()));
                ps.setBytes(i++, m.payloadUnsafe());
                ps.setString(i++, m.group());
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (got == n) {
                        throw new SqlQueueException("the insert returned more than " + n + " ids for " + n + " rows");
                    }
                    ids[got++] = rs.getLong(1);
                }
            }
        }
        if (got != n) {
            throw new SqlQueueException("the insert returned " + got + " ids for " + n + " rows");
        }
        // ids are given in the order of the rows (see insertRows), whatever order they are returned in
        java.util.Arrays.sort(ids);
        List<Long> out = new ArrayList<>(n);
        for (long id : ids) {
            out.add(id);
        }
        return out;
    }

    /** PostgreSQL: rows and wake-up in one statement ({@link SkipLockedStatements#insertMany}). */
    private List<Long> insertMany(Connection c, QueueName queue, List<Message> messages) throws SQLException {
        int n = messages.size();
        Integer[] priorities = new Integer[n];
        Long[] delays = new Long[n];
        String[] headers = new String[n];
        byte[][] payloads = new byte[n][];
        String[] groups = new String[n];
        for (int i = 0; i < n; i++) {
            Message m = messages.get(i);
            priorities[i] = m.priority();
            delays[i] = m.delay().toMillis();
            headers[i] = HeaderCodec.encode(m.headers());
            payloads[i] = m.payloadUnsafe();
            groups[i] = m.group();
        }
        List<Long> ids = new ArrayList<>(n);
        try (PreparedStatement ps = c.prepareStatement(sql.insertMany)) {
            ps.setString(1, sql.channel);
            ps.setString(2, queue.value());
            ps.setString(3, queue.value());
            ps.setArray(4, c.createArrayOf("int4", priorities));
            ps.setArray(5, c.createArrayOf("int8", delays));
            ps.setArray(6, c.createArrayOf("text", headers));
            ps.setArray(7, c.createArrayOf("bytea", payloads));
            ps.setArray(8, c.createArrayOf("varchar", groups));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        if (ids.size() != n) {
            throw new SqlQueueException("the insert returned " + ids.size() + " ids for " + n + " rows");
        }
        return ids;
    }
}
