package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Probe V1 (review, "priority-first residual predicate and UPDLOCK"): with the index
 * {@code (queue_name, priority DESC, visible_at, id)}, {@code visible_at <= now} is a residual predicate,
 * so the claim reads the delayed rows of a higher priority before the ready ones. Are the U locks taken
 * on rows the predicate then rejects released, or held to commit ("Table hints": UPDLOCK locks are held
 * until the transaction completes)? A transactional claim of 10 rows over 1,000 delayed priority-5 rows
 * and 1,000 ready priority-0 rows, with its actual plan (SET STATISTICS XML ON, review P6: rows read and rows
 * the residual predicate rejected); the locks its open transaction holds are read from
 * {@code sys.dm_tran_locks}. As documented when it holds at most 3 row/key locks per claimed row; no verdict
 * when the locks cannot be read, or when the plan shows that no row was rejected (then the question did not
 * arise). Creates and drops one table set; not thread-safe.
 */
final class ResidualLockProbe implements Probe {
    private final ProbeTables.Migration migration;

    ResidualLockProbe() {
        this(SqlServerMigrator::migrate);
    }

    ResidualLockProbe(ProbeTables.Migration migration) {
        this.migration = migration;
    }

    @Override
    public String id() {
        return "V1";
    }

    @Override
    public String question() {
        return "Under priority-first, does an open transactional claim keep U locks on the delayed higher-priority rows it read"
                + " and rejected?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'What is settled, and by what' (V1): a claim is expected to hold locks only on"
                + " the rows it claims"
                + " (at most 3 row/key locks per row; unverified for rows rejected by the residual visible_at predicate)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "pr_", ClaimOrder.PRIORITY_FIRST, Layout.CLUSTERED, migration);
             Connection c = context.connect()) {
            t.fill(c, 2_000);
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            int claimed;
            PlanSummary plan = null;
            String planNote;
            try {
                ActualClaim a = ActualClaim.run(c, t, 10, 30_000);
                claimed = a.rows();
                plan = a.plan();
                planNote = a.planNote();
            } catch (SQLException e) {
                obs.couldNotRead("the claim's actual plan (SET STATISTICS XML ON, which needs SHOWPLAN permission)", e);
                c.rollback();
                claimed = t.claim(c, 10, 30_000);
                planNote = "not read";
            }
            obs.info("claimed " + claimed + " rows (ready priority 0 expected) over 1,000 delayed priority-5 rows; "
                    + (plan == null ? "plan unknown: " + planNote : plan.line()));
            List<String> locks = null;
            try {
                locks = ProbeTables.locks(c, t.sql);
            } catch (SQLException e) {
                obs.couldNotRead("the locks the open claim holds (sys.dm_tran_locks, readable with VIEW SERVER STATE)", e);
            }
            c.rollback();
            c.setAutoCommit(true);
            Long rejected = plan == null ? null : plan.rejected(t.messagesInPlan());
            if (locks == null) {
                return obs.result();
            }
            long rowLocks = locks.stream().filter(l -> l.startsWith("KEY ") || l.startsWith("RID "))
                    .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
            String observed = "row/key locks held by the open claim: " + rowLocks + " for " + claimed + " claimed rows and "
                    + (rejected == null ? "an unknown number of" : rejected) + " rows rejected by the residual predicate;"
                    + " all locks " + locks;
            boolean fewLocks = rowLocks <= 3L * Math.max(claimed, 1);
            if (fewLocks && rejected != null && rejected == 0) {
                obs.point(observed + " (no row was rejected, so the question did not arise)", null);
            } else {
                obs.point(observed, fewLocks);
            }
            return obs.result();
        }
    }
}
