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

/**
 * V1: what {@code getGeneratedKeys()} gives after an iterated INSERT of three rows and after one row, and
 * whether the keys of the batch come back in the order of its rows: each returned {@code seq} is read back
 * with its payload, whose one byte is the row's place in the batch (review N10: the backend assigns ids
 * by position).
 */
final class KeysProbe implements Probe {
    @Override
    public String id() {
        return "V1";
    }

    @Override
    public String question() {
        return "Does getGeneratedKeys() after a batch INSERT of 3 rows (RETURN_GENERATED_KEYS) give 3 keys, in the rows' order?";
    }

    @Override
    public String documented() {
        return "not documented for terajdbc; the backend expects one key per row in row order, and sends one row per request"
                + " when the count differs";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (c, n) -> {
            String batch;
            List<String> batchKeys = new ArrayList<>();
            String single;
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n), Statement.RETURN_GENERATED_KEYS)) {
                for (int i = 0; i < 3; i++) {
                    ps.setString(1, "");
                    ps.setBytes(2, new byte[] {(byte) i});
                    ps.addBatch();
                }
                ps.executeBatch();
                batch = keys(ps, batchKeys);
                ps.setString(1, "");
                ps.setBytes(2, new byte[] {9});
                ps.executeUpdate();
                single = keys(ps, new ArrayList<>());
            }
            List<Integer> markers = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.payloadOfSeq(n))) {
                for (String key : batchKeys) {
                    ps.setLong(1, Long.parseLong(key.trim()));
                    try (ResultSet rs = ps.executeQuery()) {
                        markers.add(rs.next() ? (int) rs.getBytes(2)[0] : -1);
                    }
                }
            } catch (NumberFormatException e) {
                markers.add(-2);
            }
            c.rollback();
            String observed = "batch of 3: " + batch + ", their rows' places in the batch " + markers + "; single executeUpdate: "
                    + single;
            if (batchKeys.size() != 3) {
                return ProbeResult.differs(observed + " (the backend will fall back to one row per request)");
            }
            return markers.equals(List.of(0, 1, 2)) ? ProbeResult.asDocumented(observed)
                    : ProbeResult.differs(observed + " (the keys are not in row order: the backend would give messages wrong ids)");
        });
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
