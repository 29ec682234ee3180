package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The fault hooks the SQL Server conformance targets share (Testcontainers' SQL Server and Babelfish): killing a
 * case's sessions by their program name, writing a raw message row with the dialect's own statement, dropping a
 * prefix with the dialect's own {@code dropSchema}.
 */
final class SqlServerTestHooks {
    private SqlServerTestHooks() {
    }

    /** {@code KILL} every session whose program name is {@code app}, on {@code admin}; returns how many it found. */
    static int killSessions(Connection admin, String app) throws SQLException {
        List<Integer> ids = new ArrayList<>();
        try (PreparedStatement ps = admin.prepareStatement(
                "SELECT session_id FROM sys.dm_exec_sessions WHERE program_name = ? AND session_id <> @@SPID")) {
            ps.setString(1, app);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getInt(1));
                }
            }
        }
        try (Statement s = admin.createStatement()) {
            for (int id : ids) {
                try {
                    s.execute("KILL " + id);
                } catch (SQLException gone) {
                    // ended on its own in between
                }
            }
        }
        return ids.size();
    }

    /** Writes a message row with the dialect's own enqueue statement text, headers bound as given. */
    static void insertRawMessage(Connection c, String tablePrefix, QueueName queue, byte[] payload, String rawHeaders)
            throws SQLException {
        String sql = new SqlServerStatements(tablePrefix, "dbo", ClaimOrder.FIFO).get("enqueue");
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, 0);
            ps.setInt(2, 0);
            ps.setInt(3, 0);
            ps.setBytes(4, payload);
            ps.setNString(5, rawHeaders);
            ps.setNString(6, queue.value());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("raw insert found no queue '" + queue + "' under prefix " + tablePrefix);
                }
            }
        }
    }

    /** Drops every table of the prefix with the dialect's own {@code dropSchema} statement. */
    static void dropSchema(Connection c, String tablePrefix) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(new SqlServerStatements(tablePrefix, "dbo", ClaimOrder.FIFO).get("dropSchema"));
        }
    }
}
