package dev.sqlqueue.teradata.model;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.teradata.TeradataNames;
import dev.sqlqueue.teradata.TeradataStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The tables of queue {@code jobs} in database {@code qdb} on a fresh model, and plain JDBC steps on them, for the model's own tests. */
final class ModelTables {
    static final TeradataNames N = TeradataNames.of("sqlq_", "qdb", QueueName.of("jobs"));

    private ModelTables() {
    }

    /** A model with the queue, dead-letter and keys tables of {@link #N}. */
    static TeradataModel withQueue() throws SQLException {
        TeradataModel m = new TeradataModel("qdb");
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createQueueTable(N));
            st.execute(TeradataStatements.createDeadLetterTable(N));
            st.execute(TeradataStatements.createKeysTable(N, false));
        }
        return m;
    }

    /** Enqueues a row with these headers and a one-byte payload, in {@code c}'s transaction. */
    static void insert(Connection c, String headers) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(N), Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, headers);
            ps.setBytes(2, new byte[] {1});
            ps.executeUpdate();
        }
    }

    /** The queue's row count under an ACCESS lock (a dirty read). */
    static int depth(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.queueStats(N))) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
