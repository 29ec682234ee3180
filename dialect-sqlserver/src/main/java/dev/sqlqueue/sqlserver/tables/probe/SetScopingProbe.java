package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Backoff;
import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.Sessions;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Probe V2 (review, "SET scoping under sp_prepexec/sp_execute", findings 1 and 9, re-review P1): after the
 * claim statement ran three times on one PreparedStatement (mssql-jdbc: sp_executesql, then sp_prepexec, then
 * sp_execute by default), are {@code NOCOUNT} (@@OPTIONS 512) and {@code XACT_ABORT} (16384) back as they were,
 * and is the session's isolation level back, for each driver setting? The claim sets {@code SET TRANSACTION
 * ISOLATION LEVEL READ COMMITTED} in its own batch; a session already at READ COMMITTED could not show whether
 * that outlives the batch, so each session is first put at SERIALIZABLE (4) by a plain batch, whose SET stays
 * on the session ("SET TRANSACTION ISOLATION LEVEL": it remains set for the connection until changed), and
 * must read 4 again after the claims. A server that refuses SERIALIZABLE (Babelfish) gets READ UNCOMMITTED (1)
 * instead, said so in the output. The same after the backend's own {@link Sessions} ran a claim on a
 * connection with {@code prepareMethod=none} whose level the driver does not know (review finding 9's case).
 * The raw {@code prepareMethod=none} setting is printed without a verdict (see {@link #report}). A value that could
 * not be read gives no verdict for that setting. Creates and drops one table set; not thread-safe.
 */
final class SetScopingProbe implements Probe {
    static final int NOCOUNT = 512;
    static final int XACT_ABORT = 16384;
    /** {@code sys.dm_exec_sessions.transaction_isolation_level} values. */
    static final int READ_UNCOMMITTED = 1;
    static final int READ_COMMITTED = 2;
    static final int SERIALIZABLE = 4;
    private final ProbeTables.Migration migration;

    SetScopingProbe() {
        this(SqlServerMigrator::migrate);
    }

    SetScopingProbe(ProbeTables.Migration migration) {
        this.migration = migration;
    }

    /** One driver setting, applied to a fresh connection. */
    private interface Setting {
        void apply(ISQLServerConnection c) throws SQLException;
    }

    @Override
    public String id() {
        return "V2";
    }

    @Override
    public String question() {
        return "Are SET NOCOUNT/XACT_ABORT and the claim's SET TRANSACTION ISOLATION LEVEL READ COMMITTED restored after"
                + " sp_executesql, sp_prepexec, sp_execute and sp_prepare, and kept with prepareMethod=none; does the backend"
                + " give such a connection back clean?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Connections': restored after sp_executesql (manual), after sp_prepexec/sp_execute"
                + " expected (unverified), so a session at SERIALIZABLE stays at SERIALIZABLE after a claim; prepareMethod=none"
                + " keeps them, so Sessions switches such connections to prepexec";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "so_", ClaimOrder.FIFO, Layout.CLUSTERED, migration)) {
            try (Connection c = context.connect()) {
                t.fill(c, 100);
            }
            String[] names = {"default (sp_executesql, sp_prepexec, sp_execute)",
                "enablePrepareOnFirstPreparedStatementCall=true (sp_prepexec, sp_execute)",
                "prepareMethod=prepare (sp_prepare, sp_execute)", "prepareMethod=none (plain batches)"};
            Setting[] settings = {c -> { }, c -> c.setEnablePrepareOnFirstPreparedStatementCall(true),
                c -> c.setPrepareMethod("prepare"), c -> c.setPrepareMethod("none")};
            for (int i = 0; i < settings.length; i++) {
                try (Connection c = context.connect()) {
                    if (!c.isWrapperFor(ISQLServerConnection.class)) {
                        obs.notMeasured("the connections are not mssql-jdbc's: " + c.getClass().getName());
                        return obs.result();
                    }
                    try {
                        settings[i].apply(c.unwrap(ISQLServerConnection.class));
                    } catch (SQLException | RuntimeException e) {
                        obs.notMeasured(names[i] + ": the driver refused the setting: " + ProbeObservations.describe(e));
                        continue;
                    }
                    Integer level = sessionLevel(c, t.sql, obs, names[i]);
                    Integer before = options(c, t.sql, obs, names[i] + ": @@OPTIONS and isolation level before the claims");
                    if (before == null) {
                        continue;
                    }
                    try {
                        c.setAutoCommit(false);
                        try (PreparedStatement ps = Jdbc.prepare(c, t.sql.get("claim"), 1, ProbeTables.QUEUE, 30_000)) {
                            for (int run = 0; run < 3; run++) {
                                try (ResultSet rs = ps.executeQuery()) {
                                    while (rs.next()) {
                                        // drain
                                    }
                                }
                            }
                        }
                        c.rollback();
                        c.setAutoCommit(true);
                    } catch (SQLException | RuntimeException e) {
                        obs.notMeasured(names[i] + ": the claim failed: " + ProbeObservations.describe(e));
                        continue;
                    }
                    Integer after = options(c, t.sql, obs, names[i] + ": @@OPTIONS and isolation level after the claims");
                    if (after != null) {
                        report(obs, names[i], level, before, after, i == 3);
                    }
                }
            }
            backendPath(context, t, obs);
        }
        return obs.result();
    }

    /** The backend's Sessions on a prepareMethod=none connection at a level the driver does not know. */
    private static void backendPath(ProbeContext context, ProbeTables t, ProbeObservations obs) throws SQLException {
        String name = "backend Sessions on a prepareMethod=none connection";
        try (Connection c = context.connect()) {
            try {
                c.unwrap(ISQLServerConnection.class).setPrepareMethod("none");
            } catch (SQLException | RuntimeException e) {
                obs.notMeasured(name + ": not measurable with this driver: " + ProbeObservations.describe(e));
                return;
            }
            Integer level = sessionLevel(c, t.sql, obs, name);
            Integer before = options(c, t.sql, obs, name + ": @@OPTIONS and isolation level before the claim");
            if (before == null) {
                return;
            }
            try {
                Sessions sessions = new Sessions(kept(c), 0, Backoff.JITTERED);
                sessions.inTransaction("probe V2 claim", k -> t.claim(k, 1, 30_000));
            } catch (RuntimeException e) {
                obs.notMeasured(name + ": the claim failed: " + ProbeObservations.describe(e));
                return;
            }
            Integer after = options(c, t.sql, obs, name + ": @@OPTIONS and isolation level after the claim");
            if (after == null) {
                return;
            }
            String back = c.unwrap(ISQLServerConnection.class).getPrepareMethod();
            report(obs, name, level, before, after, false);
            obs.point(name + ": prepareMethod given back as " + back, "none".equalsIgnoreCase(back));
        }
    }

    /**
     * Put the session at SERIALIZABLE by a plain batch, or READ UNCOMMITTED where that is refused; the level set,
     * or null when neither was accepted (reported).
     */
    static Integer sessionLevel(Connection c, SqlServerStatements sql, ProbeObservations obs, String name) {
        try {
            ProbeTables.plain(c, sql.probe("probeSerializable"));
            return SERIALIZABLE;
        } catch (SQLException first) {
            try {
                ProbeTables.plain(c, sql.probe("probeReadUncommitted"));
                obs.info(name + ": the server refused SET TRANSACTION ISOLATION LEVEL SERIALIZABLE ("
                        + ProbeObservations.describe(first) + "); the session was put at READ UNCOMMITTED (1) instead");
                return READ_UNCOMMITTED;
            } catch (SQLException second) {
                obs.couldNotRead(name + ": a session isolation level other than READ COMMITTED (SET TRANSACTION ISOLATION"
                        + " LEVEL SERIALIZABLE: " + ProbeObservations.describe(first) + "; READ UNCOMMITTED)", second);
                return null;
            }
        }
    }

    /**
     * Two points: NOCOUNT/XACT_ABORT restored, and the isolation level the plain batch set back after the claims
     * (the claim's READ COMMITTED did not outlive its batch). With {@code none} both are printed without a verdict:
     * whether the driver sends plain batches then depends on its version (mssql-jdbc 13.2.1's {@code PrepareMethod}
     * has only PREPEXEC and PREPARE, and {@code SQLServerPreparedStatement.doPrepExec} sends any other value as
     * sp_prepare; docs/backends/sqlserver.md dates {@code none} to 13.4.0), which is the driver's business, not the
     * server's.
     */
    private static void report(ProbeObservations obs, String name, Integer level, int before, int after, boolean none) {
        boolean kept = (after & (NOCOUNT | XACT_ABORT)) != (before & (NOCOUNT | XACT_ABORT));
        String options = name + ": " + describe(before, after) + (kept ? " (kept on the session)" : " (restored)");
        int beforeLevel = before >>> 24;
        int afterLevel = after >>> 24;
        String line = name + ": session isolation level " + beforeLevel + " before the claim, " + afterLevel + " after";
        if (none) {
            String why = " (not judged: plain batches only with mssql-jdbc 13.4 or later, sp_prepare before)";
            obs.info(options + why);
            obs.info(line + why);
            return;
        }
        obs.point(options, !kept);
        if (level == null) {
            obs.notMeasured(line + " (the session could not be put at a level other than READ COMMITTED)");
        } else if (beforeLevel != level) {
            obs.notMeasured(line + " (the plain SET of level " + level + " did not show in sys.dm_exec_sessions)");
        } else if (afterLevel == beforeLevel) {
            obs.point(line + ": the claim's SET TRANSACTION ISOLATION LEVEL READ COMMITTED did not outlive its batch", true);
        } else if (afterLevel == READ_COMMITTED) {
            obs.point(line + ": the claim's SET TRANSACTION ISOLATION LEVEL READ COMMITTED outlived its batch", false);
        } else {
            obs.point(line + ": neither the level before nor the claim's READ COMMITTED (2)", false);
        }
    }

    private static String describe(int before, int after) {
        return "@@OPTIONS NOCOUNT " + ((before & NOCOUNT) != 0 ? "on" : "off") + "->" + ((after & NOCOUNT) != 0 ? "on" : "off")
                + ", XACT_ABORT " + ((before & XACT_ABORT) != 0 ? "on" : "off") + "->" + ((after & XACT_ABORT) != 0 ? "on" : "off");
    }

    /** {@link #options(Connection, SqlServerStatements)}, or null after reporting why it could not be read. */
    static Integer options(Connection c, SqlServerStatements sql, ProbeObservations obs, String what) {
        try {
            return options(c, sql);
        } catch (SQLException e) {
            obs.couldNotRead(what + " (@@OPTIONS, sys.dm_exec_sessions)", e);
            return null;
        }
    }

    /**
     * {@code @@OPTIONS} with the session's isolation level ({@code sys.dm_exec_sessions}: 1 read
     * uncommitted, 2 read committed, 3 repeatable read, 4 serializable, 5 snapshot) in bits 24 and up,
     * so one int carries both.
     */
    static int options(Connection c, SqlServerStatements sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.probe("probeOptions")); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("sys.dm_exec_sessions returned no row for this session");
            }
            return rs.getInt("options") | (rs.getInt("isolation") << 24);
        }
    }

    /** A DataSource handing out {@code c} again and again; closing what it hands out does not close {@code c}. */
    static DataSource kept(Connection c) {
        Connection view = (Connection) Proxy.newProxyInstance(SetScopingProbe.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> {
                    if (m.getName().equals("close") || m.getName().equals("abort")) {
                        return null;
                    }
                    try {
                        return m.invoke(c, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(SetScopingProbe.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> switch (m.getName()) {
                    case "getConnection" -> view;
                    case "getLogWriter" -> (PrintWriter) null;
                    case "getParentLogger" -> Logger.getGlobal();
                    case "isWrapperFor" -> false;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    case "toString" -> "probe V2 single-connection DataSource";
                    default -> throw new UnsupportedOperationException("DataSource." + m.getName());
                });
    }
}
