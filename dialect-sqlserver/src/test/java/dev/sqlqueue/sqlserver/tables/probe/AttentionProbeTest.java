package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerErrors;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Probe V7 (re-review P7, what an attention does to the open transaction) on the model ({@link ProbeModel}). The
 * model's rule for an attention ({@code SqlServerModel.blocks}): the statement ends with SQLTimeoutException and
 * the open transaction stays open whatever XACT_ABORT is, the conservative reading, since Microsoft Learn is
 * silent. So here the XACT_ABORT ON case differs from what third-party sources say: the probe must print that as
 * measured. Nothing here says what SQL Server does.
 */
class AttentionProbeTest {
    private final ProbeModel p = new ProbeModel();
    private final SqlServerStatements sql = ProbeModel.sql("at_", ClaimOrder.FIFO);

    @Test
    void itReadsTrancountAfterEachAttentionAndRollsBackAndDropsWhatItMade() throws SQLException {
        p.model.blocks(sql.probe("probeWaitXactAbortOff"));
        p.model.blocks(sql.probe("probeWaitXactAbortOn"));
        ProbeResult r = new AttentionProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        String[] lines = r.observed().split("\n");
        assertTrue(lines[0].startsWith("XACT_ABORT OFF: @@TRANCOUNT 1 before the wait; the wait ended by the 1 s query timeout after")
                && lines[0].endsWith("@@TRANCOUNT 1 after: the transaction was left open -> as documented"), lines[0]);
        assertTrue(lines[1].startsWith("XACT_ABORT ON: @@TRANCOUNT 1 before the wait;")
                && lines[1].endsWith("@@TRANCOUNT 1 after: the transaction was left open -> DIFFERS"), lines[1]);
        assertEquals(1, p.model.queryTimeoutOf(sql.probe("probeWaitXactAbortOff")));
        assertEquals(1, p.model.queryTimeoutOf(sql.probe("probeWaitXactAbortOn")));
        assertEquals(2, p.model.effects("UPDATE", sql.queuesTable()).size());
        assertTrue(p.model.effects("UPDATE", sql.queuesTable()).stream().allMatch(e -> e.state() == Effect.State.ROLLED_BACK),
                "the probe rolls back the transactions it left open");
        assertEquals("dropSchema", p.names(sql).get(p.names(sql).size() - 1));
        assertTrue(p.allClosed());
    }

    @Test
    void aWaitThatTheQueryTimeoutDoesNotEndGivesNoVerdict() throws SQLException {
        ProbeResult r = new AttentionProbe(p.migration).run(p.context); // the model runs WAITFOR at once: no attention
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("XACT_ABORT OFF: the wait returned after"), r.observed());
        assertTrue(r.observed().contains("the 1 s query timeout did not end it -> no verdict"), r.observed());
        assertTrue(p.allClosed());
    }

    @Test
    void aServerWithoutWaitforGivesNoVerdict() throws SQLException {
        // as the shared Babelfish 4.3 build answers: error 33557097 "'WAITFOR' is not currently supported in Babelfish"
        p.model.fail(sql.probe("probeWaitXactAbortOff"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        p.model.fail(sql.probe("probeWaitXactAbortOn"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        ProbeResult r = new AttentionProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("with error 33557097"), r.observed());
        assertTrue(r.observed().contains("not by the query timeout -> no verdict"), r.observed());
    }
}
