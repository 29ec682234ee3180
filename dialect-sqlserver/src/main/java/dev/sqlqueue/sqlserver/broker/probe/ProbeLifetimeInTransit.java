package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.sqlserver.broker.SystemMessages;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * V9, the premise of L2 (re-review P7): with the target queue off, a message sent on a dialog with a 5 s
 * LIFETIME waits in {@code sys.transmission_queue}. When the initiator receives the dialog's Error, is the
 * message still there? The sweeper reads it there and dead-letters it before END CONVERSATION drops it; if
 * it is gone already, the message is lost silently and L2's fix does nothing.
 */
final class ProbeLifetimeInTransit extends BrokerProbe {
    ProbeLifetimeInTransit() {
        super("V9", "When the initiator receives the LIFETIME Error of a dialog whose message waits in sys.transmission_queue"
                + " (target queue off), is the message still there?",
                "yes: the sweeper dead-letters the dialog's rows of sys.transmission_queue before END CONVERSATION (L2)");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        try (Connection c = s.connect()) {
            Sql.update(c, s.sql.probes().probeQueueStatus(s.q, false));
            Sql.begin(c);
            UUID h = s.begin(c, 5);
            s.send(c, h, 1);
            c.commit();
            c.setAutoCommit(true);
            long sentAt = System.nanoTime();
            long before = Sql.asLong(Sql.query(c, s.sql.probes().probeInTransit(s.q)).get(0)[0]);
            String error = null;
            long inTransit = -1;
            long ms = -1;
            while (System.nanoTime() - sentAt < 20_000_000_000L && error == null) {
                Sql.begin(c);
                List<Object[]> rows = Sql.query(c, s.sql.dialogs().receiveInitiator(s.q), 10);
                for (Object[] r : rows) {
                    if (String.valueOf(r[1]).equals(BrokerStatements.ERROR)) {
                        error = SystemMessages.describeError((byte[]) r[2]);
                        ms = (System.nanoTime() - sentAt) / 1_000_000;
                        inTransit = Sql.asLong(Sql.query(c, s.sql.probes().probeInTransit(s.q)).get(0)[0]);
                    }
                }
                c.rollback();
                if (error == null) {
                    sleep(250);
                }
            }
            c.setAutoCommit(true);
            Sql.update(c, s.sql.probes().probeQueueStatus(s.q, true));
            String observed = "in sys.transmission_queue after the send: " + before + "; ";
            if (error == null) {
                return ProbeResult.inconclusive(observed + "no Error reached the initiator queue within 20 s");
            }
            observed += "Error (" + error + ") " + ms + " ms after the send; in sys.transmission_queue then: " + inTransit;
            return inTransit > 0 ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }
}
