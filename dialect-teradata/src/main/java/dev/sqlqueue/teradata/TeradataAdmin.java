package dev.sqlqueue.teradata;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * Administration of the queue and dead-letter tables. DDL runs alone in its transaction (ANSI mode wants
 * DDL last before COMMIT), after a look in {@code DBC.TablesV}; a concurrent create (3803) or drop
 * (3807) is taken as done. Counts are read under ACCESS locks, so they never wait for open claims and
 * are dirty reads. Thread-safe.
 */
final class TeradataAdmin {
    private final Sessions sessions;
    private final String prefix;
    private final String database;

    private final boolean fallback;

    TeradataAdmin(Sessions sessions, String prefix, String database, boolean fallback) {
        this.sessions = sessions;
        this.prefix = prefix;
        this.database = database;
        this.fallback = fallback;
    }

    /** Creates the missing tables of a queue (a queue of an older version gets its keys table here). */
    void createQueue(TeradataNames n) {
        sessions.run("create queue '" + n.queue() + "'", s -> {
            ddlUnlessPresent(s.connection(), n.queueTableName(), TeradataStatements.createQueueTable(n, fallback), true);
            ddlUnlessPresent(s.connection(), n.deadLetterTableName(), TeradataStatements.createDeadLetterTable(n, fallback), true);
            ddlUnlessPresent(s.connection(), n.keysTableName(), TeradataStatements.createKeysTable(n, fallback), true);
            return null;
        });
    }

    /** Drops the tables of a queue that exist. */
    void dropQueue(TeradataNames n) {
        sessions.run("drop queue '" + n.queue() + "'", s -> {
            ddlUnlessPresent(s.connection(), n.queueTableName(), TeradataStatements.dropTable(n.queueTable()), false);
            ddlUnlessPresent(s.connection(), n.deadLetterTableName(), TeradataStatements.dropTable(n.deadLetterTable()), false);
            ddlUnlessPresent(s.connection(), n.keysTableName(), TeradataStatements.dropTable(n.keysTable()), false);
            return null;
        });
    }

    private void ddlUnlessPresent(Connection c, String table, String ddl, boolean create) throws SQLException {
        boolean exists = exists(c, table);
        c.commit();
        if (exists == create) {
            return;
        }
        try (Statement st = c.createStatement()) {
            st.execute(ddl);
            c.commit();
        } catch (SQLException e) {
            if (e.getErrorCode() != (create ? TeradataErrors.TABLE_EXISTS : TeradataErrors.NO_SUCH_OBJECT)) {
                throw e;
            }
            c.rollback();
        }
    }

