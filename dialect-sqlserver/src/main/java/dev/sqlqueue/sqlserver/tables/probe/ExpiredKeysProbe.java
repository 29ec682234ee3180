package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Probe V9 (re-review P7, "READPAST without READCOMMITTEDLOCK under READ_COMMITTED_SNAPSHOT"): the backend's
 * {@code deleteExpiredKeysBatch} ({@code DELETE TOP (500) ... WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)}) runs on
 * its own session at READ COMMITTED. "Table hints (Transact-SQL)", READPAST: under {@code READ_COMMITTED_SNAPSHOT
 * ON} at READ COMMITTED the hint is refused unless READCOMMITTEDLOCK is also given. On {@value #KEYS} expired keys
 * of the probe's tables, in a transaction at READ COMMITTED as the backend runs it: does the statement run, and
 * how many keys does it delete? For comparison (no verdict) the same statement without READCOMMITTEDLOCK. The
 * answer needs a database with {@code READ_COMMITTED_SNAPSHOT ON}; elsewhere the run is reported without a verdict.
 * Creates and drops one table set; not thread-safe.
 */
final class ExpiredKeysProbe implements Probe {
    static final int KEYS = 10;
    private final ProbeTables.Migration migration;

    ExpiredKeysProbe() {
        this(SqlServerMigrator::migrate);
    }

    ExpiredKeysProbe(ProbeTables.Migration migration) {
        this.migration = migration;
    }

    @Override
    public String id() {
        return "V9";
    }

    @Override
    public String question() {
        return "Under READ_COMMITTED_SNAPSHOT ON, is the expired-key clean-up's READPAST (with READCOMMITTEDLOCK) accepted at"
                + " READ COMMITTED, and does it delete the expired keys?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Deduplication keys': deleteExpiredKeysBatch, DELETE TOP (500) WITH (ROWLOCK,"
                + " READPAST, READCOMMITTEDLOCK) on the backend's own READ COMMITTED session; READCOMMITTEDLOCK makes READPAST"
                + " legal under RCSI (\"Table hints\")";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "ek_", ClaimOrder.FIFO, Layout.CLUSTERED, migration);
             Connection c = context.connect()) {
            Boolean rcsi = null;
            try (PreparedStatement ps = c.prepareStatement(t.sql.probe("probeDatabaseVersioning")); ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    rcsi = rs.getBoolean("is_read_committed_snapshot_on");
                    obs.info("this database: READ_COMMITTED_SNAPSHOT " + (rcsi ? "ON" : "OFF") + ", ALLOW_SNAPSHOT_ISOLATION state "
                            + rs.getInt("snapshot_isolation_state"));
                }
            } catch (SQLException e) {
                obs.couldNotRead("whether READ_COMMITTED_SNAPSHOT is ON (sys.databases)", e);
            }
            String withHint = delete(c, t, t.sql.get("deleteExpiredKeysBatch"));
            String withoutHint = delete(c, t, t.sql.probe("probeExpiredKeysWithoutLockHint"));
            String line = "deleteExpiredKeysBatch at READ COMMITTED: " + withHint;
            boolean ran = withHint.startsWith("ran");
            if (rcsi == null) {
                obs.notMeasured(line + " (RCSI state unknown)");
            } else if (!rcsi) {
                obs.notMeasured(line + " (READ_COMMITTED_SNAPSHOT is OFF here: the question needs a database where it is ON)");
            } else {
                obs.point(line, ran && withHint.equals("ran, deleted " + KEYS + " of " + KEYS + " expired keys"));
            }
            obs.info("for comparison, the same without READCOMMITTEDLOCK: " + withoutHint);
        }
        return obs.result();
    }

    /** Insert {@value #KEYS} expired keys, run {@code delete} in a READ COMMITTED transaction, commit; what happened. */
    private static String delete(Connection c, ProbeTables t, String delete) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeExpiredKeys"), ProbeTables.QUEUE, KEYS)) {
            ps.execute();
        }
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        try {
            long n = Jdbc.count(c, delete, SqlServerStatements.MAINTENANCE_BATCH);
            c.commit();
            return "ran, deleted " + n + " of " + KEYS + " expired keys";
        } catch (SQLException e) {
            c.rollback();
            return "refused with " + ProbeObservations.describe(e);
        } finally {
            c.setAutoCommit(true);
            try (PreparedStatement ps = Jdbc.prepare(c, t.sql.get("purgeKeysBatch"), SqlServerStatements.MAINTENANCE_BATCH,
                    ProbeTables.QUEUE)) {
                ps.execute();
            }
        }
    }
}
