package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.BrokerOptions;
import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * V8 (re-review P3): the probe provisions with the login it connects with (an administrator's), and runs
 * the experiment as the application's database user named by {@code broker.probeUser}
 * ({@code EXECUTE AS USER}, which the provisioning login may do as db_owner): that user's permissions on the
 * probe queue's objects, whether it can END CONVERSATION on a target endpoint (the service's owner is the
 * provisioning login), and whether it sees the queue's rows in {@code sys.transmission_queue} (catalog
 * metadata visibility), which the sweeper's dead-lettering (L2) and {@code ready} (L3) read. One message is
 * held in the transmission queue by turning the target queue off for a moment.
 */
final class ProbePermissions extends BrokerProbe {
    ProbePermissions() {
        super("V8", "Can the application's database user (not db_owner) send, receive, end target conversations and see its"
                + " messages in sys.transmission_queue?",
                "it needs SEND on the service, RECEIVE on both queues, REFERENCES on the contract, VIEW DEFINITION; END"
                        + " CONVERSATION needs the conversation's owner, db_owner or sysadmin; transmission-queue rows need VIEW"
                        + " DEFINITION on the service or database");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        String user = BrokerOptions.probeUser(s.context.config());
        if (user == null) {
            return ProbeResult.inconclusive("no application user named: give broker.probeUser=<database user>; the probe then"
                    + " provisions as this login and runs the experiment as that user (EXECUTE AS USER)");
        }
        s.sendCommitted(1);
        try (Connection admin = s.connect(); Connection app = s.connect()) {
            Sql.update(admin, s.sql.probes().probeQueueStatus(s.q, false));
            Sql.begin(admin);
            UUID held = s.begin(admin, BrokerStatements.LONGEST_LIFETIME_SECONDS);
            s.send(admin, held, 2);
            admin.commit();
            admin.setAutoCommit(true);
            long inTransitAsAdmin = Sql.asLong(Sql.query(admin, s.sql.probes().probeInTransit(s.q)).get(0)[0]);
            String asUser;
            try {
                Sql.update(app, ProbeStatements.probeExecuteAs(user));
            } catch (SQLException e) {
                Sql.update(admin, s.sql.probes().probeQueueStatus(s.q, true));
                return ProbeResult.inconclusive("EXECUTE AS USER " + user + " failed with error " + e.getErrorCode() + ": " + e.getMessage());
            }
            try {
                String seen = seen(s, app);
                Sql.update(admin, s.sql.probes().probeQueueStatus(s.q, true));
                asUser = seen + "; " + end(s, app);
            } finally {
                Sql.update(admin, s.sql.probes().probeQueueStatus(s.q, true));
                try {
                    Sql.update(app, ProbeStatements.probeRevert());
                } catch (SQLException ignored) {
                    // the connection is closed next, which ends the impersonation too
                }
            }
            String observed = "as " + user + ": " + asUser + "; data messages in sys.transmission_queue seen by the provisioning login "
                    + inTransitAsAdmin;
            if (asUser.contains("db_owner 1")) {
                return ProbeResult.inconclusive(observed + " (the user is db_owner: name one that is not)");
            }
            boolean ok = asUser.contains("END CONVERSATION on the target endpoint succeeded")
                    && asUser.contains("in sys.transmission_queue " + inTransitAsAdmin + ";");
            return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }

    /** The user's permissions and what it sees of sys.transmission_queue, while one message waits there. */
    private static String seen(Setup s, Connection app) throws SQLException {
        Object[] p = Sql.query(app, s.sql.probes().probePermissions(s.q)).get(0);
        String perms = "db_owner " + p[0] + ", SEND " + p[1] + ", RECEIVE target " + p[2] + ", RECEIVE initiator " + p[3]
                + ", REFERENCES contract " + p[4] + ", VIEW DEFINITION " + p[5];
        try {
            return perms + "; in sys.transmission_queue " + Sql.asLong(Sql.query(app, s.sql.probes().probeInTransit(s.q)).get(0)[0]);
        } catch (SQLException e) {
            return perms + "; sys.transmission_queue not readable (error " + e.getErrorCode() + ")";
        }
    }

    /** RECEIVE and END CONVERSATION on the target endpoint as the user, rolled back. */
    private static String end(Setup s, Connection app) throws SQLException {
        String end;
        Sql.begin(app);
        List<Object[]> got = Sql.query(app, s.sql.probes().probeReceive(s.q), 1, 5000);
        if (got.isEmpty()) {
            end = "nothing received";
        } else {
            try {
                Sql.update(app, s.sql.probes().probeEnd(), Sql.asUuid(got.get(0)[0]).toString());
                end = "END CONVERSATION on the target endpoint succeeded";
            } catch (SQLException e) {
                end = "END CONVERSATION on the target endpoint failed with error " + e.getErrorCode() + ": " + e.getMessage();
            }
        }
        app.rollback();
        app.setAutoCommit(true);
        return end;
    }
}
