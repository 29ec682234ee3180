package dev.sqlqueue.teradata;

import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.UnsupportedCapabilityException;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Enqueue: every message is checked before anything is sent, then inserted in chunks of at most
 * {@link TeradataOptions#insertBatchRows()} rows (4 by default) per iterated INSERT, all in one
 * transaction. The manuals ask for at most 4 rows per iterated INSERT while a queue table is empty,
 * freshly restarted, or being updated or deleted, to avoid deadlocks with the refresh of the queue
 * cache (SQL Data Definition Language, CREATE TABLE (Queue Table Form), usage notes); the backend cannot
 * know the queue's state, so it always chunks. Ids come from the identity column through
 * auto-generated key retrieval ({@code RETURN_GENERATED_KEYS}); how terajdbc answers it for an iterated
 * request is not documented (review V1), so a single message is one {@code executeUpdate}, and a batch
 * whose key count does not match its rows is rolled back and sent again one row per request, which this
 * instance then keeps doing.
 *
 * <p>Deduplication keys ({@link KeyedEnqueue}): a keyed message takes its key in the queue's keys table
 * ({@link TeradataStatements#createKeysTable}) in the same transaction as its INSERT; a batch holding a
 * keyed message is sent one row per request. On a caller's connection a keyed enqueue needs auto-commit
 * off, since key and message must commit together. {@link KeyCleaner} deletes expired keys in the
 * background. Thread-safe.
 */
final class TeradataEnqueue {
    private final Sessions sessions;
    private final int batchRows;
    private final KeyedEnqueue keyed;
    private final KeyCleaner cleaner;
    /** Set once the driver answered a batch with the wrong number of keys (review V1); then every request is one row. */
    private volatile boolean oneRowPerRequest;

    TeradataEnqueue(Sessions sessions, int batchRows, Duration window) {
        this.sessions = sessions;
        this.batchRows = batchRows;
        this.keyed = new KeyedEnqueue(window);
        this.cleaner = new KeyCleaner(sessions);
    }

    /** Stops the background clean-up of expired keys. */
    void close() {
        cleaner.close();
    }

    /**
     * Checks one message against the table's limits.
     *
     * @return the encoded header text
     * @throws InvalidInputException rule {@code payload.max-size} (over 64,000 bytes),
     *     {@code headers.max-length} (encoded headers over 8,000 characters) or {@code headers.charset} (a
     *     header key or value holds a code point a UNICODE column refuses without Unicode Pass Through:
     *     outside the Unicode 6.0 characters of the Basic Multilingual Plane Teradata supports, private use,
     *     a noncharacter, U+FFFD, or an unpaired surrogate; see {@link TeradataText})
     * @throws UnsupportedCapabilityException for a delay, a priority or a group
     */
    static String check(Message m) {
        if (m == null) {
            throw new InvalidInputException("payload.null", "message must not be null");
        }
        if (m.payloadLength() > TeradataStatements.MAX_PAYLOAD_BYTES) {
            throw new InvalidInputException("payload.max-size", "payload is " + m.payloadLength() + " bytes; the teradata"
                    + " backend stores at most " + TeradataStatements.MAX_PAYLOAD_BYTES + " bytes (VARBYTE(64000),"
                    + " LOBs are not allowed in queue tables); nothing was enqueued");
        }
        if (!m.delay().isZero()) {
            throw new UnsupportedCapabilityException(Capability.DELAYED_DELIVERY, TeradataProvider.NAME);
        }
        if (m.priority() != 0) {
            throw new UnsupportedCapabilityException(Capability.PRIORITY, TeradataProvider.NAME);
        }
        if (m.group() != null) {
            throw new UnsupportedCapabilityException(Capability.MESSAGE_GROUPS, TeradataProvider.NAME);
        }
        String headers = HeaderCodec.encode(m.headers());
        if (headers.length() > TeradataStatements.MAX_HEADER_CHARS) {
            throw new InvalidInputException("headers.max-length", "encoded headers are " + headers.length()
                    + " characters; the teradata backend stores at most " + TeradataStatements.MAX_HEADER_CHARS
                    + "; nothing was enqueued");
        }
        if (m.deduplicationKey() != null && TeradataText.firstUnstorable(m.deduplicationKey()) >= 0) {
            throw new InvalidInputException("dedupe.charset", "the deduplication key holds "
                    + TeradataText.describe(m.deduplicationKey(), TeradataText.firstUnstorable(m.deduplicationKey()))
                    + ", which the teradata backend cannot store in its UNICODE key column (error 6706); nothing was enqueued");
        }
        int bad = TeradataText.firstUnstorable(headers);
        if (bad >= 0) {
            throw new InvalidInputException("headers.charset", "a header holds " + TeradataText.describe(headers, bad)
                    + ", which the teradata backend cannot store: without Unicode Pass Through its UNICODE columns"
                    + " accept only the Unicode 6.0 characters of the Basic Multilingual Plane that Teradata supports,"
                    + " not private use, noncharacters or U+FFFD (error 6706); nothing was enqueued");
        }
        return headers;
    }

    /** Inserts and commits; all or nothing. */
    List<Long> enqueueAll(TeradataNames n, List<Message> messages) {
        if (messages.stream().anyMatch(m -> m.deduplicationKey() != null)) {
            return enqueueAllDeduplicated(n, messages).stream().map(EnqueueResult::id).toList();
        }
        List<String> headers = messages.stream().map(TeradataEnqueue::check).toList();
        return sessions.run("enqueue to '" + n.queue() + "'", s -> {
            Connection c = s.connection();
            List<Long> ids;
            try {
                ids = insert(c, n, messages, headers, rowsPerRequest());
            } catch (KeyCountMismatch e) {
                // V1: the driver does not give one key per row of an iterated request; start again row by row
                c.rollback();
                oneRowPerRequest = true;
                ids = insert(c, n, messages, headers, 1);
            }
            c.commit();
            return ids;
        });
    }

    /** As {@link #enqueueAll}, with whether each message's deduplication key made it a duplicate. */
    List<EnqueueResult> enqueueAllDeduplicated(TeradataNames n, List<Message> messages) {
        if (messages.stream().noneMatch(m -> m.deduplicationKey() != null)) {
            return enqueueAll(n, messages).stream().map(id -> new EnqueueResult(id, false)).toList();
        }
        List<String> headers = messages.stream().map(TeradataEnqueue::check).toList();
        List<EnqueueResult> results = sessions.run("enqueue to '" + n.queue() + "'", s -> {
            Connection c = s.connection();
            List<EnqueueResult> out = keyed.enqueue(c, n, messages, i -> insertOne(c, n, messages.get(i), headers.get(i)));
            c.commit();
            return out;
        });
        cleaner.counted(n, messages.stream().filter(m -> m.deduplicationKey() != null).count());
        return results;
    }

    /** Inserts on the caller's connection without committing or touching its auto-commit mode: one row, one request. */
    long enqueue(Connection caller, TeradataNames n, Message m) {
        if (m != null && m.deduplicationKey() != null) {
            return enqueueDeduplicated(caller, n, m).id();
        }
        String headers = check(m);
        try {
            return insertOne(caller, n, m, headers);
        } catch (SQLException e) {
            throw TeradataErrors.translate("enqueue to '" + n.queue() + "' in the caller's transaction", e,
                    !Sessions.valid(caller));
        }
    }

    /** A keyed enqueue in its own transaction, committed. */
    EnqueueResult enqueueDeduplicated(TeradataNames n, Message m) {
        check(m);
        return enqueueAllDeduplicated(n, List.of(m)).get(0);
    }

    /**
     * A keyed enqueue on the caller's connection, not committed.
     *
     * @throws InvalidInputException rule {@code dedupe.auto-commit} when the connection is in auto-commit
     *     mode: the key and the message would commit separately (nothing is sent)
     */
    EnqueueResult enqueueDeduplicated(Connection caller, TeradataNames n, Message m) {
        String headers = check(m);
        if (m.deduplicationKey() == null) {
            return new EnqueueResult(enqueue(caller, n, m), false);
        }
        try {
            if (caller.getAutoCommit()) {
                throw new InvalidInputException("dedupe.auto-commit", "a message with a deduplication key is enqueued in"
                        + " the caller's transaction, but the connection is in auto-commit mode, so the key and the message"
                        + " would be committed separately; turn auto-commit off; nothing was enqueued");
            }
            return keyed.enqueue(caller, n, List.of(m), i -> insertOne(caller, n, m, headers)).get(0);
        } catch (SQLException e) {
            throw TeradataErrors.translate("enqueue to '" + n.queue() + "' in the caller's transaction", e,
                    !Sessions.valid(caller));
        }
    }

    private static long insertOne(Connection c, TeradataNames n, Message m, String headers) throws SQLException {
        return insert(c, n, List.of(m), List.of(headers), 1).get(0);
    }

    private int rowsPerRequest() {
        return oneRowPerRequest ? 1 : batchRows;
    }

    /** The driver answered an iterated INSERT with a different number of keys than rows. */
    private static final class KeyCountMismatch extends SQLException {
        KeyCountMismatch(int keys, int rows) {
            super("the driver returned " + keys + " generated ids for " + rows + " inserted rows");
        }
    }

    /**
     * Inserts in requests of {@code perRequest} rows: one row with {@code executeUpdate}, more as a batch.
     * Keys are asked for with {@link Statement#RETURN_GENERATED_KEYS} and read from the column labelled
     * {@code seq} when the key result has several columns (a driver may answer with whole rows), else from
     * its only column.
     */
    private static List<Long> insert(Connection c, TeradataNames n, List<Message> messages, List<String> headers,
                                     int perRequest) throws SQLException {
        List<Long> ids = new ArrayList<>(messages.size());
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n), Statement.RETURN_GENERATED_KEYS)) {
            for (int from = 0; from < messages.size(); from += perRequest) {
                int to = Math.min(from + perRequest, messages.size());
                for (int i = from; i < to; i++) {
                    ps.setString(1, headers.get(i));
                    ps.setBytes(2, messages.get(i).payloadUnsafe());
                    if (to - from == 1) {
                        ps.executeUpdate();
                    } else {
                        ps.addBatch();
                    }
                }
                if (to - from > 1) {
                    ps.executeBatch();
                }
                int before = ids.size();
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    int column = keyColumn(keys);
                    while (keys.next()) {
                        ids.add(keys.getLong(column));
                    }
                }
                if (ids.size() - before != to - from) {
                    if (to - from > 1) {
                        throw new KeyCountMismatch(ids.size() - before, to - from);
                    }
                    throw new SQLException("the driver returned " + (ids.size() - before) + " generated ids for one"
                            + " inserted row; the id of the message cannot be known");
                }
            }
        }
        return ids;
    }

    private static int keyColumn(ResultSet keys) throws SQLException {
        ResultSetMetaData md = keys.getMetaData();
        int count = md == null ? 1 : md.getColumnCount();
        if (count <= 1) {
            return 1;
        }
        for (int i = 1; i <= count; i++) {
            if ("seq".equalsIgnoreCase(md.getColumnLabel(i).trim())) {
                return i;
            }
        }
        throw new SQLException("the driver's generated-keys result has " + count + " columns and none is labelled seq");
    }
}
