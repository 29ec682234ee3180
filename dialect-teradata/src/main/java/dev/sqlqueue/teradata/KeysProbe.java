package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** V1: what {@code getGeneratedKeys()} gives after an iterated INSERT of three rows and after one row. */
final class KeysProbe implements Probe {
    @Override
    public String id() {
        return "V1";
    }

    @Override
    public String question() {
        return "Does getGeneratedKeys() after a batch INSERT of 3 rows (RETURN_GENERATED_KEYS) give 3 keys?";
    }

    @Override
    public String documented() {
        return "not documented for terajdbc; the backend expects one key per row and otherwise sends one row per request";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        Connection c = null;
        TeradataNames n = null;
        try {
            c = TeradataProbes.connect(context);
            n = TeradataProbes.names(context, c);
            TeradataProbes.createQueueTable(c, n);
            String batch;
            int batchKeys;
            String single;
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n), Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < 3; i++) {
                    ps.setString(1, "");
                    ps.setBytes(2, new byte[] {(byte) i});
                    ps.addBatch();
                }
                ps.executeBatch();
                List<String> rows = new ArrayList<>();
                batch = keys(ps, rows);
                batchKeys = rows.size();
                ps.setString(1, "");
                ps.setBytes(2, new byte[] {9});
                ps.executeUpdate();
                single = keys(ps, new ArrayList<>());
            }
            c.rollback();
            String observed = "batch of 3: " + batch + "; single executeUpdate: " + single;
            return batchKeys == 3 ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed
                    + " (the backend will fall back to one row per request)");
        } finally {
            TeradataProbes.dropQuietly(c, n);
            if (c != null) {
                c.close();
            }
        }
    }

    private static String keys(PreparedStatement ps, List<String> rows) throws SQLException {
        try (ResultSet rs = ps.getGeneratedKeys()) {
            if (rs == null) {
                return "no key result";
            }
            ResultSetMetaData md = rs.getMetaData();
            List<String> labels = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                labels.add(md.getColumnLabel(i));
            }
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
            return rows.size() + " row(s) " + rows + ", columns " + labels;
        }
    }
}
