package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * V2: session A holds the target conversation group (it RECEIVEd from it and has not committed);
 * session B SENDs on the same dialog with a 5 s lock time-out. Is B blocked, does the message wait in
 * {@code sys.transmission_queue}, and how soon after A commits is it on the queue?
 */
final class ProbeLockedTargetSend extends BrokerProbe {
    ProbeLockedTargetSend() {
        super("V2", "Does a local SEND onto a target conversation locked by another session's RECEIVE go to"
                + " sys.transmission_queue at once, without blocking?",
                "yes: it waits in sys.transmission_queue (counted in ready) and is delivered once the lock is released");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        UUID h = s.sendCommitted(1);
        try (Connection a = s.connect(); Connection b = s.connect()) {
            Sql.begin(a);
            int held = Sql.query(a, s.sql.probes().probeReceive(s.q), 1, 5000).size();
            try (Statement st = b.createStatement()) {
                st.execute(ProbeStatements.probeLockTimeout());
            }
            long t0 = System.nanoTime();
            String sendOutcome;
            try {
                Sql.begin(b);
                s.send(b, h, 2);
                b.commit();
                sendOutcome = "committed after " + (System.nanoTime() - t0) / 1_000_000 + " ms";
            } catch (SQLException e) {
                sendOutcome = "failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms with error " + e.getErrorCode();
                b.rollback();
            }
            b.setAutoCommit(true);
            long inTransit = Sql.asLong(Sql.query(b, s.sql.probes().probeInTransit(s.q)).get(0)[0]);
            a.commit();
            a.setAutoCommit(true);
            long t1 = System.nanoTime();
            long delivered = -1;
            while (System.nanoTime() - t1 < 5_000_000_000L) {
                if (s.queueCount(b)[0] > 0) {
                    delivered = (System.nanoTime() - t1) / 1_000_000;
                    break;
                }
                sleep(50);
            }
            String observed = "A received " + held + " and held its group; B's SEND " + sendOutcome + "; in sys.transmission_queue: "
                    + inTransit + "; on the queue " + (delivered < 0 ? "not within 5 s" : delivered + " ms") + " after A committed";
            boolean ok = sendOutcome.startsWith("committed") && inTransit > 0 && delivered >= 0;
            return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }
}
