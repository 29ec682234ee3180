package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Sessions;
import dev.sqlqueue.sqlserver.tables.SqlServerNames;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.CLAIM_COLUMNS;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.LOCK_COLUMNS;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.claimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The probes' call sequences on the driver and server model ({@link ProbeModel}): what they run, in
 * which transactions, and that they drop what they created whatever happens. Measurements are scripted;
 * nothing here ran against SQL Server, so no verdict here says anything about a server.
 */
class ProbeCallSequenceTest {
    static final List<String> VERSIONING_COLUMNS = List.of("is_read_committed_snapshot_on", "snapshot_isolation_state");

    /** Script one ClaimRun: the two empty-table claims return nothing, the measured one two rows, with an actual plan. */
    private static void scriptClaimRun(ProbeModel p, SqlServerStatements sql, long keyLocks) {
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1), claimed(2));
        p.model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "X", "claim", keyLocks},
                new Object[] {"OBJECT", "IX", "-", 1L});
        p.jdbc.showplan(sql.get("claim"), ProbeModel.seekPlan(SqlServerNames.quote(ProbeModel.PREFIX + "fc_messages"),
                sql.claimIndex()));
    }

    @Test
    void claimPlanRunCachesOnEmptyThenMeasuresInARolledBackTransactionAndDropsItsTables() throws SQLException {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("fc_", ClaimOrder.FIFO);
        scriptClaimRun(p, sql, 4);
        ProbeObservations obs = new ProbeObservations();
        ClaimRun r = ClaimRun.run(p.context, ClaimOrder.FIFO, Layout.CLUSTERED, 10, p.migration, obs);
        assertEquals(List.of("sqlqprobe_ab12_fc_schema_history clustered"), p.migrated);
        assertEquals(List.of("DETECT_ENGINE", "createQueue", "probeAutostatsOff",
                "probeStatisticsXmlOn", "claim", "probeStatisticsXmlOff", "probeStatisticsXmlOn", "claim", "probeStatisticsXmlOff",
                "probeFill", "probeStatisticsXmlOn", "claim", "probeStatisticsXmlOff", "probeLocks", "dropSchema"), p.names(sql));
        List<Effect> claims = p.model.effects("WITH", sql.messagesTable());
        assertEquals(List.of(Effect.State.ROLLED_BACK, Effect.State.ROLLED_BACK, Effect.State.ROLLED_BACK),
                claims.stream().map(Effect::state).toList(), "every claim is rolled back: the probe leaves no message claimed");
        assertEquals(Effect.State.COMMITTED, p.model.effects("INSERT", sql.messagesTable()).get(0).state(), "the fill is committed");
        assertEquals(Effect.State.COMMITTED, p.model.effects("DROP", sql.messagesTable()).get(0).state(), "the tables are dropped");
        assertTrue(p.allClosed());
        assertEquals(0, r.claimedOnEmpty());
        assertEquals(2, r.claimed());
        assertEquals(4, r.rowLocks());
        assertEquals(Boolean.TRUE, r.planAsDocumented(), r.line());
        assertTrue(r.plan().actual(), "the plan is the one that ran (SET STATISTICS XML), not the cached estimate");
        assertTrue(p.jdbc.plainBatches().containsAll(List.of(ProbeJdbc.STATISTICS_XML_ON, ProbeJdbc.STATISTICS_XML_OFF)),
                "STATISTICS XML is set by plain batches, so that it applies to the claim's RPC");
        assertEquals(List.of(), obs.lines(), "nothing was unreadable");
    }

    @Test
    void aFailingStepStillDropsTheTables() {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("pr_", ClaimOrder.PRIORITY_FIRST);
        p.model.fail(sql.probe("probeFill"), 1105, "S0001");
        assertThrows(SQLException.class, () -> new ResidualLockProbe(p.migration).run(p.context));
        List<String> names = p.names(sql);
        assertEquals("dropSchema", names.get(names.size() - 1), names.toString());
        assertTrue(p.allClosed());
    }

    @Test
    void residualLockProbeDiffersWhenTheOpenClaimHoldsLocksOnRejectedRows() throws SQLException {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("pr_", ClaimOrder.PRIORITY_FIRST);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1), claimed(2));
        p.model.labelled(sql.probe("probeLocks"), LOCK_COLUMNS, new Object[] {"KEY", "U", "claim", 1000L},
                new Object[] {"KEY", "X", "pk", 2L});
        ProbeResult r = new ResidualLockProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("row/key locks held by the open claim: 1002"), r.observed());
        assertEquals(List.of("DETECT_ENGINE", "createQueue", "probeFill", "probeStatisticsXmlOn", "claim", "probeStatisticsXmlOff",
                "probeLocks", "dropSchema"), p.names(sql));
        assertEquals(Effect.State.ROLLED_BACK, p.model.effects("WITH", sql.messagesTable()).get(0).state());
    }

    @Test
    void claimPlanProbeRunsEveryOrderingAndLayoutAndReportsEachNextToTheDocs() throws SQLException {
        ProbeModel p = new ProbeModel();
        p.scriptClaimPlanRuns(true);
        ProbeResult r = new ClaimPlanProbe(p.migration, 10).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertEquals(6, r.observed().split("\n").length);
        assertEquals(6, p.migrated.size());
        assertEquals(6, p.model.effects("DROP", "").stream().filter(e -> e.text().contains("schema_history")).count());
        assertTrue(p.allClosed());
    }

    @Test
    void snapshotProbeRollsTheCallerBackAndIsInconclusiveWithoutSnapshotIsolation() throws SQLException {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("sj_", ClaimOrder.FIFO);
        p.model.labelled(sql.probe("probeDatabaseVersioning"), VERSIONING_COLUMNS, new Object[] {1, 0});
        ProbeResult r = new SnapshotJoinedEnqueueProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict());
        assertEquals(List.of("DETECT_ENGINE", "createQueue", "probeDatabaseVersioning", "dropSchema"), p.names(sql));
        assertTrue(p.allClosed());
    }

    @Test
    void snapshotProbeReportsAFailedJoinedEnqueueAsDiffering() throws SQLException {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("sj_", ClaimOrder.FIFO);
        p.model.labelled(sql.probe("probeDatabaseVersioning"), VERSIONING_COLUMNS, new Object[] {0, 1});
        p.model.labelled(sql.get("readSettings"), List.of("name", "value"));
        p.model.labelled(sql.get("enqueueJoined"), List.of("id")); // no row: neither before nor after the create
        ProbeResult r = new SnapshotJoinedEnqueueProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        List<String> names = p.names(sql);
        assertEquals(List.of("enqueueJoined", "createQueue", "enqueueJoined"),
                names.subList(names.indexOf("enqueueJoined"), names.lastIndexOf("enqueueJoined") + 1));
        assertEquals("dropSchema", names.get(names.size() - 1));
        assertTrue(p.model.log().stream().anyMatch(l -> l.contains("isolation=4096")), "the caller runs under SNAPSHOT");
        assertTrue(p.allClosed());
    }

    @Test
    void setScopingProbeGivesTheConnectionBackWithItsPrepareMethodAndDropsItsTables() throws SQLException {
        ProbeModel p = new ProbeModel();
        SqlServerStatements sql = ProbeModel.sql("so_", ClaimOrder.FIFO);
        p.model.labelled(sql.probe("probeOptions"), List.of("options", "isolation"), new Object[] {0, 4});
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS);
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertTrue(r.observed().contains("backend Sessions on a prepareMethod=none connection:"), r.observed());
        assertTrue(r.observed().contains("prepareMethod given back as none -> as documented"), r.observed());
        assertTrue(r.observed().contains("backend Sessions on a prepareMethod=none connection: session isolation level 4 before"
                + " the claim, 4 after"), r.observed());
        int last = p.model.sessionsOpened() - 1; // the backend-path connection; the last one drops the tables
        assertTrue(!p.model.session(last).nocount() && !p.model.session(last).xactAbort(),
                "Sessions ran the claim as an RPC although the connection said none: " + p.model.session(last));
        List<String> names = p.names(sql);
        assertEquals("dropSchema", names.get(names.size() - 1));
        assertTrue(p.allClosed());
    }

    @Test
    void headContentionProbeDropsItsTablesAndIsInconclusiveWithoutAnyLatchWait() throws Exception {
        ProbeModel p = new ProbeModel();
        for (String code : List.of("cc_", "ch_", "lh_")) {
            SqlServerStatements sql = ProbeModel.sql(code, code.equals("lh_") ? ClaimOrder.LIFO : ClaimOrder.FIFO);
            p.model.labelled(sql.get("readSettings"), List.of("name", "value"));
            p.model.labelled(sql.probe("probeLatches"), List.of("index_name", "waits", "wait_ms"), new Object[] {"(heap)", 0L, 0L});
            p.model.labelled(sql.probe("probeGhosts"), List.of("index_name", "ghosts", "version_ghosts", "pages"),
                    new Object[] {"(heap)", 0L, 0L, 1L});
        }
        ProbeResult r = new HeadContentionProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertEquals(3, p.model.effects("DROP", "").stream().filter(e -> e.text().contains("schema_history")).count());
        assertTrue(p.allClosed());
    }
}
