package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.UUID;

/**
 * V4: END CONVERSATION on a dialog that never sent anything (a 150-trick spacer): does anything reach
 * the target (an EndDialog message, a target endpoint) within 2 s?
 */
final class ProbeSpacerEnd extends BrokerProbe {
    ProbeSpacerEnd() {
        super("V4", "Does END CONVERSATION on a never-used dialog stay local (nothing sent to the target)?",
                "open: the sweeper ends spacers in batches assuming it is local; if not, each fill's cleanup sends P x 149 EndDialogs");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        try (Connection c = s.connect()) {
            UUID h = s.begin(c, BrokerStatements.LONGEST_LIFETIME_SECONDS);
            Sql.update(c, s.sql.probes().probeEnd(), h.toString());
            sleep(2000);
            long onQueue = s.queueCount(c)[0];
            long endpoints = Sql.asLong(Sql.query(c, s.sql.probes().probeTargetEndpoints(s.q)).get(0)[0]);
            String observed = "2 s after END CONVERSATION of an unused dialog: messages on the target queue " + onQueue
                    + ", target endpoints " + endpoints;
            return onQueue == 0 && endpoints == 0 ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }
}
