package dev.sqlqueue.teradata;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The deduplication protocol, in the transaction open on a connection (the backend's or a caller's). Per
 * key: delete it if expired ({@link TeradataStatements#deleteExpiredKey}), take it with a MERGE that
 * inserts it unless it is there ({@link TeradataStatements#mergeKey}: no error either way, so a caller's
 * transaction in Teradata mode is never aborted by a taken key: review N3), then insert the message and
 * record its id on the key ({@link TeradataStatements#setKeyMessage}); a taken key returns the id recorded
 * on it. A batch takes all its keys first, in the order of their stored form, so two batches never wait
 * for each other's keys in opposite orders: such a deadlock across AMPs is only found after DBS Control
 * DeadLockTimeout, 240 s by default (review N6); its messages are then inserted in batch order. A key
 * taken with no message recorded (possible only from an earlier version's enqueue in auto-commit mode) is
 * taken over by the new message. Stateless apart from the window; thread-safe.
 */
final class KeyedEnqueue {
    /** Inserts message {@code index} of the batch and returns its id. */
    interface Inserter {
        long insert(int index) throws SQLException;
    }

    private final Duration window;

    KeyedEnqueue(Duration window) {
        this.window = window;
    }

    /** The stored form of a key: followed by {@code .}, so trailing blanks count (Teradata pads comparisons). */
    static String stored(String key) {
        return key + ".";
    }

    /** One result per message, in order; messages without a key are inserted by {@code insert} too. */
    List<EnqueueResult> enqueue(Connection c, TeradataNames n, List<Message> messages, Inserter insert) throws SQLException {
        Map<String, Boolean> free = new TreeMap<>();
        for (Message m : messages) {
            if (m.deduplicationKey() != null) {
                free.put(stored(m.deduplicationKey()), null);
            }
        }
        for (Map.Entry<String, Boolean> e : free.entrySet()) {
            e.setValue(take(c, n, e.getKey()));
        }
        Map<String, Long> idOfKey = new HashMap<>();
        List<EnqueueResult> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            String key = messages.get(i).deduplicationKey() == null ? null : stored(messages.get(i).deduplicationKey());
            if (key == null) {
                out.add(new EnqueueResult(insert.insert(i), false));
                continue;
            }
            Long known = idOfKey.get(key);
            if (known == null && !free.get(key)) {
                known = recorded(c, n, key);
            }
            if (known != null) {
                idOfKey.put(key, known);
                out.add(new EnqueueResult(known, true));
                continue;
            }
            long id = insert.insert(i);
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.setKeyMessage(n))) {
                ps.setLong(1, id);
                ps.setString(2, key);
                ps.executeUpdate();
            }
            idOfKey.put(key, id);
            out.add(new EnqueueResult(id, false));
        }
        return out;
    }

    /** Deletes the key if expired, then takes it: true when it was free. */
    private boolean take(Connection c, TeradataNames n, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.deleteExpiredKey(n))) {
            ps.setString(1, key);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.mergeKey(n))) {
            long seconds = Math.max(1, (window.toMillis() + 999) / 1000); // whole seconds, rounded up
            ps.setString(1, key);
            ps.setLong(2, seconds / 86_400);
            ps.setLong(3, seconds % 86_400 / 60);
            ps.setLong(4, seconds % 60);
            return ps.executeUpdate() == 1;
        }
    }

    /** The message recorded on a taken key, or null when none is. */
    private static Long recorded(Connection c, TeradataNames n, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.keyMessage(n))) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long id = rs.getLong(1);
                    return rs.wasNull() ? null : id;
                }
            }
        }
        return null;
    }
}
