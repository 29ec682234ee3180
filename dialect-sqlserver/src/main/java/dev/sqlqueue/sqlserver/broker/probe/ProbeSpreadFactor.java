package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.AdminStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.UUID;

/**
 * V7: the 150 trick's cost side: how long a fill of 2 dialogs takes with spread 1 and with spread 150,
 * and the server's PAGELATCH waits around them (needs VIEW SERVER STATE). Whether the trick pays off
 * is decided by {@code SendBenchmark} at 16 to 64 threads, not by this probe: its verdict is always
 * INCONCLUSIVE, with the figures.
 */
final class ProbeSpreadFactor extends BrokerProbe {
    ProbeSpreadFactor() {
        super("V7", "What does a fill with spread 150 cost against spread 1 (time, PAGELATCH waits)?",
                "the trick is off by default; it pays only at high send rates (seed 000, SQLCAT): run SendBenchmark to decide");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        StringBuilder observed = new StringBuilder();
        try (Connection c = s.connect()) {
            for (int spread : new int[] {1, 150}) {
                String before = latches(c);
                long t0 = System.nanoTime();
                int kept = Sql.query(c, s.sql.dialogs().fillDialogs(s.q, 600), 2, spread, s.q.value(), UUID.randomUUID().toString()).size();
                long ms = (System.nanoTime() - t0) / 1_000_000;
                observed.append(observed.length() == 0 ? "" : "\n").append("spread ").append(spread).append(": ").append(kept)
                        .append(" kept of ").append(2 * spread).append(" begun in ").append(ms).append(" ms; PAGELATCH before [")
                        .append(before).append("] after [").append(latches(c)).append("]");
            }
        }
        return ProbeResult.inconclusive(observed.toString());
    }

    private static String latches(Connection c) {
        try {
            StringBuilder b = new StringBuilder();
            for (Object[] r : Sql.query(c, AdminStatements.pageLatchWaits())) {
                b.append(b.length() == 0 ? "" : ", ").append(r[0]).append(' ').append(r[1]).append(" waits ").append(r[2]).append(" ms");
            }
            return b.length() == 0 ? "no PAGELATCH_EX/SH row in sys.dm_os_wait_stats" : b.toString();
        } catch (java.sql.SQLException e) {
            return "not readable (error " + e.getErrorCode() + ": VIEW SERVER STATE needed)";
        }
    }
}
