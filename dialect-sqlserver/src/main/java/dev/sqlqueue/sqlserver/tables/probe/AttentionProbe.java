package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;

/**
 * Probe V7 (re-review P7, "what an attention does to the open transaction"): a transaction holds the queue row's
 * X lock ({@code probeHoldQueueRow}); then a statement that sets XACT_ABORT OFF (and, in a second transaction,
 * ON) in its own batch, as the backend's statements set it, waits ({@code WAITFOR DELAY '00:00:05'}) under a 1 s
 * JDBC query timeout, so mssql-jdbc sends an attention and throws {@link SQLTimeoutException}; then
 * {@code SELECT @@TRANCOUNT} tells whether the transaction is still open. Microsoft Learn does not say; third-party
 * sources (docs/backends/sqlserver.md, "Bounded waits") say it stays open with XACT_ABORT OFF and is rolled back
 * with ON. The backend relies on neither: it rolls back itself. Each transaction is rolled back afterwards; one
 * table set is created and dropped. A run whose statement was not ended by the time-out, or whose
 * {@code @@TRANCOUNT} could not be read, gives no verdict. Not thread-safe.
 */
final class AttentionProbe implements Probe {
    static final int QUERY_TIMEOUT_S = 1;
    private final ProbeTables.Migration migration;

    AttentionProbe() {
        this(SqlServerMigrator::migrate);
    }

    AttentionProbe(ProbeTables.Migration migration) {
        this.migration = migration;
    }

    @Override
    public String id() {
        return "V7";
    }

    @Override
    public String question() {
        return "Does a query time-out (attention) leave the open transaction open with XACT_ABORT OFF, and roll it back with"
                + " XACT_ABORT ON?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Bounded waits': not in Microsoft Learn; third-party sources say open with"
                + " XACT_ABORT OFF, rolled back with ON; the backend rolls back explicitly either way";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "at_", ClaimOrder.FIFO, Layout.CLUSTERED, migration)) {
            measure(context, t, "probeWaitXactAbortOff", "XACT_ABORT OFF", 1, obs);
            measure(context, t, "probeWaitXactAbortOn", "XACT_ABORT ON", 0, obs);
        }
        return obs.result();
    }

    /** One transaction: hold the row, wait past the query timeout, read @@TRANCOUNT; {@code expected} per the docs. */
    private static void measure(ProbeContext context, ProbeTables t, String waitStatement, String label, int expected,
                                ProbeObservations obs) throws SQLException {
        try (Connection c = context.connect()) {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeHoldQueueRow"), ProbeTables.QUEUE)) {
                    ps.executeUpdate();
                }
                Integer before = trancount(c, t, obs, label + ": @@TRANCOUNT before the wait");
                if (before == null) {
                    return;
                }
                long start = System.nanoTime();
                String ended;
                try (PreparedStatement ps = c.prepareStatement(t.sql.probe(waitStatement))) {
                    ps.setQueryTimeout(QUERY_TIMEOUT_S);
                    ps.execute();
                    ended = null;
                } catch (SQLTimeoutException e) {
                    ended = "ended by the " + QUERY_TIMEOUT_S + " s query timeout after " + elapsedMs(start) + " ms ("
                            + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
                } catch (SQLException e) {
                    obs.notMeasured(label + ": the wait failed after " + elapsedMs(start) + " ms with "
                            + ProbeObservations.describe(e) + ", not by the query timeout");
                    return;
                }
                if (ended == null) {
                    obs.notMeasured(label + ": the wait returned after " + elapsedMs(start) + " ms: the " + QUERY_TIMEOUT_S
                            + " s query timeout did not end it");
                    return;
                }
                Integer after = trancount(c, t, obs, label + ": @@TRANCOUNT after the attention");
                if (after == null) {
                    return;
                }
                String line = label + ": @@TRANCOUNT " + before + " before the wait; the wait " + ended + "; @@TRANCOUNT "
                        + after + " after: " + (after > 0 ? "the transaction was left open" : "the transaction was rolled back");
                if (before != 1) {
                    obs.notMeasured(line + " (no transaction was open before the wait)");
                } else {
                    obs.point(line, after == expected);
                }
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static Integer trancount(Connection c, ProbeTables t, ProbeObservations obs, String what) {
        try (PreparedStatement ps = c.prepareStatement(t.sql.probe("probeTrancount")); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("SELECT @@TRANCOUNT returned no row");
            }
            return rs.getInt(1);
        } catch (SQLException e) {
            obs.couldNotRead(what, e);
            return null;
        }
    }

    private static long elapsedMs(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
