package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.ProbeContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * One measured claim for probes V3 and V6: on fresh tables of one ordering and layout, the claim runs twice
 * on the empty table (its plan is compiled and cached then, the second run also where the server caches only a
 * stub at first; automatic statistics updates are off for the probe's table, so the fill does not make the
 * server recompile), the table is filled with {@code rows} rows, and the same statement text claims 500 of them
 * in a transaction that is rolled back after the locks it holds are read from {@code sys.dm_tran_locks}. Every
 * claim runs with {@code SET STATISTICS XML ON} ({@link ActualClaim}, review P6): the plan is the one that ran,
 * with its actual rows, rows read, rows rejected by residual predicates and spills, and whether it came from
 * the plan cache. What could not be read is reported to {@code obs} ({@link ProbeObservations#couldNotRead}) and
 * left null here. Every object is dropped before {@link #run} returns.
 *
 * @param order claim order
 * @param layout table layout
 * @param claimedOnEmpty rows the claim returned on the empty table (0)
 * @param claimed rows the measured claim returned
 * @param locks lock lines of the measured claim ({@link ProbeTables#locks}), the last is the total; null when
 *     {@code sys.dm_tran_locks} could not be read
 * @param plan the measured claim's actual plan, or null (then {@code planNote} says why)
 * @param planNote why the plan is missing, or empty
 */
record ClaimRun(ClaimOrder order, Layout layout, int claimedOnEmpty, int claimed, List<String> locks, PlanSummary plan,
                String planNote, String claimIndex, String table) {
    static final int BATCH = 500;
    static final int LEASE_MS = 30_000;

    static ClaimRun run(ProbeContext ctx, ClaimOrder order, Layout layout, int rows, ProbeTables.Migration migration,
                        ProbeObservations obs) throws SQLException {
        String code = order.key().charAt(0) + (layout == Layout.CLUSTERED ? "c" : "h") + "_";
        String label = order.key() + "/" + layout.key();
        try (ProbeTables t = ProbeTables.create(ctx, code, order, layout, migration); Connection c = ctx.connect()) {
            try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeAutostatsOff"), t.messagesQualified())) {
                ps.execute();
            } catch (SQLException e) {
                obs.info(label + ": automatic statistics could not be switched off (sp_autostats): "
                        + ProbeObservations.describe(e) + "; the fill may make the server recompile the claim");
            }
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            boolean plans = true;
            int empty;
            try {
                empty = ActualClaim.run(c, t, BATCH, LEASE_MS).rows();
            } catch (SQLException e) {
                obs.couldNotRead(label + " claim's actual plan (SET STATISTICS XML ON, which needs SHOWPLAN permission)", e);
                plans = false;
                c.rollback();
                empty = t.claim(c, BATCH, LEASE_MS);
            }
            c.rollback();
            if (plans) {
                ActualClaim.run(c, t, BATCH, LEASE_MS);
            } else {
                t.claim(c, BATCH, LEASE_MS);
            }
            c.rollback();
            t.fill(c, rows);
            c.commit();
            int claimed;
            PlanSummary plan = null;
            String note = plans ? "" : "no actual plan (see above)";
            if (plans) {
                ActualClaim a = ActualClaim.run(c, t, BATCH, LEASE_MS);
                claimed = a.rows();
                plan = a.plan();
                note = a.planNote();
            } else {
                claimed = t.claim(c, BATCH, LEASE_MS);
            }
            List<String> locks = null;
            try {
                locks = ProbeTables.locks(c, t.sql);
            } catch (SQLException e) {
                obs.couldNotRead("the locks the " + label + " claim holds (sys.dm_tran_locks, readable with VIEW SERVER STATE)", e);
            }
            c.rollback();
            c.setAutoCommit(true);
            return new ClaimRun(order, layout, empty, claimed, locks, plan, note, t.sql.claimIndex(), t.messagesInPlan());
        }
    }

    /** Row and key locks (KEY and RID lines) of the measured claim; -1 when they could not be read. */
    long rowLocks() {
        if (locks == null) {
            return -1;
        }
        long n = 0;
        for (String l : locks) {
            if (l.startsWith("KEY ") || l.startsWith("RID ")) {
                n += Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
            }
        }
        return n;
    }

    /** At most 3 row/key locks per claimed row; null when the locks could not be read. */
    Boolean locksAsDocumented() {
        return locks == null ? null : rowLocks() <= 3L * claimed;
    }

    /**
     * True when the plan that ran, compiled on the empty table, seeks the claim index, sorts nothing and scans no
     * part of the message table; null when there is no actual plan, or it was not taken from the plan cache (then
     * the empty-table plan is not what ran).
     */
    Boolean planAsDocumented() {
        if (plan == null || !plan.actual() || !Boolean.TRUE.equals(plan.retrievedFromCache())) {
            return null;
        }
        return plan.seeksOn(claimIndex) && !plan.sorts() && !plan.scans(table);
    }

    /** Both parts of V6: false if one differs, null if one could not be decided. */
    Boolean asDocumented() {
        Boolean l = locksAsDocumented();
        Boolean p = planAsDocumented();
        if (Boolean.FALSE.equals(l) || Boolean.FALSE.equals(p)) {
            return false;
        }
        return l == null || p == null ? null : true;
    }

    /** One line for the probe's output. */
    String line() {
        String why = plan != null && plan.actual() && !Boolean.TRUE.equals(plan.retrievedFromCache())
                ? " (not taken from the plan cache: the plan compiled on the empty table is not what ran)" : "";
        return order.key() + "/" + layout.key() + ": empty-table claim " + claimedOnEmpty + " rows; claim " + claimed
                + " rows; " + (plan == null ? "plan unknown: " + planNote : plan.line() + why) + "; row/key locks "
                + (locks == null ? "not read" : rowLocks() + " of " + locks);
    }
}
