package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerErrors;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.CLAIM_COLUMNS;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeModel.claimed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.spi.ProbeResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A probe that cannot read a value (a dynamic management view missing, as on Babelfish, or not permitted) says
 * {@code could not read X: <error>} and gives no verdict, instead of a false one (issue 29: V4 reported "no page
 * latch waits at all" when it could not read them). On the model ({@link ProbeModel}); the failures are scripted:
 * 33557097 is what Babelfish 4.3 answers for a missing relation or function (SqlServerErrors.BABELFISH_UNMAPPED),
 * 300 is SQL Server's "VIEW SERVER STATE permission was denied".
 */
class ProbeReadFailuresTest {
    private static final List<String> LATCHES = List.of("index_name", "waits", "wait_ms");
    private static final List<String> GHOSTS = List.of("index_name", "ghosts", "version_ghosts", "pages");
    private final ProbeModel p = new ProbeModel();

    private void scriptHeadContention() {
        for (String code : List.of("cc_", "ch_", "lh_")) {
            SqlServerStatements sql = ProbeModel.sql(code, code.equals("lh_") ? ClaimOrder.LIFO : ClaimOrder.FIFO);
            p.model.labelled(sql.get("readSettings"), List.of("name", "value"));
            p.model.labelled(sql.probe("probeGhosts"), GHOSTS, new Object[] {"(heap)", 0L, 0L, 1L});
        }
    }

    @Test
    void headContentionGivesNoVerdictWhenTheHeapsLatchWaitsCannotBeRead() throws Exception {
        scriptHeadContention();
        String latches = ProbeModel.sql("cc_", ClaimOrder.FIFO).probe("probeLatches"); // one text for every table set
        p.model.labelled(latches, LATCHES, new Object[] {ProbeModel.PREFIX + "cc_messages_claim", 3L, 10L},
                new Object[] {ProbeModel.PREFIX + "cc_messages_pk", 9L, 50L});
        p.model.fail(latches, 300, "S0001");
        ProbeResult r = new HeadContentionProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("could not read fifo/heap page latch waits (sys.dm_db_index_operational_stats, readable"
                + " with VIEW SERVER STATE): error 300"), r.observed());
        assertTrue(r.observed().contains("fifo/clustered: page latch waits (count/ms) " + ProbeModel.PREFIX + "cc_messages_claim=3/10ms"),
                r.observed());
        assertEquals(3, p.model.effects("DROP", "").stream().filter(e -> e.text().contains("schema_history")).count());
        assertTrue(p.allClosed());
    }

    @Test
    void headContentionDoesNotCallUnreadableLatchWaitsNoWaitsAtAll() throws Exception {
        scriptHeadContention();
        p.model.fail(ProbeModel.sql("cc_", ClaimOrder.FIFO).probe("probeLatches"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        ProbeResult r = new HeadContentionProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertFalse(r.observed().contains("no page latch waits at all"), r.observed());
        assertFalse(r.observed().contains("no page latch wait at all"), r.observed());
        assertEquals(3, r.observed().split("could not read .{8,14} page latch waits", -1).length - 1, r.observed());
    }

    @Test
    void headContentionSaysSoWhenTheViewsWereReadAndShowNoWait() throws Exception {
        scriptHeadContention();
        p.model.labelled(ProbeModel.sql("cc_", ClaimOrder.FIFO).probe("probeLatches"), LATCHES, new Object[] {"(heap)", 0L, 0L});
        ProbeResult r = new HeadContentionProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("the views were read and show no page latch wait at all"), r.observed());
    }

    @Test
    void unreadableLocksEndTheResidualLockProbeWithoutAVerdictNotAnError() throws Exception {
        SqlServerStatements sql = ProbeModel.sql("pr_", ClaimOrder.PRIORITY_FIRST);
        p.model.labelled(sql.get("claim"), CLAIM_COLUMNS, claimed(1));
        p.model.fail(sql.probe("probeLocks"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        ProbeResult r = new ResidualLockProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("\ncould not read the locks the open claim holds (sys.dm_tran_locks, readable with VIEW"
                + " SERVER STATE): error 33557097"), r.observed());
        assertEquals("dropSchema", p.names(sql).get(p.names(sql).size() - 1));
        assertTrue(p.allClosed());
    }

    @Test
    void unreadableLocksLeaveEachClaimPlanRunWithoutAVerdict() throws Exception {
        p.scriptClaimPlanRuns(false);
        p.model.fail(ProbeModel.sql("fc_", ClaimOrder.FIFO).probe("probeLocks"), 300, "S0001");
        ProbeResult r = new ClaimPlanProbe(p.migration, 10).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertEquals(6, r.observed().split("could not read the locks the ", -1).length - 1, r.observed());
        assertTrue(r.observed().contains("row/key locks not read -> no verdict"), r.observed());
    }

    @Test
    void loadProbeGivesNoVerdictWhenTheIndexCountersCannotBeRead() throws Exception {
        SqlServerStatements sql = ProbeModel.sql("ld_", ClaimOrder.FIFO);
        p.model.labelled(sql.get("readSettings"), List.of("name", "value"));
        p.model.fail(sql.probe("probeIndexStats"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        p.model.fail(sql.probe("probeLockCounters"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        ProbeResult r = new LoadProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("could not read lock escalations, lock and latch waits per index before the run"),
                r.observed());
        assertTrue(r.observed().contains("could not read the server-wide lock counters"), r.observed());
        assertTrue(p.allClosed());
    }
}
