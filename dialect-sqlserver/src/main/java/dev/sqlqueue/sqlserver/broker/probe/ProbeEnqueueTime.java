package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.List;

/**
 * V5 (re-review P2): the type of a queue's {@code message_enqueue_time}, which decides whether
 * {@code oldest_ms} (computed with {@code SYSDATETIMEOFFSET()}) is right on a server whose clock is not UTC.
 * The verdict rests on the type: {@code datetimeoffset} carries its offset and is right anywhere; a type
 * without an offset is read as UTC by the comparison, so it is wrong by the server's offset: DIFFERS when
 * that offset is not 0, and INCONCLUSIVE on a UTC server, where the two cannot be told apart.
 */
final class ProbeEnqueueTime extends BrokerProbe {
    ProbeEnqueueTime() {
        super("V5", "What type is message_enqueue_time, and is oldest_ms right on a server whose clock is not UTC?",
                "oldest_ms subtracts it from SYSDATETIMEOFFSET(), which is right for datetimeoffset; a type without an offset"
                        + " would be off by the server's UTC offset");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        s.sendCommitted(1);
        try (Connection c = s.connect()) {
            List<Object[]> r = Sql.query(c, s.sql.probes().probeEnqueueTimeType(s.q));
            if (r.isEmpty()) {
                return ProbeResult.inconclusive("the message sent was not on the queue: nothing to read");
            }
            String type = String.valueOf(r.get(0)[0]);
            long age = Sql.asLong(r.get(0)[1]);
            long offset = Sql.asLong(r.get(0)[2]);
            String observed = "message_enqueue_time is " + type + "; age by SYSDATETIMEOFFSET() " + age + " ms; server UTC offset "
                    + offset + " min";
            if (type.equalsIgnoreCase("datetimeoffset")) {
                return ProbeResult.asDocumented(observed);
            }
            if (offset == 0) {
                return ProbeResult.inconclusive(observed + " (a UTC server cannot tell a local type from UTC: run on a server whose"
                        + " time zone is not UTC)");
            }
            return ProbeResult.differs(observed + " (a type without offset: oldest_ms is off by the offset)");
        }
    }
}
