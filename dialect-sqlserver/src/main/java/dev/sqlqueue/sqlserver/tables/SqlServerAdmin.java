package dev.sqlqueue.sqlserver.tables;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Administration of the {@code sqlserver} backend: queues, purge, stats, dead letters, history.
 * Deletions and requeues run in batches of {@link SqlServerStatements#MAINTENANCE_BATCH} rows, each
 * batch its own transaction, so that no statement comes near lock escalation (about 5,000 locks).
 * Thread-safe.
 */
final class SqlServerAdmin {
    private static final Logger LOG = LoggerFactory.getLogger(SqlServerAdmin.class);

    private final SqlServerStatements sql;
    private final Sessions sessions;
    private final Runnable migrate;

    SqlServerAdmin(SqlServerStatements sql, Sessions sessions, Runnable migrate) {
        this.sql = sql;
        this.sessions = sessions;
        this.migrate = migrate;
    }

    void migrate() {
        migrate.run();
    }

    void createQueue(QueueName queue) {
        sessions.inTransaction("creating queue '" + queue + "'", c -> {
            createQueueOn(c, queue);
            return null;
        });
    }

    /**
     * Create the queue row if missing, on {@code c} in its current transaction.
     *
     * @throws dev.sqlqueue.SqlQueueException when the queue's row is marked dropping (a drop that did not finish,
     *     review N10): enqueues would refuse it; the drop must be finished first
     */
    void createQueueOn(Connection c, QueueName queue) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get("createQueue"), queue.value(), queue.value(), queue.value());
             ResultSet rs = ps.executeQuery()) {
            if (rs.next() && rs.getInt(1) == 1) {
                throw beingDropped(queue);
            }
        }
    }

    static dev.sqlqueue.SqlQueueException beingDropped(QueueName queue) {
        return new dev.sqlqueue.SqlQueueException("queue '" + queue + "' is being dropped: a drop of it has not finished"
                + " (dropQueue, or `sqlqueue drop`, finishes it); it cannot be created or enqueued on until then");
    }

    /** The queue's row as the backend's own session sees it: empty when missing, else its dropping flag. */
    java.util.Optional<Boolean> dropping(QueueName queue) {
        return sessions.inTransaction("reading queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("queueState"), queue.value()); ResultSet rs = ps.executeQuery()) {
                return rs.next() ? java.util.Optional.of(rs.getInt(1) == 1) : java.util.Optional.<Boolean>empty();
            }
        });
    }

    void dropSchema() {
        sessions.inTransaction("dropping the queue tables", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("dropSchema"))) {
                ps.execute();
            }
            return null;
        });
    }

    /**
     * Marks the queue row {@code dropping} first (waiting for running enqueues, whose REPEATABLEREAD
     * share lock on the row holds until they commit); from then on enqueue into the queue fails with
     * {@link dev.sqlqueue.SqlQueueException} and does not re-create it. Then deletes its messages, dead
     * letters, history and deduplication keys in batches, and the queue row last. A message enqueued before the mark is
     * purged; none enqueued after it exists. A drop interrupted half way leaves the queue marked (enqueue
     * refuses it, {@code queues()} hides it); running the drop again finishes it. Review finding 4.
     */
    void dropQueue(QueueName queue) {
        sessions.inTransaction("dropping queue '" + queue + "'",
                c -> Jdbc.count(c, sql.get("markDropping"), queue.value()));
        inBatches("purgeBatch", queue);
        inBatches("purgeDeadLettersBatch", queue);
        inBatches("purgeHistoryBatch", queue);
        inBatches("purgeKeysBatch", queue);
        sessions.inTransaction("dropping queue '" + queue + "'",
                c -> Jdbc.count(c, sql.get("deleteQueue"), queue.value()));
    }

    long purge(QueueName queue) {
        return inBatches("purgeBatch", queue);
    }

    /** Deletes the queue's dead letters of these ids (sorted, distinct: SqlQueue), in one transaction. */
    long deleteDeadLetters(QueueName queue, List<Long> messageIds) {
        return sessions.inTransaction("deleting dead letters of queue '" + queue + "'", c -> {
            long n = 0;
            for (long id : messageIds) {
                n += Jdbc.count(c, sql.get("deleteDeadLetter"), id, queue.value());
            }
            return n;
        });
    }

    long purgeDeadLetters(QueueName queue) {
        return inBatches("purgeDeadLettersBatch", queue);
    }

    /** Marks the queue's row paused (migration V4); true if this call changed it. */
    boolean pause(QueueName queue) {
        return sessions.inTransaction("pausing queue '" + queue + "'", c -> Jdbc.count(c, sql.get("pauseQueue"), queue.value())) > 0;
    }

    /** Clears the queue's paused mark; true if this call changed it. */
    boolean resume(QueueName queue) {
        return sessions.inTransaction("resuming queue '" + queue + "'", c -> Jdbc.count(c, sql.get("resumeQueue"), queue.value())) > 0;
    }

    /** The queue row's paused mark (false for a queue without a row). */
    boolean isPaused(QueueName queue) {
        return sessions.inTransaction("reading the pause of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("queuePaused"), queue.value()); ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getInt(1) == 1;
            }
        });
    }

    /** Age first, then rows, each in batches of {@link SqlServerStatements#MAINTENANCE_BATCH}. */
    long pruneHistory(QueueName queue, HistoryRetention retention) {
        long total = 0;
        if (retention.maxAge() != null) {
            // DATEADD takes an int: an age beyond 2^31 s (68 years) is capped there, older than any row
            int seconds = (int) Math.min(Integer.MAX_VALUE, retention.maxAge().getSeconds());
            total += inBatches("pruneHistoryAgeBatch", queue, -seconds, -Jdbc.millisPart(retention.maxAge()));
        }
        if (retention.maxRows() != null) {
            total += pruneHistoryRows(queue, retention.maxRows());
        }
        return total;
    }

    /** Keeps the newest {@code keep} rows: the last kept row is read once, then older rows go in batches (N11). */
    private long pruneHistoryRows(QueueName queue, long keep) {
        if (keep <= 0) {
            return inBatches("purgeHistoryBatch", queue);
        }
        Object[] cutoff = sessions.inTransaction("reading the history cut-off of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("historyCutoff"), queue.value(), keep - 1);
                 ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Object[] {rs.getObject("finished_at", LocalDateTime.class), rs.getLong("id")} : null;
            }
        });
        if (cutoff == null) {
            return 0; // no more than keep rows
        }
        return inBatches("pruneHistoryBeforeBatch", queue, cutoff[0], cutoff[0], cutoff[1]);
    }

    /**
     * Runs a {@code DELETE TOP (?) ...} statement until it deletes fewer rows than the batch; its binds are
     * the batch size, the queue, then {@code more}.
     */
    private long inBatches(String statement, QueueName queue, Object... more) {
        Object[] binds = new Object[2 + more.length];
        binds[0] = SqlServerStatements.MAINTENANCE_BATCH;
        binds[1] = queue.value();
        System.arraycopy(more, 0, binds, 2, more.length);
        long total = 0;
        while (true) {
            long n = sessions.inTransaction(statement + " on queue '" + queue + "'",
                    c -> Jdbc.count(c, sql.get(statement), binds));
            total += n;
            if (n < SqlServerStatements.MAINTENANCE_BATCH) {
                return total;
            }
        }
    }

    List<QueueName> queues() {
        List<QueueName> out = sessions.inTransaction("listing queues", c -> {
            List<QueueName> names = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("listQueues")); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    try {
                        names.add(QueueName.of(rs.getString("name")));
                    } catch (dev.sqlqueue.InvalidInputException e) {
                        // a row written by other means than this library: listing the others matters more
                        LOG.warn("the queue table holds a row that is not a queue name, left out: {}", e.getMessage());
                    }
                }
            }
            return names;
        });
        out.sort(Comparator.comparing(QueueName::value));
        return out;
    }

    QueueStats stats(QueueName queue) {
        return sessions.inTransaction("reading stats of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("stats"), queue.value()); ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new QueueStats(queue, rs.getLong("ready"), rs.getLong("in_flight"), rs.getLong("delayed"),
                        rs.getLong("dead"), Math.max(0, rs.getLong("oldest_ms")), rs.getLong("processed"));
            }
        });
    }

    List<DeadLetter> deadLetters(QueueName queue, int limit) {
        return sessions.inTransaction("listing dead letters of queue '" + queue + "'", c -> {
            List<DeadLetter> out = new ArrayList<>();
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("listDeadLetters"), limit, queue.value());
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String raw = rs.getString("headers");
                    Map<String, String> headers = headersOrNone(raw);
                    out.add(new DeadLetter(rs.getLong("message_id"), queue, rs.getBytes("payload"), headers, raw,
                            rs.getInt("attempts"), rs.getString("reason"),
                            ClaimedRow.utc(rs.getObject("enqueued_at", LocalDateTime.class)),
                            ClaimedRow.utc(rs.getObject("dead_at", LocalDateTime.class))));
                }
            }
            return out;
        });
    }

    /** Dead letters with payload previews, oldest first ({@code listDeadLetterSummaries}). */
    List<DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return sessions.inTransaction("listing dead letters of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("listDeadLetterSummaries"), limit, queue.value())) {
                return summaries(ps, queue);
            }
        });
    }

    /** The dead letters of the queue among {@code ids}, with payload previews, oldest first. */
    List<DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> ids) {
        List<DeadLetterSummary> out = sessions.inTransaction("listing dead letters of queue '" + queue + "'", c -> {
            List<DeadLetterSummary> found = new ArrayList<>();
            for (Long id : ids) {
                try (PreparedStatement ps = Jdbc.prepare(c, sql.get("deadLetterSummaryById"), id, queue.value())) {
                    found.addAll(summaries(ps, queue));
                }
            }
            return found;
        });
        return out.stream().sorted(Comparator.comparing(DeadLetterSummary::deadAt).thenComparingLong(DeadLetterSummary::messageId))
                .toList();
    }

    private static List<DeadLetterSummary> summaries(PreparedStatement ps, QueueName queue) throws SQLException {
        List<DeadLetterSummary> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String raw = rs.getString("headers");
                Map<String, String> headers = headersOrNone(raw);
                out.add(new DeadLetterSummary(rs.getLong("message_id"), queue, rs.getBytes("payload_preview"),
                        rs.getLong("payload_bytes"), headers, raw, rs.getInt("attempts"), rs.getString("reason"),
                        ClaimedRow.utc(rs.getObject("enqueued_at", LocalDateTime.class)),
                        ClaimedRow.utc(rs.getObject("dead_at", LocalDateTime.class)), null));
            }
        }
        return out;
    }

    /**
     * Empty {@code ids}: every dead letter of the queue, in batches; else the listed ones, one transaction
     * per {@link SqlServerStatements#MAINTENANCE_BATCH} ids (so no transaction nears lock escalation).
     */
    long requeueDeadLetters(QueueName queue, List<Long> ids) {
        if (ids.isEmpty()) {
            return inBatches("requeueDeadLettersBatch", queue);
        }
        long total = 0;
        for (int from = 0; from < ids.size(); from += SqlServerStatements.MAINTENANCE_BATCH) {
            List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + SqlServerStatements.MAINTENANCE_BATCH));
            total += sessions.inTransaction("requeueing dead letters of queue '" + queue + "'", c -> {
                long n = 0;
                for (Long id : chunk) {
                    n += Jdbc.count(c, sql.get("requeueDeadLetter"), id, queue.value());
                }
                return n;
            });
        }
        return total;
    }

    List<HistoryEntry> history(QueueName queue, int limit) {
        return sessions.inTransaction("reading history of queue '" + queue + "'", c -> {
            List<HistoryEntry> out = new ArrayList<>();
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("listHistory"), limit, queue.value());
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new HistoryEntry(rs.getLong("message_id"), queue,
                            ClaimedRow.utc(rs.getObject("enqueued_at", LocalDateTime.class)),
                            ClaimedRow.utc(rs.getObject("started_at", LocalDateTime.class)),
                            ClaimedRow.utc(rs.getObject("finished_at", LocalDateTime.class)),
                            rs.getLong("duration_ms"), rs.getInt("attempts"), rs.getString("outcome"), rs.getString("detail"),
                            rs.getBytes("payload_preview")));
                }
            }
            return out;
        });
    }

    List<dev.sqlqueue.MessageSummary> messages(QueueName queue, dev.sqlqueue.MessageState state, long afterId, int limit) {
        String name = switch (state) {
            case READY -> "listReady";
            case DELAYED -> "listDelayed";
            case IN_FLIGHT -> "listInFlight";
        };
        return sessions.inTransaction("listing messages of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get(name), limit, queue.value(), afterId)) {
                return browsed(ps, queue);
            }
        });
    }

    java.util.Optional<dev.sqlqueue.MessageSummary> message(QueueName queue, long id) {
        return sessions.inTransaction("reading message " + id + " of queue '" + queue + "'", c -> {
            try (PreparedStatement ps = Jdbc.prepare(c, sql.get("messageById"), id, queue.value())) {
                return browsed(ps, queue).stream().findFirst();
            }
        });
    }

    private static List<dev.sqlqueue.MessageSummary> browsed(PreparedStatement ps, QueueName queue) throws SQLException {
        List<dev.sqlqueue.MessageSummary> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String raw = rs.getString("headers");
                Map<String, String> headers = headersOrNone(raw);
                long token = rs.getLong("lease_token");
                Long lease = rs.wasNull() ? null : token;
                java.time.Instant visible = ClaimedRow.utc(rs.getObject("visible_at", LocalDateTime.class));
                java.time.Instant now = ClaimedRow.utc(rs.getObject("now", LocalDateTime.class));
                LocalDateTime started = rs.getObject("started_at", LocalDateTime.class);
                dev.sqlqueue.MessageState state = !visible.isAfter(now) ? dev.sqlqueue.MessageState.READY
                        : lease == null ? dev.sqlqueue.MessageState.DELAYED : dev.sqlqueue.MessageState.IN_FLIGHT;
                out.add(new dev.sqlqueue.MessageSummary(rs.getLong("id"), queue, state, rs.getInt("priority"),
                        ClaimedRow.utc(rs.getObject("enqueued_at", LocalDateTime.class)), visible, rs.getInt("attempts"),
                        lease, started == null ? null : ClaimedRow.utc(started), headers, raw, rs.getBytes("payload_preview"),
                        rs.getLong("payload_bytes"), null, rs.getString("last_error"), now));
            }
        }
        return out;
    }

    /** The decoded headers of a row, or none when they cannot be decoded (the raw text is shown beside them). */
    private static Map<String, String> headersOrNone(String raw) {
        try {
            return HeaderCodec.decode(raw);
        } catch (HeaderCodec.MalformedHeadersException e) {
            return Map.of();
        }
    }
}
