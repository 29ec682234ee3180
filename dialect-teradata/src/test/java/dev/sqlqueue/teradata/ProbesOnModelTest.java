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
        assertEquals(List.of("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12"),
                new TeradataProvider().probes().stream().map(Probe::id).toList());
        QueueConfig config = QueueConfig.builder().backend("teradata").url("jdbc:teradata://h/TMODE=ANSI").build();
        assertEquals(List.of("V4"), ServerProbes.select(config, List.of("v4")).stream().map(Probe::id).toList());
    }

    @Test
    void v1ReportsWhetherABatchGivesOneKeyPerRow() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new KeysProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("batch of 3: 3 row(s) [1, 2, 3], columns [seq], their rows' places in the batch"
                + " [0, 1, 2]"), r.observed());
        m.keys = TeradataModel.Keys.FIRST_OF_BATCH_ONLY;
        r = run(m, new KeysProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("1 row(s)"), r.observed());
        m.keys = TeradataModel.Keys.BATCH_REVERSED;
        r = run(m, new KeysProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("places in the batch [2, 1, 0]") && r.observed().contains("not in row order"), r.observed());
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
        ProbeResult r = run(m, new RedriveProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("driver RNP_ACTIVE=false, REDRIVE_ACTIVE=false"), r.observed());
        m.logonRedrive = "MEMORY NON-FALLBACK RESPONSES";
        r = run(m, new RedriveProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict());
        assertTrue(r.observed().contains("MEMORY NON-FALLBACK RESPONSES"), r.observed());
        m.logonRedrive = "";
        m.reconnectWindowMillis = 60_000;
        r = run(m, new RedriveProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict());
        assertTrue(r.observed().contains("RNP_ACTIVE=true") && r.observed().contains("REDRIVE=0"), r.observed());
    }

    @Test
    void v4TellsACancelThatEndsTheDelayedConsumeFromOneThatDoesNot() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new CancelProbe(100, 2000));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("delay state: cancel: failed after") && r.observed().contains("; lock wait: cancel: failed"),
                r.observed());
        assertEquals(2, r.observed().split("\\[751/HY000]", -1).length - 1, r.observed());
        assertEquals(2, r.observed().split("was rolled back; the session then still works", -1).length - 1, r.observed());
        m.abortHonoured = false;
        r = run(m, new CancelProbe(100, 500));
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("at its query timeout it failed after") && r.observed().contains("[1476/08S01]")
                && r.observed().contains("session then failed its next request"), r.observed());
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

    @Test
    void v7ShowsWhatAnExpiredQueryTimeoutRaisesAndThatItRolledBack() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new TimeoutProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("SQLException [802/HY000]") && r.observed().contains("back (rolled back)"), r.observed());
    }

    @Test
    void v8ShowsThatConnectionAbortAloneDoesNothing() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new AbortProbe(100, 300));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("the consume still ran 300 ms after Connection.abort; after a cancel it failed"),
                r.observed());
    }

    @Test
    void v9Compares2801InBothSessionModes() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new SessionModeProbe(ctx -> {
            m.ansiSessions = false;
            try {
                Connection c = m.dataSource().getConnection();
                c.setAutoCommit(false);
                return c;
            } finally {
                m.ansiSessions = true;
            }
        }));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().matches("ANSI: the INSERT of a taken key: .*\\[2801/23000].*earlier INSERT after COMMIT: kept;"
                + " Teradata mode: .*\\[2801/23000].*earlier INSERT after COMMIT: gone"), r.observed());
        r = run(m, new SessionModeProbe(ctx -> null));
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
    }

    @Test
    void v10ComparesEachEdgeCodePointWithTheBackendsTable() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new RepertoireProbe());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("U+00E9: stored; U+E000: refused SQLException [6706/HY000]"), r.observed());
        m.passThroughAtLogon = true;
        r = run(m, new RepertoireProbe());
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
    }

    @Test
    void v11ReadsAQitsInTheJvmZonesGapAsTextAndByGetObject() throws Exception {
        java.util.TimeZone before = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Europe/Berlin"));
        try {
            TeradataModel m = new TeradataModel("qdb");
            ProbeResult r = run(m, new TimeRoundTripProbe());
            assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
            assertTrue(r.observed().matches("a wall clock in the JVM zone's \\(Europe/Berlin\\) gap: wrote '(\\S+) 02:30:00.000000',"
                    + " read as text '\\1 02:30:00.000000', by getObject\\(LocalDateTime\\) \\1T03:30"), r.observed());
        } finally {
            java.util.TimeZone.setDefault(before);
        }
    }

    @Test
    void v12TellsWhetherAClosedSocketGivesTheRowsBackOrTheSessionIsKept() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        ProbeResult r = run(m, new ClosedSocketProbe(100, 2000));
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("RNP_ACTIVE=false, REDRIVE_ACTIVE=false; the blocked consume failed after")
                && r.observed().contains("[804/08S01]") && r.observed().contains("the consumed row was back after"), r.observed());
        m.reconnectWindowMillis = 5_000;
        r = run(m, new ClosedSocketProbe(100, 500));
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("not back within 500 ms"), r.observed());
    }
}
