package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

/**
 * V12, READPAST under READ_COMMITTED_SNAPSHOT (re-review P7): "Table hints (Transact-SQL)" says READPAST
 * "can't be specified" at READ COMMITTED under READ_COMMITTED_SNAPSHOT unless with READCOMMITTEDLOCK. The
 * claim carries READCOMMITTEDLOCK; the Broker statements with READPAST do not, but each also has UPDLOCK or
 * is the target of a DELETE or UPDATE, which read with locks anyway. Does the server accept each of them?
 * Each runs in a transaction that is rolled back. In a database with READ_COMMITTED_SNAPSHOT OFF nothing
 * can be checked (the probe cannot switch it: that needs exclusive access).
 */
final class ProbeReadpastRcsi extends BrokerProbe {
    ProbeReadpastRcsi() {
        super("V12", "Under READ_COMMITTED_SNAPSHOT ON, are the Broker statements with READPAST and without READCOMMITTEDLOCK"
                + " accepted (deleteExpiredKeys, adoptDialogs, retireIdleGroups, endFillSpacers)?",
                "yes: each also has UPDLOCK or is a DELETE or UPDATE target, a locking read");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        try (Connection c = s.connect()) {
            Object[] settings = Sql.query(c, ProbeStatements.probeIsolationSettings()).get(0);
            if (Sql.asLong(settings[1]) == 0) {
                return ProbeResult.inconclusive("READ_COMMITTED_SNAPSHOT is OFF in this database (is_read_committed_snapshot_on 0):"
                        + " nothing to check; run in a database with it ON (the Azure SQL Database default)");
            }
            String observed = "deleteExpiredKeys " + attempt(c, s.sql.dialogs().deleteExpiredKeys(), 1)
                    + "; adoptDialogs " + attempt(c, s.sql.dialogs().adoptDialogs(), 1, UUID.randomUUID().toString(), s.q.value())
                    + "; retireIdleGroups " + attempt(c, s.sql.dialogs().retireIdleGroups(s.q), s.q.value(), 0, 0, 1)
                    + "; endFillSpacers " + attempt(c, s.sql.dialogs().endFillSpacers(), 1, s.q.value(), -1L);
            return observed.contains("error") ? ProbeResult.differs(observed) : ProbeResult.asDocumented(observed);
        }
    }

    private static String attempt(Connection c, String statement, Object... params) throws SQLException {
        Sql.begin(c);
        try {
            Sql.query(c, statement, params);
            return "accepted";
        } catch (SQLException e) {
            return "error " + e.getErrorCode() + " (" + e.getMessage() + ")";
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
