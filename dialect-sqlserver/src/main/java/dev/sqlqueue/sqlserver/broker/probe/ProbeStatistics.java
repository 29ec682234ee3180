package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.AdminStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.UUID;

/**
 * V6: the statistics batch ({@link AdminStatements#stats}: NOLOCK reads of the queue in subqueries,
 * the sys.internal_tables/sys.partitions depth) after three sends; then a dialog with a 2 s LIFETIME
 * that carries one message: in what order do its data message and the expiry Error reach the target?
 */
final class ProbeStatistics extends BrokerProbe {
    ProbeStatistics() {
        super("V6", "Does the statistics batch run and count 3 sent messages, and does a LIFETIME Error arrive after the"
                + " dialog's remaining data message?",
                "ready counts queued and in-transit data messages; the target dead-letters what is left before the Error ends it");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        s.sendCommitted(3);
        StringBuilder observed = new StringBuilder();
        boolean ok;
        try (Connection c = s.connect()) {
            Object[] r = Sql.query(c, s.sql.admin().stats(s.q), s.q.value(), s.q.value()).get(0);
            long queueRows = Sql.asLong(r[0]);
            long oldest = Sql.asLong(r[2]);
            long ready = Sql.asLong(r[5]);
            observed.append("stats: queue_rows ").append(queueRows).append(", oldest_ms ").append(oldest).append(", ready ").append(ready);
            ok = ready == 3 && queueRows >= 3 && oldest >= 0 && oldest < 60_000;
            Sql.query(c, s.sql.probes().probeReceiveAll(s.q));
            UUID h = s.begin(c, 2);
            s.send(c, h, 9);
            sleep(3000);
            StringBuilder types = new StringBuilder();
            for (Object[] m : Sql.query(c, s.sql.probes().probeReceiveAll(s.q))) {
                String t = String.valueOf(m[1]);
                types.append(types.length() == 0 ? "" : ", ").append(t.substring(t.lastIndexOf('/') + 1));
            }
            observed.append("\n2 s LIFETIME dialog with one message, 3 s later the target received: ").append(types);
        }
        return ok ? ProbeResult.asDocumented(observed.toString()) : ProbeResult.differs(observed.toString());
    }
}
