package dev.sqlqueue.sqlserver;

import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.SqlServerOptions.Layout;
import dev.sqlqueue.spi.ProbeContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * One measured claim for probes V3 and V6: on fresh tables of one ordering and layout, the claim runs
 * once on the empty table (its plan is compiled and cached then; automatic statistics updates are off
 * for the probe's table, so the cached plan is not recompiled by the fill), the table is filled with
 * {@code rows} rows, and the same statement text claims 500 of them in a transaction that is rolled
 * back after the locks it holds are read from {@code sys.dm_tran_locks}. The cached plan and the
 * statistics of its last run are read from {@code sys.dm_exec_query_stats}. Every object is dropped
 * before {@link #run} returns.
 *
 * @param order claim order
 * @param layout table layout
 * @param claimedOnEmpty rows the claim returned on the empty table (0)
 * @param claimed rows the measured claim returned
 * @param locks lock lines of the measured claim ({@link ProbeTables#locks}), the last is the total
 * @param plan the cached plan, or null when it could not be read (permission: VIEW SERVER STATE)
 * @param planNote plan generation, executions, last rows and logical reads, or why the plan is missing
 */
record ClaimRun(ClaimOrder order, Layout layout, int claimedOnEmpty, int claimed, List<String> locks, PlanSummary plan,
                String planNote, String claimIndex, String table) {
    static final int BATCH = 500;
    static final int LEASE_MS = 30_000;

    static ClaimRun run(ProbeContext ctx, ClaimOrder order, Layout layout, int rows, ProbeTables.Migration migration)
            throws SQLException {
        String code = order.key().charAt(0) + (layout == Layout.CLUSTERED ? "c" : "h") + "_";
        try (ProbeTables t = ProbeTables.create(ctx, code, order, layout, migration); Connection c = ctx.connect()) {
            try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeAutostatsOff"), t.messagesQualified())) {
                ps.execute();
            }
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            int empty = t.claim(c, BATCH, LEASE_MS);
            c.rollback();
            t.fill(c, rows);
            c.commit();
            int claimed = t.claim(c, BATCH, LEASE_MS);
            List<String> locks = ProbeTables.locks(c, t.sql);
            c.rollback();
            c.setAutoCommit(true);
            PlanSummary plan = null;
            String note;
            try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeCachedClaimPlan"),
                    "%" + likeEscape(t.messagesQualified() + " WITH (ROWLOCK, READPAST") + "%");
                 ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    note = "plan generation " + rs.getLong("plan_generation_num") + ", executions " + rs.getLong("execution_count")
                            + ", last run " + rs.getLong("last_rows") + " rows and " + rs.getLong("last_logical_reads")
                            + " logical reads";
                    String xml = rs.getString("plan");
                    plan = xml == null ? null : PlanSummary.of(xml);
                } else {
                    note = "no cached plan found for the claim (evicted, or the plan cache is off)";
                }
            } catch (SQLException e) {
                note = "cached plan not readable (error " + e.getErrorCode() + ": " + e.getMessage()
                        + "; needs VIEW SERVER STATE, or VIEW DATABASE STATE on Azure SQL)";
            }
            return new ClaimRun(order, layout, empty, claimed, locks, plan, note, t.sql.claimIndex(), t.messagesInPlan());
        }
    }

    /** A LIKE pattern literal for {@code ESCAPE '\'}: {@code \ [ _ %} escaped. */
    static String likeEscape(String s) {
        return s.replace("\\", "\\\\").replace("[", "\\[").replace("_", "\\_").replace("%", "\\%");
    }

    /** Row and key locks (KEY and RID lines) of the measured claim. */
    long rowLocks() {
        long n = 0;
        for (String l : locks) {
            if (l.startsWith("KEY ") || l.startsWith("RID ")) {
                n += Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
            }
        }
        return n;
    }

    /** True when the plan seeks the claim index, sorts nothing and scans no part of the message table. */
    boolean planAsDocumented() {
        return plan != null && plan.seeksOn(claimIndex) && !plan.sorts() && !plan.scans(table);
    }

    /** One line for the probe's output. */
    String line() {
        return order.key() + "/" + layout.key() + ": empty-table claim " + claimedOnEmpty + " rows; claim " + claimed
                + " rows; " + (plan == null ? "plan unknown" : plan.line()) + "; " + planNote + "; row/key locks " + rowLocks()
                + " of " + locks;
    }
}
