package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * V9 (re-review section 4, item 4): error 2801 in a transaction that made an INSERT before it, in ANSI mode
 * (the URL as given) and in Teradata mode (the URL with {@code TMODE=TERA}); after COMMIT, is the earlier
 * INSERT there? This is why the backend takes deduplication keys with a MERGE, which raises no error.
 */
final class SessionModeProbe implements Probe {
    /** Opens a connection in Teradata mode with auto-commit off, or returns null when it cannot. */
    interface TeradataModeConnector {
        Connection connect(ProbeContext context) throws SQLException;
    }

    private final TeradataModeConnector teradataMode;

    SessionModeProbe() {
        this(TeradataProbes::connectTeradataMode);
    }

    SessionModeProbe(TeradataModeConnector teradataMode) {
        this.teradataMode = teradataMode;
    }

    @Override
    public String id() {
        return "V9";
    }

    @Override
    public String question() {
        return "Does error 2801 undo only its request in ANSI mode, and the whole transaction in Teradata mode?";
    }

    @Override
    public String documented() {
        return "ANSI: only the request (ANSI Mode Transactions); Teradata mode: the whole transaction (Transaction"
                + " Processing in Teradata Session Mode)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, true, (admin, n) -> {
            insertKey(admin, n);
            admin.commit();
            Boolean ansi;
            String ansiRaw;
            try (Connection c = TeradataProbes.connect(context)) {
                String[] r = once(admin, c, n);
                ansi = r[0] == null ? null : r[0].equals("kept");
                ansiRaw = r[1];
            }
            Boolean tera = null;
            String teraRaw;
            Connection c = teradataMode.connect(context);
            if (c == null) {
                teraRaw = "not tried: the probe has no JDBC URL to set TMODE=TERA on";
            } else {
                try (c) {
                    String[] r = once(admin, c, n);
                    tera = r[0] == null ? null : r[0].equals("kept");
                    teraRaw = r[1];
                }
            }
            String observed = "ANSI: " + ansiRaw + "; Teradata mode: " + teraRaw;
            if (ansi == null || (c != null && tera == null)) {
                return ProbeResult.inconclusive(observed);
            }
            boolean ok = ansi && (tera == null || !tera);
            return ok ? (tera == null ? ProbeResult.inconclusive(observed) : ProbeResult.asDocumented(observed))
                    : ProbeResult.differs(observed);
        });
    }

    /** [kept|gone|null, raw]: an INSERT, then the INSERT of a taken key, then COMMIT; is the first INSERT there? */
    private static String[] once(Connection admin, Connection c, TeradataNames n) throws SQLException {
        long before = TeradataProbes.count(admin, TeradataStatements.queueStats(n));
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n))) {
            ps.setString(1, "");
            ps.setBytes(2, new byte[] {1});
            ps.executeUpdate();
        }
        String error;
        int code = 0;
        try {
            insertKey(c, n);
            error = "no error";
        } catch (SQLException e) {
            error = TeradataProbes.describe((Throwable) e);
            code = e.getErrorCode();
        }
        try {
            c.commit();
        } catch (SQLException e) {
            error += "; COMMIT failed: " + TeradataProbes.describe(e);
        }
        long after = TeradataProbes.count(admin, TeradataStatements.queueStats(n));
        String fate = after > before ? "kept" : "gone";
        String raw = "the INSERT of a taken key: " + error + "; the transaction's earlier INSERT after COMMIT: " + fate;
        return new String[] {code == TeradataErrors.DUPLICATE_UNIQUE_KEY ? fate : null, raw};
    }

    private static void insertKey(Connection c, TeradataNames n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertKeyPlainly(n))) {
            ps.setString(1, KeyedEnqueue.stored("probe"));
            ps.executeUpdate();
        }
    }
}
