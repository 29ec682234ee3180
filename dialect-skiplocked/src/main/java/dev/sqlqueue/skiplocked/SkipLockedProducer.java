package dev.sqlqueue.skiplocked;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Enqueue on the SKIP LOCKED backend: on its pool or in a caller's transaction. Thread-safe. */
final class SkipLockedProducer {
    private final SkipLockedDialect dialect;
    private final SkipLockedStatements sql;
    private final Transactions tx;
    private final SkipLockedAdmin admin;

    SkipLockedProducer(SkipLockedDialect dialect, SkipLockedStatements sql, Transactions tx, SkipLockedAdmin admin) {
        this.dialect = dialect;
        this.sql = sql;
        this.tx = tx;
        this.admin = admin;
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
        ensureKnown(queue);
        return inTransaction("enqueue", c -> insert(c, queue, messages));
    }

    long enqueue(Connection connection, QueueName queue, Message message) {
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
        try (PreparedStatement ps = dialect == SkipLockedDialect.POSTGRES
                ? c.prepareStatement(sql.insert, new String[] {"id"})
                : c.prepareStatement(sql.insert, Statement.RETURN_GENERATED_KEYS)) {
            for (Message m : messages) {
                ps.setString(1, queue.value());
                ps.setInt(2, m.priority());
                ps.setLong(3, m.delay().toMillis());
                ps.setString(4, HeaderCodec.encode(m.headers()));
                ps.setBytes(5, m.payloadUnsafe());
                ps.setString(6, m.group());
                if (messages.size() == 1) {
                    ps.executeUpdate();
                } else {
                    ps.addBatch();
                }
            }
            if (messages.size() > 1) {
                ps.executeBatch();
            }
            try (ResultSet keys = ps.getGeneratedKeys()) {
                while (keys.next()) {
                    ids.add(keys.getLong(1));
                }
            }
        }
        if (ids.size() != messages.size()) {
            throw new SqlQueueException("the driver returned " + ids.size() + " generated ids for " + messages.size() + " rows");
        }
        if (sql.notify != null) {
            try (PreparedStatement ps = c.prepareStatement(sql.notify)) {
                ps.setString(1, sql.channel);
                ps.setString(2, queue.value());
                ps.executeQuery().close();
            }
        }
        return ids;
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
