package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.List;

/**
 * V5: the type of a queue's {@code message_enqueue_time} and the age {@code oldest_ms} computes from it
 * with {@code SYSDATETIMEOFFSET()}, for a message sent a moment ago; the server's UTC offset is shown,
 * because a local {@code datetime} would be off by it.
 */
final class ProbeEnqueueTime extends BrokerProbe {
    ProbeEnqueueTime() {
        super("V5", "What type is message_enqueue_time, and is oldest_ms right on a server whose clock is not UTC?",
                "open: oldest_ms subtracts it from SYSDATETIMEOFFSET(), which is right for datetimeoffset or on a UTC server");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        s.sendCommitted(1);
        try (Connection c = s.connect()) {
            List<Object[]> r = Sql.query(c, s.sql.probes().probeEnqueueTimeType(s.q));
            if (r.isEmpty()) {
                return ProbeResult.inconclusive("the message sent was not on the queue");
            }
            String type = String.valueOf(r.get(0)[0]);
            long age = Sql.asLong(r.get(0)[1]);
            long offset = Sql.asLong(r.get(0)[2]);
            String observed = "message_enqueue_time is " + type + "; age by SYSDATETIMEOFFSET() " + age + " ms; server UTC offset "
                    + offset + " min";
            boolean ok = Math.abs(age) < 60_000;
            return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }
}
