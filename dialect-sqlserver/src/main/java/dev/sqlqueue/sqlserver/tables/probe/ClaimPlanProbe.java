package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;

/**
 * Probe V6 (review of the queue-table backend, "plans and lock counts for the documented claims", with
 * finding 3): for every ordering and layout, the claim's plan as cached on an empty table and run
 * against {@value #ROWS} rows, and the locks one 500-row claim holds. The plan is the actual one
 * ({@link ClaimRun}: SET STATISTICS XML ON, review P6), printed with its rows returned and read, rows rejected by
 * residual predicates and spills. As documented when every plan that ran was the cached one and seeks the claim
 * index without a Sort or a scan of the message table, and no claim holds more than 3 row or key locks per
 * claimed row; a run whose plan or locks could not be read gives no verdict ({@link ProbeObservations}).
 * Creates and drops six table sets; not thread-safe.
 */
final class ClaimPlanProbe implements Probe {
    static final int ROWS = 100_000;
    private final ProbeTables.Migration migration;
    private final int rows;

    ClaimPlanProbe() {
        this(SqlServerMigrator::migrate, ROWS);
    }

    ClaimPlanProbe(ProbeTables.Migration migration, int rows) {
        this.migration = migration;
        this.rows = rows;
    }

    @Override
    public String id() {
        return "V6";
    }

    @Override
    public String question() {
        return "Does the claim, its plan cached on an empty table, seek the claim index without a sort on 100,000 rows, and how"
                + " many locks does a 500-row claim hold, for every ordering and layout?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'The claim and its index': an Index Seek on the claim index (FORCESEEK), no Sort,"
                + " no scan; at most about 1,500 row/key locks per 500-row claim (3 per row), far below escalation at ~5,000";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        for (ClaimOrder o : ClaimOrder.values()) {
            for (Layout l : Layout.values()) {
                ClaimRun r = ClaimRun.run(context, o, l, rows, migration, obs);
                obs.point(r.line(), r.asDocumented());
            }
        }
        return obs.result();
    }
}
