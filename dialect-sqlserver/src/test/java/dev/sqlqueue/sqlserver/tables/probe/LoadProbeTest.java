package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.spi.ProbeResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Probe V10 (re-review P8, many sessions at once) on the model ({@link ProbeModel}) with a run of no time: what it
 * reads before and after, the difference it prints and judges, and that its pool and tables go away. The counters
 * are scripted.
 */
class LoadProbeTest {
    private static final List<String> STATS = List.of("index_name", "row_lock_waits", "row_lock_wait_ms", "page_lock_waits",
            "page_latch_waits", "page_latch_wait_ms", "promotion_attempts", "promotions");
    private final ProbeModel p = new ProbeModel();
    private final SqlServerStatements sql = ProbeModel.sql("ld_", ClaimOrder.FIFO);

    private Object[] row(String index, long latchWaits, long attempts, long promotions) {
        return new Object[] {ProbeModel.PREFIX + index, 1L, 2L, 0L, latchWaits, 3L, attempts, promotions};
    }

    private void script(long promotionsAfter) {
        p.model.labelled(sql.get("readSettings"), List.of("name", "value"));
        String stats = sql.probe("probeIndexStats");
        p.model.labelled(stats, STATS, row("ld_messages_pk", 0, 0, 0), row("ld_messages_claim", 0, 0, 0)); // messages, before
        p.model.labelled(stats, STATS, row("ld_dedupe_keys_pk", 0, 0, 0)); // keys, before
        p.model.labelled(stats, STATS, row("ld_messages_pk", 5, 2, promotionsAfter), row("ld_messages_claim", 7, 0, 0));
        p.model.labelled(stats, STATS, row("ld_dedupe_keys_pk", 0, 0, 0));
        p.model.labelled(sql.probe("probeLockCounters"), List.of("counter_name", "value"), new Object[] {"Number of Deadlocks/sec", 4L});
        p.model.labelled(sql.probe("probeLockCounters"), List.of("counter_name", "value"), new Object[] {"Number of Deadlocks/sec", 6L});
    }

    @Test
    void anEscalationOnTheQueueTablesDiffersAndTheRawCountersArePrinted() throws Exception {
        script(1);
        ProbeResult r = new LoadProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.DIFFERS, r.verdict(), r.observed());
        assertTrue(r.observed().contains("lock escalations on the message and key tables during the run: 1 -> DIFFERS"),
                r.observed());
        assertTrue(r.observed().contains(ProbeModel.PREFIX + "ld_messages_pk 2/1, 0/0ms, 5/0ms;"), r.observed());
        assertTrue(r.observed().contains("Number of Deadlocks/sec +2;"), r.observed());
        assertTrue(r.observed().contains("errors: 1205 deadlock victim x0, 1222 lock time-out x0, query time-out x0; all: none"),
                r.observed());
        assertTrue(p.jdbc.plainBatches().contains(sql.probe("probeLockTimeout")), "the backend's sessions get the lock timeout");
        assertEquals("dropSchema", p.names(sql).get(p.names(sql).size() - 1));
        assertTrue(p.allClosed(), "the probe's pool closed every session");
    }

    @Test
    void noEscalationIsAsDocumented() throws Exception {
        script(0);
        ProbeResult r = new LoadProbe(p.migration, Duration.ZERO).run(p.context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
    }
}