    private boolean exists(Connection c, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.tableExists())) {
            ps.setString(1, database);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Queues under the prefix: tables named {@code <prefix><valid queue name>}, sorted by name. */
    List<QueueName> queues() {
        List<QueueName> out = new ArrayList<>();
        for (String t : tables()) {
            queueOf(t).ifPresent(out::add);
        }
        out.sort((a, b) -> a.value().compareTo(b.value()));
        return out;
    }

    /**
     * Drops every table of this prefix that belongs to a queue: {@code <prefix><queue>} and
     * {@code <prefix><queue>$dl}, also a dead-letter table whose queue table is gone.
     */
    void dropAll() {
        Set<QueueName> all = new LinkedHashSet<>();
        for (String t : tables()) {
            String base = t.endsWith(TeradataNames.DEAD_LETTER_SUFFIX) || t.endsWith(TeradataNames.KEYS_SUFFIX)
                    ? t.substring(0, t.length() - TeradataNames.DEAD_LETTER_SUFFIX.length()) : t;
            queueOf(base).ifPresent(all::add);
        }
        for (QueueName q : all) {
            dropQueue(TeradataNames.of(prefix, database, q));
        }
    }

    private List<String> tables() {
        return sessions.run("list tables", s -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = s.connection().prepareStatement(TeradataStatements.listTables())) {
                ps.setString(1, database);
                ps.setString(2, prefix.replace("\\", "\\\\").replace("_", "\\_").replace("%", "\\%") + "%");
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1) == null ? "" : rs.getString(1).trim());
                    }
                }
            }
            s.connection().commit();
            return out;
        });
    }

    private Optional<QueueName> queueOf(String table) {
        if (!table.toLowerCase(Locale.ROOT).startsWith(prefix) || table.contains("$")) {
            return Optional.empty();
        }
        try {
            return Optional.of(QueueName.of(table.substring(prefix.length())));
        } catch (InvalidInputException e) {
            return Optional.empty();
        }
    }

    /** [ready rows, oldest age in ms by the database clock, dead letters]. */
    long[] counts(TeradataNames n) {
        return sessions.run("statistics of '" + n.queue() + "'", s -> {
            long[] out = new long[3];
            try (Statement st = s.connection().createStatement()) {
                try (ResultSet rs = st.executeQuery(TeradataStatements.queueStats(n))) {
                    rs.next();
                    out[0] = rs.getLong(1);
                    LocalDateTime oldest = JdbcTime.get(rs, 2);
                    LocalDateTime now = JdbcTime.get(rs, 3);
                    out[1] = oldest == null ? 0 : Math.max(0, Duration.between(oldest, now).toMillis());
                }
                try (ResultSet rs = st.executeQuery(TeradataStatements.deadLetterCount(n))) {
                    rs.next();
                    out[2] = rs.getLong(1);
                }
            }
            s.connection().commit();
            return out;
        });
    }

    /** Deletes every message of the queue; returns how many. */
    long purge(TeradataNames n) {
        return update("purge '" + n.queue() + "'", TeradataStatements.purge(n));
    }

    /** Deletes every dead letter of the queue; returns how many. */
    long purgeDeadLetters(TeradataNames n) {
        return update("purge dead letters of '" + n.queue() + "'", TeradataStatements.purgeDeadLetters(n));
    }

    private long update(String what, String sql) {
        return sessions.run(what, s -> {
            long count;
            try (Statement st = s.connection().createStatement()) {
                count = st.executeUpdate(sql);
            }
            s.connection().commit();
            return count;
        });
    }

    List<DeadLetter> deadLetters(TeradataNames n, int limit) {
        return sessions.run("list dead letters of '" + n.queue() + "'", s -> {
            List<DeadLetter> out = new ArrayList<>();
            try (Statement st = s.connection().createStatement();
                 ResultSet rs = st.executeQuery(TeradataStatements.listDeadLetters(n, limit))) {
                while (rs.next()) {
                    String raw = rs.getString(6);
                    byte[] payload = rs.getBytes(7);
                    out.add(new DeadLetter(rs.getLong(1), n.queue(), payload == null ? new byte[0] : payload, decodeOrEmpty(raw),
                            raw, rs.getInt(2), rs.getString(3), JdbcTime.instant(JdbcTime.get(rs, 4)), JdbcTime.instant(JdbcTime.get(rs, 5))));
                }
            }
            s.connection().commit();
            return out;
        });
    }

    private static Map<String, String> decodeOrEmpty(String raw) {
        try {
            return HeaderCodec.decode(raw);
        } catch (HeaderCodec.MalformedHeadersException e) {
            return Map.of();
        }
    }

    /** Dead letters moved back per transaction. */
    static final int REQUEUE_CHUNK = 100;

    /**
     * Moves dead letters back, {@value #REQUEUE_CHUNK} ids per transaction: per id a read of the dead
     * letter by primary index, a single-row INSERT into the queue table and a DELETE by primary index, so
     * only row-hash locks are taken and consumers and producers of the queue never wait for the requeue
     * (SQL Request and Transaction Processing, "DML Requests and Locks"; review finding 3). A dead-letter
     * table created before {@code msg_id} became its primary index still works, with table locks on it.
     *
     * @return how many dead letters were moved; ids not found are skipped
     */
    long requeue(TeradataNames n, List<Long> ids) {
        List<Long> todo = ids.isEmpty()
                ? sessions.run("list dead letters of '" + n.queue() + "'", s -> {
                    List<Long> all = allIds(s.connection(), n);
                    s.connection().commit();
                    return all;
                })
                : ids;
        long moved = 0;
        for (int from = 0; from < todo.size(); from += REQUEUE_CHUNK) {
            List<Long> chunk = todo.subList(from, Math.min(todo.size(), from + REQUEUE_CHUNK));
            moved += sessions.run("requeue dead letters of '" + n.queue() + "'", s -> {
                long count = requeueChunk(s.connection(), n, chunk);
                s.connection().commit();
                return count;
            });
        }
        return moved;
    }

    private static long requeueChunk(Connection c, TeradataNames n, List<Long> ids) throws SQLException {
        long moved = 0;
        try (PreparedStatement read = c.prepareStatement(TeradataStatements.selectDeadLetter(n));
             PreparedStatement in = c.prepareStatement(TeradataStatements.requeueDeadLetter(n));
             PreparedStatement del = c.prepareStatement(TeradataStatements.deleteDeadLetter(n))) {
            for (long id : ids) {
                read.setLong(1, id);
                int rows = 0;
                try (ResultSet rs = read.executeQuery()) {
                    while (rs.next()) {
                        in.setLong(1, rs.getLong(1));
                        JdbcTime.set(in, 2, JdbcTime.get(rs, 2));
                        in.setString(3, rs.getString(3));
                        byte[] payload = rs.getBytes(4);
                        in.setBytes(4, payload == null ? new byte[0] : payload);
                        in.executeUpdate();
                        rows++;
                    }
                }
                if (rows > 0) {
                    del.setLong(1, id);
                    del.executeUpdate();
                    moved += rows;
                }
            }
        }
        return moved;
    }

    private static List<Long> allIds(Connection c, TeradataNames n) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.listDeadLetterIds(n))) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
