package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * V8: run as the application's login (not db_owner): its permissions on the probe queue's objects,
 * and whether it can END CONVERSATION on a target endpoint (owned by the service's owner). Run as a
 * db_owner, the verdict is INCONCLUSIVE.
 */
final class ProbePermissions extends BrokerProbe {
    ProbePermissions() {
        super("V8", "Can a login that is not db_owner send, receive, read statistics and end target conversations?",
                "it needs SEND on the service, RECEIVE on both queues, REFERENCES on the contract, VIEW DEFINITION;"
                        + " END CONVERSATION needs the conversation's owner, db_owner or sysadmin");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        try (Connection c = s.connect()) {
            Object[] p = Sql.query(c, s.sql.probes().probePermissions(s.q)).get(0);
            String perms = "db_owner " + p[0] + ", SEND " + p[1] + ", RECEIVE target " + p[2] + ", RECEIVE initiator " + p[3]
                    + ", REFERENCES contract " + p[4] + ", VIEW DEFINITION " + p[5];
            s.sendCommitted(1);
            String end;
            Sql.begin(c);
            List<Object[]> got = Sql.query(c, s.sql.probes().probeReceive(s.q), 1, 5000);
            if (got.isEmpty()) {
                end = "nothing received";
            } else {
                try {
                    Sql.update(c, s.sql.probes().probeEnd(), Sql.asUuid(got.get(0)[0]).toString());
                    end = "END CONVERSATION on the target endpoint succeeded";
                } catch (SQLException e) {
                    end = "END CONVERSATION on the target endpoint failed with error " + e.getErrorCode() + ": " + e.getMessage();
                }
            }
            c.rollback();
            c.setAutoCommit(true);
            String observed = perms + "; " + end;
            if (Sql.asLong(p[0]) == 1) {
                return ProbeResult.inconclusive(observed + " (run as the application's login, which should not be db_owner)");
            }
            return end.contains("succeeded") ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }

}
