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
 * reset, in one transaction with the delete), purge. Thread-safe.
 */
public final class DeadLetterStore {
    private final DataSource ds;
    private final BrokerStatements sql;
    private final BrokerSender sender;

    public DeadLetterStore(DataSource ds, BrokerStatements sql, BrokerSender sender) {
        this.ds = ds;
        this.sql = sql;
        this.sender = sender;
    }

    public List<DeadLetter> list(QueueName q, int limit) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return list(c, q, limit);
        }
    }

    private List<DeadLetter> list(Connection c, QueueName q, int limit) throws SQLException {
        List<DeadLetter> out = new ArrayList<>();
        for (Object[] r : Sql.query(c, sql.listDeadLetters(), limit, q.value())) {
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

    /** Requeues the given ids (empty = all); returns how many. */
    public long requeue(QueueName q, List<Long> ids) throws SQLException {
        try (Connection c = ds.getConnection()) {
            boolean auto = c.getAutoCommit();
            Sql.begin(c);
            BrokerSender.Resend resend = sender.resender(c, q);
            boolean committed = false;
            try {
                long n = 0;
                for (Object[] r : Sql.query(c, sql.listDeadLetters(), 100_000, q.value())) {
                    long id = Sql.asLong(r[1]);
                    if (!ids.isEmpty() && !ids.contains(id)) {
                        continue;
                    }
                    long enq = r[6] == null ? Sql.asLong(r[7]) : Sql.asLong(r[6]);
                    Envelope env = new Envelope(id, enq, String.valueOf(r[3]), r[8] == null ? null : String.valueOf(r[8]),
                            (byte[]) r[2]);
                    resend.send(env);
                    Sql.update(c, sql.deleteDeadLetter(), Sql.asLong(r[0]));
                    Sql.update(c, sql.clearAttempts(), q.value(), id);
                    n++;
                }
                c.commit();
                committed = true;
                return n;
            } catch (SQLException | RuntimeException e) {
                BrokerConnections.rollback(c, e);
                throw e;
            } finally {
                resend.end(committed);
                BrokerConnections.restore(c, auto);
            }
        }
    }

    public long purge(QueueName q) throws SQLException {
        try (Connection c = ds.getConnection()) {
            return Sql.update(c, sql.purgeDeadLetters(), q.value());
        }
    }
}
