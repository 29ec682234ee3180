package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The dead-letter table: list, requeue (send again with the original id and enqueue time, attempts
 * reset, in one transaction with the delete, at most {@value #PAGE} per transaction), purge. Thread-safe.
 */
public final class DeadLetterStore {
    private final DataSource ds;
    private final BrokerStatements sql;
    private final BrokerSender sender;

    /**
     * A store for one prefix.
     *
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param sender the sender that sends requeued messages again
     */
    public DeadLetterStore(DataSource ds, BrokerStatements sql, BrokerSender sender) {
        this.ds = ds;
        this.sql = sql;
        this.sender = sender;
    }

    /**
     * The queue's dead letters, oldest first, payloads whole.
     *
     * @param q the queue whose dead letters are read or changed
     * @param limit the most dead letters returned, 1 or more
     * @return up to {@code limit} dead letters
     * @throws SQLException if the read fails
     */
    public List<DeadLetter> list(QueueName q, int limit) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return list(c, q, limit);
        }
    }

    private List<DeadLetter> list(Connection c, QueueName q, int limit) throws SQLException {
        List<DeadLetter> out = new ArrayList<>();
        for (Object[] r : Sql.query(c, sql.deadLetters().listDeadLetters(), limit, q.value())) {
            String raw = String.valueOf(r[3]);
            Map<String, String> headers;
            try {
                headers = HeaderCodec.decode(raw);
            } catch (HeaderCodec.MalformedHeadersException e) {
                headers = Map.of();
            }
            out.add(new DeadLetter(Sql.asLong(r[1]), q, (byte[]) r[2], headers, raw, (int) Sql.asLong(r[4]),
                    String.valueOf(r[5]), r[6] == null ? null : Instant.ofEpochMilli(Sql.asLong(r[6])),
                    Instant.ofEpochMilli(Sql.asLong(r[7])), r[8] == null ? null : String.valueOf(r[8])));
        }
        return out;
    }

    /**
     * Dead letters with payload previews, oldest first ({@link DeadLetterStatements#listDeadLetterSummaries}).
     *
     * @param q the queue whose dead letters are read or changed
     * @param limit the most rows returned, 1 or more
     * @return up to {@code limit} summaries, oldest first
     * @throws SQLException if the read fails
     */
    public List<dev.sqlqueue.DeadLetterSummary> summaries(QueueName q, int limit) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return toSummaries(q, Sql.query(c, sql.deadLetters().listDeadLetterSummaries(), limit, q.value()));
        }
    }

    /**
     * The queue's dead letters among {@code ids}, with payload previews, oldest first, {@value #PAGE} ids per statement.
     *
     * @param q the queue whose dead letters are read or changed
     * @param ids message ids of the queue's dead letters; ids that are none are skipped
     * @return the queue's dead letters among {@code ids}, with payload previews, oldest first, {@value #PAGE} ids per statement
     * @throws SQLException if a read fails
     */
    public List<dev.sqlqueue.DeadLetterSummary> summaries(QueueName q, List<Long> ids) throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            for (int from = 0; from < ids.size(); from += PAGE) {
                List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + PAGE));
                Object[] params = new Object[chunk.size() + 1];
                params[0] = q.value();
                for (int i = 0; i < chunk.size(); i++) {
                    params[i + 1] = chunk.get(i);
                }
                rows.addAll(Sql.query(c, sql.deadLetters().deadLetterSummariesByIds(chunk.size()), params));
            }
        }
        rows.sort(java.util.Comparator.comparingLong(r -> Sql.asLong(r[0])));
        return toSummaries(q, rows);
    }

    private static List<dev.sqlqueue.DeadLetterSummary> toSummaries(QueueName q, List<Object[]> rows) {
        List<dev.sqlqueue.DeadLetterSummary> out = new ArrayList<>();
        for (Object[] r : rows) {
            String raw = String.valueOf(r[3]);
            Map<String, String> headers;
            try {
                headers = HeaderCodec.decode(raw);
            } catch (HeaderCodec.MalformedHeadersException e) {
                headers = Map.of();
            }
            out.add(new dev.sqlqueue.DeadLetterSummary(Sql.asLong(r[1]), q, (byte[]) r[2], Sql.asLong(r[9]), headers, raw,
                    (int) Sql.asLong(r[4]), String.valueOf(r[5]), r[6] == null ? null : Instant.ofEpochMilli(Sql.asLong(r[6])),
                    Instant.ofEpochMilli(Sql.asLong(r[7])), r[8] == null ? null : String.valueOf(r[8])));
        }
        return out;
    }

    /** Dead letters requeued per transaction at most. */
    static final int PAGE = 500;

    /**
     * Requeues the given message ids (empty = all present now); returns how many. Given ids are selected by
     * id; "all" goes page by page in dead_id order up to the highest dead_id at the start (a message that
     * fails again meanwhile is not requeued twice). At most {@value #PAGE} messages per transaction, each
     * sent again (same id, enqueue time and group) and deleted in it (re-review N12: the whole table with its
     * payloads was read into memory and requeued in one transaction).
     *
     * @param q the queue whose dead letters are read or changed
     * @param ids message ids of the queue's dead letters; ids that are none are skipped
     * @return how many dead letters were requeued
     * @throws SQLException if a read, send or delete fails; the transaction of the current page is rolled back
     */
    public long requeue(QueueName q, List<Long> ids) throws SQLException {
        long n = 0;
        if (!ids.isEmpty()) {
            List<Long> distinct = ids.stream().distinct().toList();
            for (int from = 0; from < distinct.size(); from += PAGE) {
                List<Long> page = distinct.subList(from, Math.min(distinct.size(), from + PAGE));
                List<Object> params = new ArrayList<>();
                params.add(q.value());
                params.addAll(page);
                n += requeuePage(q, sql.deadLetters().deadLettersByIds(page.size()), params.toArray()).size();
            }
            return n;
        }
        long last;
        try (Connection c = ds.getConnection()) {
            List<Object[]> r = Sql.query(c, sql.deadLetters().lastDeadId(), q.value());
            if (r.isEmpty() || r.get(0)[0] == null) {
                return 0;
            }
            last = Sql.asLong(r.get(0)[0]);
        }
        long after = 0;
        while (true) {
            List<Long> done = requeuePage(q, sql.deadLetters().deadLetterPage(), PAGE, q.value(), after, last);
            n += done.size();
            if (done.size() < PAGE) {
                return n;
            }
            after = done.get(done.size() - 1);
        }
    }

    /** One transaction: the rows the statement selects are sent again and deleted. Returns their dead_ids. */
    private List<Long> requeuePage(QueueName q, String select, Object... params) throws SQLException {
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            Sql.begin(c);
            BrokerSender.Resend resend = sender.resender(c, q);
            boolean committed = false;
            boolean restore = true;
            try {
                List<Long> done = new ArrayList<>();
                for (Object[] r : Sql.query(c, select, params)) {
                    long id = Sql.asLong(r[1]);
                    long enq = r[6] == null ? Sql.asLong(r[7]) : Sql.asLong(r[6]);
                    Envelope env = new Envelope(id, enq, String.valueOf(r[3]), r[8] == null ? null : String.valueOf(r[8]),
                            (byte[]) r[2]);
                    resend.send(env);
                    Sql.update(c, sql.deadLetters().deleteDeadLetter(), Sql.asLong(r[0]));
                    Sql.update(c, sql.claims().clearAttempts(), q.value(), id);
                    done.add(Sql.asLong(r[0]));
                }
                c.commit();
                committed = true;
                return done;
            } catch (SQLException | RuntimeException e) {
                restore = BrokerConnections.rollback(c, e);
                throw e;
            } finally {
                resend.end(committed);
                if (restore) {
                    BrokerConnections.restore(c, auto);
                }
            }
        }
    }

    /**
     * Deletes every dead letter of the queue.
     *
     * @param q the queue whose dead letters are read or changed
     * @return how many were deleted
     * @throws SQLException if the delete fails
     */
    public long purge(QueueName q) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return Sql.update(c, sql.deadLetters().purgeDeadLetters(), q.value());
        }
    }
}
