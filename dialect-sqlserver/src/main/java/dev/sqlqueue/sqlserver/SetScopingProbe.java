package dev.sqlqueue.sqlserver;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.SqlServerOptions.Layout;
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
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Probe V2 (review, "SET scoping under sp_prepexec/sp_execute", and finding 1): after the claim
 * statement ran three times on one PreparedStatement (mssql-jdbc: sp_executesql, then sp_prepexec, then
 * sp_execute by default), are {@code NOCOUNT} (@@OPTIONS 512) and {@code XACT_ABORT} (16384) back as
 * they were, for each driver setting? The session's isolation level before and after is printed too
 * (the claim sets READ COMMITTED in its own batch, review finding 9). And after the backend's own {@link Sessions} ran a claim on a
 * connection with {@code prepareMethod=none}? Creates and drops one table set; not thread-safe.
 */
final class SetScopingProbe implements Probe {
    static final int NOCOUNT = 512;
    static final int XACT_ABORT = 16384;
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
        return "Are SET NOCOUNT/XACT_ABORT in a prepared statement restored after sp_executesql, sp_prepexec, sp_execute and"
                + " sp_prepare, and kept with prepareMethod=none; does the backend give such a connection back clean?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Connections': restored after sp_executesql (manual), after sp_prepexec/sp_execute"
                + " expected (unverified); prepareMethod=none keeps them, so Sessions switches such connections to prepexec";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        List<String> lines = new ArrayList<>();
        boolean asDocumented = true;
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
                        return ProbeResult.inconclusive("the connections are not mssql-jdbc's: " + c.getClass().getName());
                    }
                    int before = options(c, t.sql);
                    String outcome;
                    try {
                        settings[i].apply(c.unwrap(ISQLServerConnection.class));
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
                        int after = options(c, t.sql);
                        boolean kept = (after & (NOCOUNT | XACT_ABORT)) != (before & (NOCOUNT | XACT_ABORT));
                        outcome = describe(before, after) + (kept ? " (kept on the session)" : " (restored)");
                        asDocumented &= i == 3 || !kept;
                    } catch (SQLException | RuntimeException e) {
                        outcome = "the driver refused the setting or the claim: " + e.getMessage();
                        asDocumented &= i == 3;
                    }
                    lines.add(names[i] + ": " + outcome);
                }
            }
            try (Connection c = context.connect()) {
                String outcome;
                try {
                    c.unwrap(ISQLServerConnection.class).setPrepareMethod("none");
                    int before = options(c, t.sql);
                    Sessions sessions = new Sessions(kept(c), 0, Backoff.JITTERED);
                    sessions.inTransaction("probe V2 claim", k -> t.claim(k, 1, 30_000));
                    int after = options(c, t.sql);
                    boolean kept = (after & (NOCOUNT | XACT_ABORT)) != (before & (NOCOUNT | XACT_ABORT));
                    String back = c.unwrap(ISQLServerConnection.class).getPrepareMethod();
                    outcome = describe(before, after) + (kept ? " (kept on the session)" : " (restored)")
                            + ", prepareMethod given back as " + back;
                    asDocumented &= !kept && "none".equalsIgnoreCase(back);
                } catch (SQLException | RuntimeException e) {
                    outcome = "not measurable with this driver: " + e.getMessage();
                }
                lines.add("backend Sessions on a prepareMethod=none connection: " + outcome);
            }
        }
        String observed = String.join("\n", lines);
        return asDocumented ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    private static String describe(int before, int after) {
        return "@@OPTIONS NOCOUNT " + ((before & NOCOUNT) != 0 ? "on" : "off") + "->" + ((after & NOCOUNT) != 0 ? "on" : "off")
                + ", XACT_ABORT " + ((before & XACT_ABORT) != 0 ? "on" : "off") + "->" + ((after & XACT_ABORT) != 0 ? "on" : "off")
                + ", isolation level " + (before >>> 24) + "->" + (after >>> 24);
    }

    /**
     * {@code @@OPTIONS} with the session's isolation level ({@code sys.dm_exec_sessions}: 1 read
     * uncommitted, 2 read committed, 3 repeatable read, 4 serializable, 5 snapshot) in bits 24 and up,
     * so one int carries both.
     */
    static int options(Connection c, SqlServerStatements sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.probe("probeOptions")); ResultSet rs = ps.executeQuery()) {
            rs.next();
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
