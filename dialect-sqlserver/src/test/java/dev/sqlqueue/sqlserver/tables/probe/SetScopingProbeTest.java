package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerErrors;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Probe V2's isolation check (re-review P1) on the driver and server model ({@link ProbeModel}): each session is put
 * at SERIALIZABLE by a plain batch before the claims, so a claim whose {@code SET TRANSACTION ISOLATION LEVEL READ
 * COMMITTED} outlived its batch shows as level 2 afterwards. What the server answers ({@code sys.dm_exec_sessions},
 * {@code @@OPTIONS}) is scripted: nothing here says what SQL Server does.
 */
class SetScopingProbeTest {
    private static final List<String> OPTIONS = List.of("options", "isolation");
    private static final int KEPT = SetScopingProbe.NOCOUNT | SetScopingProbe.XACT_ABORT;
    private final ProbeModel p = new ProbeModel();
    private final SqlServerStatements sql = ProbeModel.sql("so_", ClaimOrder.FIFO);

    /** Before and after for the four driver settings and the backend path, in the order the probe reads them. */
    private void script(int[]... beforeAfter) {
        for (int[] ba : beforeAfter) {
            p.model.labelled(sql.probe("probeOptions"), OPTIONS, new Object[] {ba[0], ba[1]});
        }
        p.model.labelled(sql.get("claim"), ProbeModel.CLAIM_COLUMNS);
    }

    @Test
    void aClaimWhoseIsolationLevelOutlivesItsBatchDiffers() throws SQLException {
        script(new int[] {0, 4}, new int[] {0, 2}, // default: the claim's READ COMMITTED stayed
                new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4},
                new int[] {0, 4}, new int[] {KEPT, 2}, // prepareMethod=none: plain batches, kept as documented
                new int[] {0, 4}, new int[] {0, 4});
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("default (sp_executesql, sp_prepexec, sp_execute): session isolation level 4 before the"
                + " claim, 2 after: the claim's SET TRANSACTION ISOLATION LEVEL READ COMMITTED outlived its batch -> DIFFERS"),
                r.observed());
        assertTrue(r.observed().contains("prepareMethod=none (plain batches): session isolation level 4 before the claim, 2 after"
                + " (not judged: plain batches only with mssql-jdbc 13.4 or later, sp_prepare before)\n"), r.observed());
        assertTrue(r.observed().contains("prepareMethod=prepare (sp_prepare, sp_execute): session isolation level 4 before the"
                + " claim, 4 after: the claim's SET TRANSACTION ISOLATION LEVEL READ COMMITTED did not outlive its batch -> as"
                + " documented"), r.observed());
        assertEquals(5, p.jdbc.plainBatches().stream().filter(sql.probe("probeSerializable")::equals).count(),
                "every measured session is put at SERIALIZABLE by a plain batch: " + p.jdbc.plainBatches());
        for (int s = 1; s <= p.model.sessionsOpened(); s++) {
            List<String> calls = p.model.logContaining("c" + s + " ");
            int set = indexOf(calls, "SERIALIZABLE");
            int claim = indexOf(calls, "WITH [claim]");
            assertTrue(claim < 0 || (set >= 0 && set < claim), "c" + s + " claimed before its session was at SERIALIZABLE: " + calls);
        }
        assertTrue(p.allClosed());
    }

    @Test
    void sessionsThatKeepTheirLevelAreAsDocumented() throws SQLException {
        script(new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4},
                new int[] {0, 4}, new int[] {KEPT, 2}, new int[] {0, 4}, new int[] {0, 4});
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertFalse(r.observed().contains("-> DIFFERS") || r.observed().contains("-> no verdict"), r.observed());
    }

    @Test
    void aServerThatRefusesSerializableIsProbedAtReadUncommittedAndSaysSo() throws SQLException {
        // as the shared Babelfish 4.3 build answers: error 33557097, "Isolation level 'SERIALIZABLE' is not currently
        // supported in Babelfish"
        p.model.fail(sql.probe("probeSerializable"), SqlServerErrors.BABELFISH_UNMAPPED, "S0001");
        script(new int[] {0, 1}, new int[] {0, 1}, new int[] {0, 1}, new int[] {0, 1}, new int[] {0, 1}, new int[] {0, 1},
                new int[] {0, 1}, new int[] {KEPT, 2}, new int[] {0, 1}, new int[] {0, 1});
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("the session was put at READ UNCOMMITTED (1) instead"), r.observed());
        assertTrue(r.observed().contains("session isolation level 1 before the claim, 1 after"), r.observed());
    }

    @Test
    void sessionOptionsThatCannotBeReadGiveNoVerdictInsteadOfAnError() throws SQLException {
        // 297: "The user does not have permission to perform this action." (any failure of the read will do)
        p.model.fail(sql.probe("probeOptions"), 297, "S0001");
        p.model.labelled(sql.get("claim"), ProbeModel.CLAIM_COLUMNS);
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("could not read default (sp_executesql, sp_prepexec, sp_execute): @@OPTIONS and isolation"
                + " level before the claims (@@OPTIONS, sys.dm_exec_sessions): error 297"), r.observed());
        assertFalse(r.observed().contains("-> DIFFERS") || r.observed().contains("-> as documented"), r.observed());
        assertEquals("dropSchema", p.names(sql).get(p.names(sql).size() - 1));
        assertTrue(p.allClosed());
    }

    @Test
    void aSetThatDoesNotShowInTheSessionViewGivesNoVerdictForTheLevel() throws SQLException {
        script(new int[] {0, 2}, new int[] {0, 2}, // default: the plain SET did not take, so the level says nothing
                new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4}, new int[] {0, 4},
                new int[] {0, 4}, new int[] {KEPT, 2}, new int[] {0, 4}, new int[] {0, 4});
        ProbeResult r = new SetScopingProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("(the plain SET of level 4 did not show in sys.dm_exec_sessions) -> no verdict"),
                r.observed());
    }

    private static int indexOf(List<String> calls, String fragment) {
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).contains(fragment)) {
                return i;
            }
        }
        return -1;
    }
}
