package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static dev.sqlqueue.sqlserver.tables.probe.ProbeCallSequenceTest.VERSIONING_COLUMNS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Probe V9 (re-review P7, the expired-key clean-up's READPAST under READ_COMMITTED_SNAPSHOT) on the model
 * ({@link ProbeModel}); the database settings and the statement's answers are scripted.
 */
class ExpiredKeysProbeTest {
    private final ProbeModel p = new ProbeModel();
    private final SqlServerStatements sql = ProbeModel.sql("ek_", ClaimOrder.FIFO);

    private void rcsi(int on) {
        p.model.labelled(sql.probe("probeDatabaseVersioning"), VERSIONING_COLUMNS, new Object[] {on, 1});
    }

    @Test
    void underRcsiTheCleanUpRunsAtReadCommittedAndItsCountIsTheVerdict() throws SQLException {
        rcsi(1);
        p.model.rows(sql.get("deleteExpiredKeysBatch"), new Object[] {10L});
        p.model.rows(sql.probe("probeExpiredKeysWithoutLockHint"), new Object[] {10L});
        ProbeResult r = new ExpiredKeysProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().contains("deleteExpiredKeysBatch at READ COMMITTED: ran, deleted 10 of 10 expired keys -> as"
                + " documented"), r.observed());
        assertTrue(r.observed().contains("for comparison, the same without READCOMMITTEDLOCK: ran, deleted 10 of 10"), r.observed());
        List<String> names = p.names(sql);
        assertEquals(List.of("probeExpiredKeys", "deleteExpiredKeysBatch", "purgeKeysBatch"),
                names.subList(names.indexOf("probeExpiredKeys"), names.indexOf("probeExpiredKeys") + 3));
        List<Effect> deletes = p.model.effects("DELETE", sql.dedupeKeysTable());
        assertEquals(Effect.State.COMMITTED, deletes.get(0).state(), "the clean-up commits as the backend's own transaction");
        assertTrue(p.model.log().stream().anyMatch(l -> l.contains("isolation=2")), "READ COMMITTED, as the backend's session");
        assertTrue(p.allClosed());
    }

    @Test
    void aRefusedCleanUpUnderRcsiDiffers() throws SQLException {
        rcsi(1);
        p.model.fail(sql.get("deleteExpiredKeysBatch"), 650, "S0001");
        ProbeResult r = new ExpiredKeysProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("deleteExpiredKeysBatch at READ COMMITTED: refused with error 650"), r.observed());
        assertTrue(p.allClosed());
    }

    @Test
    void withoutRcsiThereIsNoVerdict() throws SQLException {
        rcsi(0);
        p.model.rows(sql.get("deleteExpiredKeysBatch"), new Object[] {10L});
        ProbeResult r = new ExpiredKeysProbe(p.migration).run(p.context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict(), r.observed());
        assertTrue(r.observed().contains("READ_COMMITTED_SNAPSHOT is OFF here"), r.observed());
    }
}
