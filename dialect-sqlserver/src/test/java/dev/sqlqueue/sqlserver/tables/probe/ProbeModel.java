package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerNames;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import dev.sqlqueue.spi.ProbeContext;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs a probe on the {@link SqlServerModel}: a {@link ProbeContext} whose connections are model
 * sessions (through {@link ProbeJdbc}: every parameter must be bound, and a session with STATISTICS XML ON
 * returns the actual plan a test scripts), and a migration that records what it would create instead of running
 * Flyway (which the model does not speak). Measurements the model cannot compute (plans, locks, latches,
 * @@OPTIONS) are scripted by the test; what the probe does with the sessions (transactions, rollbacks, the final
 * drop) is the model's. The backend a probe opens on {@link ProbeContext#config()} gets the same connections.
 * Not thread-safe.
 */
final class ProbeModel {
    /** A fixed enqueue time for claimed rows. */
    static final java.time.LocalDateTime T0 = java.time.LocalDateTime.of(2026, 1, 2, 3, 4, 5, 600_000_000);

    static final String PREFIX = "sqlqprobe_ab12_";
    /** Columns of the claim's OUTPUT, as the probes read them. */
    static final List<String> CLAIM_COLUMNS = List.of("id", "lease_token", "attempts", "priority", "enqueued_at",
            "prior_visible_at", "payload", "headers");
    /** Columns of probeLocks. */
    static final List<String> LOCK_COLUMNS = List.of("resource_type", "request_mode", "index_name", "n");
    final SqlServerModel model = new SqlServerModel();
    final ProbeJdbc jdbc = new ProbeJdbc();
    final List<String> migrated = new ArrayList<>();
    final ProbeTables.Migration migration = (ds, sql, layout) -> migrated.add(sql.flywayTable() + " " + layout.key());
    final ProbeContext context = new ProbeContext() {
        @Override
        public Connection connect() throws SQLException {
            return jdbc.connection(model.dataSource().getConnection());
        }

        @Override
        public String prefix() {
            return PREFIX;
        }

        @Override
        public QueueConfig config() {
            return QueueConfig.builder().url("jdbc:sqlserver://model").dataSource(jdbc.wrap(model.dataSource())).build();
        }
    };

    /** One claimed row of the claim's OUTPUT. */
    static Object[] claimed(long id) {
        return new Object[] {id, 1L, 1, 0, T0, T0, new byte[] {1}, ""};
    }

    /** The table-set code ClaimRun gives an ordering and layout: {@code fc_}, {@code ph_}, ... */
    static String code(ClaimOrder o, Layout l) {
        return o.key().charAt(0) + (l == Layout.CLUSTERED ? "c" : "h") + "_";
    }

    /**
     * V6's six ClaimRuns: per ordering and layout two empty claims, one of a row, an actual plan that seeks the claim
     * index (taken from the cache), and with {@code locks} two key locks.
     */
    void scriptClaimPlanRuns(boolean locks) {
        for (ClaimOrder o : ClaimOrder.values()) {
            for (Layout l : Layout.values()) {
                String code = code(o, l);
                SqlServerStatements sql = sql(code, o);
                model.labelled(sql.get("claim"), CLAIM_COLUMNS);
                model.labelled(sql.get("claim"), CLAIM_COLUMNS);
                model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1));
                if (locks) {
                    model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "X", "claim", 2L});
                }
                jdbc.showplan(sql.get("claim"), seekPlan(SqlServerNames.quote(PREFIX + code + "messages"), sql.claimIndex()));
            }
        }
    }

    /** The statements of one probe table set. */
    static SqlServerStatements sql(String code, ClaimOrder order) {
        return new SqlServerStatements(PREFIX + code, "dbo", order);
    }

    /** The executed SQL texts, each replaced by its statement name where it has one ({@code DETECT_ENGINE} too). */
    List<String> names(SqlServerStatements sql) {
        return model.executedSql().stream().map(t -> {
            String n = sql.nameOf(t);
            return n != null ? n : t.equals(SqlServerStatements.DETECT_ENGINE) ? "DETECT_ENGINE" : t;
        }).collect(Collectors.toList());
    }

    /** True when every session the probe opened is closed. */
    boolean allClosed() {
        for (int i = 1; i <= model.sessionsOpened(); i++) {
            if (!model.session(i).closed()) {
                return false;
            }
        }
        return true;
    }

    /** A minimal actual plan: one Index Seek on {@code index} of {@code table} returning 2 rows, under a Top and an update, no Sort. */
    static String seekPlan(String table, String index) {
        return plan(true, op("Clustered Index Update", 2, "", op("Top", 2, "", access("Index Seek", table, index, false, 2, 2))));
    }

    /**
     * An actual plan document (SET STATISTICS XML): one statement, {@code RetrievedFromCache} as given, the operator
     * tree {@code relOp}. Element names per showplanxml.xsd.
     */
    static String plan(boolean retrievedFromCache, String relOp) {
        return "<ShowPlanXML xmlns=\"http://schemas.microsoft.com/sqlserver/2004/07/showplan\"><BatchSequence><Batch><Statements>"
                + "<StmtSimple StatementType=\"UPDATE\" RetrievedFromCache=\"" + retrievedFromCache + "\"><QueryPlan>" + relOp
                + "</QueryPlan></StmtSimple></Statements></Batch></BatchSequence></ShowPlanXML>";
    }

    /** An operator with run-time counters ({@code rows} on one thread), optional {@code <Warnings>} content, and a child. */
    static String op(String physical, long rows, String warnings, String child) {
        return "<RelOp PhysicalOp=\"" + physical + "\"><OutputList/>" + (warnings.isEmpty() ? "" : "<Warnings>" + warnings + "</Warnings>")
                + runtime(rows, null) + "<" + element(physical) + ">" + child + "</" + element(physical) + "></RelOp>";
    }

    /** The element that holds an operator's child in showplanxml.xsd (RelOpType's choice). */
    private static String element(String physical) {
        if (physical.endsWith("Update")) {
            return "Update";
        }
        if (physical.endsWith("Spool")) {
            return "Spool";
        }
        return physical.endsWith("Sort") ? "Sort" : physical.equals("Top") ? "Top" : "NestedLoops";
    }

    /** A seek or scan of {@code index} of {@code table}, with a residual predicate if asked, returning and reading rows. */
    static String access(String physical, String table, String index, boolean residual, long rows, long read) {
        return "<RelOp PhysicalOp=\"" + physical + "\"><OutputList/>" + runtime(rows, read) + "<IndexScan Ordered=\"true\">"
                + "<Object Database=\"[db]\" Schema=\"[dbo]\" Table=\"" + table + "\" Index=\"" + index + "\"/>"
                + (residual ? "<Predicate><ScalarOperator ScalarString=\"[visible_at]&lt;=sysutcdatetime()\"/></Predicate>" : "")
                + "</IndexScan></RelOp>";
    }

    private static String runtime(long rows, Long read) {
        return "<RunTimeInformation><RunTimeCountersPerThread Thread=\"0\" ActualRows=\"" + rows + "\""
                + (read == null ? "" : " ActualRowsRead=\"" + read + "\"") + " ActualEndOfScans=\"1\" ActualExecutions=\"1\"/>"
                + "</RunTimeInformation>";
    }
}
