package dev.sqlqueue.teradata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.ServerProbes;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The probes' call sequences on the model: each answer of the model's switches gives the verdict it
 * should, and every probe leaves no table behind. What a real system answers is for the probe to find.
 */
class ProbesOnModelTest {
    private static final String PREFIX = "sqlqprobe_ab12_";

    private static ProbeContext context(TeradataModel m) {
        QueueConfig config = QueueConfig.builder().backend("teradata").dataSource(m.dataSource()).build();
        return new ProbeContext() {
            @Override
            public Connection connect() throws SQLException {
                return m.dataSource().getConnection();
            }

            @Override
            public String prefix() {
                return PREFIX;
            }

            @Override
            public QueueConfig config() {
                return config;
            }
        };
    }

    private static ProbeResult run(TeradataModel m, Probe p) throws Exception {
        ProbeResult r = p.run(context(m));
        assertFalse(m.exists(PREFIX + "probe"), p.id() + " dropped its table");
        return r;
    }

    @Test
    void theProviderListsV1ToV6AndTheRunnerFindsThem() {
        assertEquals(List.of("V1", "V2", "V3", "V4", "V5", "V6"), new TeradataProvider().probes().stream().map(Probe::id).toList());
        QueueConfig config = QueueConfig.builder().backend("teradata").url("jdbc:teradata://h/TMODE=ANSI").build();
        assertEquals(List.of("V4"), ServerProbes.select(config, List.of("v4")).stream().map(Probe::id).toList());
    }

    @Test
    void v1ReportsWhetherABatchGivesOneKeyPerRow() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new KeysProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("batch of 3: 3 row(s) [1, 2, 3], columns [seq]"), r.observed());
        m.keys = TeradataModel.Keys.FIRST_OF_BATCH_ONLY;
        r = run(m, new KeysProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("1 row(s)"), r.observed());
    }

    @Test
    void v2InsertsALargeRowAndReadsItBack() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new LargeRowProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("consumed back identical"), r.observed());
    }

    @Test
    void v3ReadsTheSessionsRedriveParticipation() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, run(m, new RedriveProbe()).verdict());
        m.logonRedrive = "MEMORY NON-FALLBACK RESPONSES";
        ProbeResult r = run(m, new RedriveProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict());
        assertTrue(r.observed().contains("MEMORY NON-FALLBACK RESPONSES"), r.observed());
    }

    @Test
    void v4TellsACancelThatEndsTheDelayedConsumeFromOneThatDoesNot() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new CancelProbe(100, 2000));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("[751/HY000]") && r.observed().contains("still works"), r.observed());
        m.abortHonoured = false;
        r = run(m, new CancelProbe(100, 500));
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("at its query timeout it ended with [1476/08S01]"), r.observed());
    }

    @Test
    void v5TellsWhetherTheConsumeWaitsForAnUncommittedRow() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new UncommittedRowProbe(300));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("peek saw") && r.observed().contains("waited"), r.observed());
        m.cacheListsUncommitted = false;
        r = run(m, new UncommittedRowProbe(300));
        assertTrue(r.observed().contains("took the newer committed row at once"), r.observed());
    }

    @Test
    void v6ReadsTheHelpSessionLabels() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, run(m, new HelpSessionProbe()).verdict());
        m.helpSession = Map.of("User Name", "Q", "Session Transaction Mode", "ANSI");
        ProbeResult r = run(m, new HelpSessionProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
    }
}
