package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Probe V8 (re-review N1 and P7, keyed producers) on the model ({@link ProbeModel}): its sessions, lock timeouts,
 * the order of its takes and that it rolls everything back. The model has no locks, so each take's answer (the key
 * taken, or error 1222 "Lock request time out period exceeded." after SET LOCK_TIMEOUT) is scripted in the order
 * the probe runs them; the two concurrent takes of the second experiment all get "taken". The backend rounds (the
 * third experiment) need a server and are not run here.
 */
class KeyedProducersProbeTest {
    private final ProbeModel p = new ProbeModel();
    private final SqlServerStatements sql = ProbeModel.sql("kp_", ClaimOrder.FIFO);
    private final String takeKey = sql.get("takeKey");

    private void taken() {
        p.model.labelled(takeKey, List.of("message_id"), new Object[] {null});
    }

    @Test
    void differentKeysDoNotWaitTheSameKeyWaitsAndEverythingIsRolledBack() throws Exception {
        taken(); // A 'b'
        taken(); // B 'c'
        taken(); // B 'a'
        p.model.fail(takeKey, 1222, "S00051"); // C 'b' waits for A and times out
        taken(); // the concurrent takes
        ProbeResult r = new KeyedProducersProbe(p.migration, 0).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        String[] lines = r.observed().split("\n");
        assertTrue(lines[0].startsWith("while session A held key 'b' in its open transaction, session B: 'c' taken in")
                && lines[0].endsWith("-> as documented"), lines[0]);
        assertTrue(lines[1].startsWith("session C on the key A held: 'b' error 1222") && lines[1].endsWith("(it waited for A) -> as"
                + " documented"), lines[1]);
        assertTrue(lines[2].startsWith("two sessions taking keys in opposite order") && lines[2].endsWith("-> as documented"),
                lines[2]);
        assertEquals(5, p.jdbc.plainBatches().stream().filter(sql.probe("probeLockTimeout")::equals).count(),
                "every session runs SET LOCK_TIMEOUT as a plain batch first: " + p.jdbc.plainBatches());
        assertTrue(p.model.logContaining("<-- [probe, b., 600, 0]").size() >= 2, "keys are stored with their '.'");
        List<Effect> keyDeletes = p.model.effects("DELETE", sql.dedupeKeysTable());
        assertEquals(7, keyDeletes.size());
        assertTrue(keyDeletes.stream().allMatch(e -> e.state() == Effect.State.ROLLED_BACK), "every take is rolled back");
        assertEquals("dropSchema", p.names(sql).get(p.names(sql).size() - 1));
        assertTrue(p.allClosed());
    }

    @Test
    void aProducerOfAnotherKeyThatWaitsDiffers() throws SQLException, Exception {
        taken(); // A 'b'
        p.model.fail(takeKey, 1222, "S00051"); // B 'c' waited: a range lock
        taken();
        ProbeResult r = new KeyedProducersProbe(p.migration, 0).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("session B: 'c' error 1222 (S00051): scripted failure 1222"), r.observed());
        assertTrue(p.allClosed());
    }
}
