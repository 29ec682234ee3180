package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerNames;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.CLAIM_COLUMNS;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.LOCK_COLUMNS;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.claimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.sqlserver.model.ImpossibleResultException;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Probes V1, V3 and V6 judge the plan that ran (re-review P6): the claim runs on a session with SET STATISTICS XML
 * ON, and the actual plan's rows read, rows rejected by residual predicates, spools and spills are printed and
 * judged, not a cached estimate. On the model ({@link ProbeModel}, {@link ProbeJdbc}); the plans are scripted.
 */
class ProbeActualPlanTest {
    private final ProbeModel p = new ProbeModel();

    private static String table(String code) {
        return SqlServerNames.quote(ProbeModel.PREFIX + code + "messages");
    }

    /** One ClaimRun's claims (two empty, one of a row), its locks and, if given, the measured claim's actual plan. */
    private void scriptRun(SqlServerStatements sql, String plan) {
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1));
        p.model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "X", "claim", 2L});
        if (plan != null) {
            p.jdbc.showplan(sql.get("claim"), plan);
        }
    }

    @Test
    void claimPlanProbeJudgesTheActualPlanAndReportsItsSpill() throws SQLException {
        for (ClaimOrder o : ClaimOrder.values()) {
            for (Layout l : Layout.values()) {
                String code = ProbeModel.code(o, l);
                SqlServerStatements sql = ProbeModel.sql(code, o);
                String seek = ProbeModel.access("Index Seek", table(code), sql.claimIndex(), o == ClaimOrder.PRIORITY_FIRST, 1,
                        o == ClaimOrder.PRIORITY_FIRST ? 50_001 : 1);
                boolean sorting = o == ClaimOrder.PRIORITY_FIRST && l == Layout.HEAP;
                String tree = sorting ? ProbeModel.op("Sort", 1, "<SpillToTempDb SpillLevel=\"2\" SpilledThreadCount=\"1\"/>", seek)
                        : seek;
                scriptRun(sql, ProbeModel.plan(true, ProbeModel.op("Clustered Index Update", 1, "", tree)));
            }
        }
        ProbeResult r = new ClaimPlanProbe(p.migration, 10).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        String[] lines = r.observed().split("\n");
        assertEquals(6, lines.length, r.observed());
        assertTrue(lines[5].startsWith("priority-first/heap:") && lines[5].contains("sort yes") && lines[5].contains("spills [Sort"
                + " SpillToTempDb level 2]") && lines[5].endsWith("-> DIFFERS"), lines[5]);
        assertTrue(lines[4].contains("1 rows returned of 50001 read, 50000 rejected by its residual predicate")
                && lines[4].endsWith("-> as documented"), lines[4]);
        assertTrue(lines[0].startsWith("fifo/clustered:") && lines[0].contains("actual plan (retrieved from cache: yes)"), lines[0]);
    }

    @Test
    void aPlanRecompiledOnTheFilledTableGivesNoVerdictForThatRun() throws SQLException {
        SqlServerStatements sql = ProbeModel.sql("fc_", ClaimOrder.FIFO);
        scriptRun(sql, ProbeModel.plan(false, ProbeModel.access("Index Seek", table("fc_"), sql.claimIndex(), false, 1, 1)));
        ProbeObservations obs = new ProbeObservations();
        ClaimRun r = ClaimRun.run(p.context, ClaimOrder.FIFO, Layout.CLUSTERED, 10, p.migration, obs);
        assertNull(r.planAsDocumented(), r.line());
        assertTrue(r.line().contains("not taken from the plan cache"), r.line());
    }

    @Test
    void aServerThatReturnsNoActualPlanLeavesThePlanUnjudged() throws SQLException {
        SqlServerStatements sql = ProbeModel.sql("fc_", ClaimOrder.FIFO);
        scriptRun(sql, null);
        ClaimRun r = ClaimRun.run(p.context, ClaimOrder.FIFO, Layout.CLUSTERED, 10, p.migration, new ProbeObservations());
        assertNull(r.plan());
        assertNull(r.asDocumented());
        assertTrue(r.line().contains("plan unknown: the server returned no actual plan"), r.line());
    }

    @Test
    void aLoginWithoutShowplanPermissionStillClaimsAndSaysThePlanCouldNotBeRead() throws SQLException {
        SqlServerStatements sql = ProbeModel.sql("fc_", ClaimOrder.FIFO);
        // "SET STATISTICS XML": without SHOWPLAN permission the statement is not run; 262 "... permission denied in database"
        p.model.fail(sql.get("claim"), 262, "S0001");
        scriptRun(sql, null);
        ProbeObservations obs = new ProbeObservations();
        ClaimRun r = ClaimRun.run(p.context, ClaimOrder.FIFO, Layout.CLUSTERED, 10, p.migration, obs);
        assertEquals(1, r.claimed());
        assertEquals(2, r.rowLocks());
        assertTrue(obs.lines().get(0).startsWith("could not read fifo/clustered claim's actual plan (SET STATISTICS XML ON, which"
                + " needs SHOWPLAN permission): error 262"), obs.lines().toString());
        assertTrue(p.allClosed());
    }

    @Test
    void spoolProbeReportsTheRowsOfASpoolThatCarriesPayloads() throws SQLException {
        for (Layout l : Layout.values()) {
            String code = ProbeModel.code(ClaimOrder.FIFO, l);
            SqlServerStatements sql = ProbeModel.sql(code, ClaimOrder.FIFO);
            String spool = ProbeModel.op("Table Spool", 500, "", ProbeModel.access("Index Seek", table(code), sql.claimIndex(), false,
                    500, 500)).replace("<OutputList/>", "<OutputList><ColumnReference Column=\"id\"/><ColumnReference"
                    + " Column=\"payload\"/></OutputList>");
            scriptRun(sql, ProbeModel.plan(true, ProbeModel.op("Clustered Index Update", 500, "", spool)));
        }
        ProbeResult r = new SpoolProbe(p.migration, 10).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("spool columns [id, payload], 500 rows through spools")
                || r.observed().contains("spool columns [payload, id], 500 rows through spools"), r.observed());
    }

    @Test
    void residualLockProbePrintsTheRowsTheResidualPredicateRejected() throws SQLException {
        SqlServerStatements sql = ProbeModel.sql("pr_", ClaimOrder.PRIORITY_FIRST);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1), claimed(2));
        p.model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "U", "claim", 1000L},
                new Object[] {"KEY", "X", "pk", 2L});
        p.jdbc.showplan(sql.get("claim"), ProbeModel.plan(true, ProbeModel.access("Index Seek", table("pr_"), sql.claimIndex(), true,
                2, 1002)));
        ProbeResult r = new ResidualLockProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("row/key locks held by the open claim: 1002 for 2 claimed rows and 1000 rows rejected by"
                + " the residual predicate"), r.observed());
    }

    @Test
    void residualLockProbeGivesNoVerdictWhenNoRowWasRejected() throws SQLException {
        SqlServerStatements sql = ProbeModel.sql("pr_", ClaimOrder.PRIORITY_FIRST);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1), claimed(2));
        p.model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "X", "claim", 4L});
        p.jdbc.showplan(sql.get("claim"), ProbeModel.plan(true, ProbeModel.access("Index Seek", table("pr_"), sql.claimIndex(), true,
                2, 2)));
        ProbeResult r = new ResidualLockProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("(no row was rejected, so the question did not arise) -> no verdict"), r.observed());
        assertFalse(r.observed().contains("-> as documented"), r.observed());
    }

    @Test
    void theDoubleRefusesAnEstimatedPlanScriptedAsAnActualOne() {
        String estimated = ProbeModel.seekPlan("[t]", "[i]").replaceAll("<RunTimeInformation>.*?</RunTimeInformation>", "");
        assertThrows(ImpossibleResultException.class, () -> p.jdbc.showplan("SELECT 1;", estimated));
    }
}
