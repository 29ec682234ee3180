package dev.sqlqueue.skiplocked;

import dev.sqlqueue.DeduplicationKey;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Deduplication keys of the SKIP LOCKED backends, in the table {@code <prefix>dedupe_key} whose primary
 * key (queue, key) is the guarantee: an enqueue first takes its key with an insert that skips a taken key
 * ({@link SkipLockedStatements#insertKey}), and only the transaction whose insert went in writes a
 * message. A second transaction inserting the same key waits on the first's uncommitted row (PostgreSQL,
 * MariaDB, H2 alike), then finds it taken (the first committed) or free (it rolled back). So this holds
 * in the library's own transactions and in a caller's ({@code enqueue(Connection, ...)}) the same way.
 *
 * <p>Expired keys: an enqueue deletes its own key's row when its window has passed (a primary-key
 * delete); {@link #deleteExpired} removes others in bounded batches through the expiry index, run by the
 * backend's maintenance thread. No enqueue scans the table. Thread-safe (stateless but for its config).
 */
final class DeduplicationKeys {
    /** Expired keys deleted per statement by the maintenance pass. */
    static final int CLEANUP_BATCH = 1000;
    private static final int MAX_TRIES = 50;

    private final SkipLockedDialect dialect;
    private final SkipLockedStatements sql;
    private final long windowMillis;

    DeduplicationKeys(SkipLockedDialect dialect, SkipLockedStatements sql, long windowMillis) {
        this.dialect = dialect;
        this.sql = sql;
        this.windowMillis = windowMillis;
    }

    /** Writes one message on the connection of the transaction and returns its id. */
    @FunctionalInterface
    interface Writer {
        long write(Connection c, Message m) throws SQLException;
    }

    /**
     * Enqueue {@code messages} in the transaction of {@code c}, in order: a message with a key takes it
     * first and is written only when the key was free; a key taken earlier in the same list is a
     * duplicate too (this transaction holds it).
     */
    List<EnqueueResult> enqueue(Connection c, QueueName queue, List<Message> messages, Writer writer) throws SQLException {
        List<EnqueueResult> out = new ArrayList<>(messages.size());
        for (Message m : messages) {
            String key = m.deduplicationKey();
            if (key == null) {
                out.add(new EnqueueResult(writer.write(c, m), false));
                continue;
            }
            OptionalLong held = take(c, queue, key);
            if (held.isPresent()) {
                out.add(new EnqueueResult(held.getAsLong(), true));
            } else {
                long id = writer.write(c, m);
                bind(c, queue, key, id);
                out.add(new EnqueueResult(id, false));
            }
        }
        return out;
    }

    /**
     * Take {@code key} on {@code queue} in the transaction of {@code c}.
     *
     * @return empty when the key is now this transaction's (write the message, then {@link #bind} it), or
     *     the id of the message that holds the key
     */
    OptionalLong take(Connection c, QueueName queue, String key) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            update(c, sql.deleteExpiredKey, queue.value(), key);
            if (insert(c, queue, key)) {
                return OptionalLong.empty();
            }
            try (PreparedStatement ps = c.prepareStatement(sql.keyMessage)) {
                ps.setString(1, queue.value());
                ps.setString(2, key);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        long id = rs.getLong(1);
                        if (!rs.wasNull()) {
                            return OptionalLong.of(id);
                        }
                    }
                }
            }
            // the holder rolled back between our insert and our read (H2 reports a duplicate of an
            // uncommitted row without waiting): the key may be free now, so try again
            if (attempt >= MAX_TRIES) {
                throw new TransientBackendException("deduplication key of queue '" + queue.value()
                        + "' stayed held by an unfinished transaction; retry the enqueue", null);
            }
            try {
                Thread.sleep(Math.min(100, 2L * attempt));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TransientBackendException("interrupted while waiting for a deduplication key", e);
            }
        }
    }

    private boolean insert(Connection c, QueueName queue, String key) throws SQLException {
        return insert(c, queue, key, windowMillis);
    }

    private boolean insert(Connection c, QueueName queue, String key, long window) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.insertKey)) {
            ps.setString(1, queue.value());
            ps.setString(2, key);
            ps.setLong(3, window);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            // H2 only: no insert form that skips a duplicate, so a taken key is error 23505 (on H2 a
            // failed statement leaves the transaction usable)
            if (dialect == SkipLockedDialect.H2 && "23505".equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Write a key moved from another database in the transaction of {@code c}, for the rest of its window, unless this
     * queue holds it already: bound to the message that {@code messageKeyPrefix + messageId} stands for here, else to
     * {@code messageId} ({@link dev.sqlqueue.QueueAdmin#enqueueMovedKeys}).
     *
     * @return whether the key was written
     */
    boolean keep(Connection c, QueueName queue, DeduplicationKey k, String messageKeyPrefix) throws SQLException {
        update(c, sql.deleteExpiredKey, queue.value(), k.key());
        if (!insert(c, queue, k.key(), Math.max(1, k.remaining().toMillis()))) {
            return false;
        }
        long id = k.messageId();
        if (messageKeyPrefix != null) {
            try (PreparedStatement ps = c.prepareStatement(sql.keyMessage)) {
                ps.setString(1, queue.value());
                ps.setString(2, messageKeyPrefix + k.messageId());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        long moved = rs.getLong(1);
                        if (!rs.wasNull()) {
                            id = moved;
                        }
                    }
                }
            }
        }
        bind(c, queue, k.key(), id);
        return true;
    }

    /** The queue's keys in their window after {@code afterKey}, by key ({@link SkipLockedStatements#listKeys}). */
    List<DeduplicationKey> list(Connection c, QueueName queue, String afterKey, int limit) throws SQLException {
        List<DeduplicationKey> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.listKeys)) {
            ps.setString(1, queue.value());
            ps.setString(2, afterKey == null ? "" : afterKey);
            ps.setInt(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long left = rs.getLong(3);
                    if (left > 0) {
                        out.add(new DeduplicationKey(rs.getString(1), rs.getLong(2), java.time.Duration.ofMillis(left)));
                    }
                }
            }
        }
        return out;
    }

    /** Record the message that a key taken by {@link #take} stands for. */
    void bind(Connection c, QueueName queue, String key, long messageId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.setKeyMessage)) {
            ps.setLong(1, messageId);
            ps.setString(2, queue.value());
            ps.setString(3, key);
            if (ps.executeUpdate() != 1) {
                throw new SQLException("deduplication key of message " + messageId + " vanished inside its transaction");
            }
        }
    }

    /** Delete up to {@link #CLEANUP_BATCH} expired keys of every queue; returns how many went. */
    int deleteExpired(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.deleteExpiredKeys)) {
            ps.setInt(1, CLEANUP_BATCH);
            return ps.executeUpdate();
        }
    }

    private static void update(Connection c, String statement, String queue, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, queue);
            ps.setString(2, key);
            ps.executeUpdate();
        }
    }
}
