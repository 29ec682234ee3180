package dev.sqlqueue.sqlserver.model;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** JDBC calls the model tests share: run a batch as an RPC or a plain batch, read its first value. */
final class ModelCalls {
    private ModelCalls() {
    }

    /** A connection with auto-commit off (implicit transactions on). */
    static Connection tx(SqlServerModel model) throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        return c;
    }

    /** Executes as a PreparedStatement (an RPC) and reads every result, so that errors of later statements surface. */
    static void exec(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            ps.execute();
            while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
                // drain
            }
        }
    }

    /** Executes as a plain batch (its SET options stay on the session). */
    static void plain(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** The first column of every row of the first result set. */
    static List<Object> column(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            List<Object> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1));
                }
            }
            return out;
        }
    }
}
