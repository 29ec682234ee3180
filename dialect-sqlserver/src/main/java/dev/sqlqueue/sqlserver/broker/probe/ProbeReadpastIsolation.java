package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.DialogStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * V11, READPAST and the isolation level (re-review N2, P7): the expired-key clean-up
 * ({@link DialogStatements#deleteExpiredKeys}) at READ COMMITTED, SERIALIZABLE and SNAPSHOT (when the database
 * allows it), each rolled back. The backend runs it only on the sweeper's own connection at READ COMMITTED.
 */
final class ProbeReadpastIsolation extends BrokerProbe {
    /** mssql-jdbc's SNAPSHOT isolation ({@code SQLServerConnection.TRANSACTION_SNAPSHOT}). */
    static final int SNAPSHOT = 0x1000;

    ProbeReadpastIsolation() {
        super("V11", "Is READPAST refused (error 650) at SERIALIZABLE and SNAPSHOT, also for a DELETE, and accepted at READ"
                + " COMMITTED?",
                "yes (\"Table hints\", READPAST; MicrosoftDocs/sql-docs pull request 10287): the clean-up runs only at READ COMMITTED");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        String rc;
        String serializable;
        String snapshot;
        try (Connection c = s.connect()) {
            Object[] settings = Sql.query(c, ProbeStatements.probeIsolationSettings()).get(0);
            boolean snapshotAllowed = Sql.asLong(settings[0]) == 1;
            rc = attempt(s, c, Connection.TRANSACTION_READ_COMMITTED);
            serializable = attempt(s, c, Connection.TRANSACTION_SERIALIZABLE);
            snapshot = snapshotAllowed ? attempt(s, c, SNAPSHOT)
                    : "not checked (ALLOW_SNAPSHOT_ISOLATION is OFF in this database: snapshot_isolation_state " + settings[0] + ")";
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        String observed = "READ COMMITTED: " + rc + "; SERIALIZABLE: " + serializable + "; SNAPSHOT: " + snapshot;
        boolean ok = rc.equals("ran") && serializable.contains("error 650") && (snapshot.contains("error 650") || snapshot.startsWith("not"));
        if (ok && snapshot.startsWith("not")) {
            return ProbeResult.inconclusive(observed);
        }
        return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    private static String attempt(Setup s, Connection c, int level) throws SQLException {
        c.setTransactionIsolation(level);
        Sql.begin(c);
        try {
            Sql.update(c, s.sql.dialogs().deleteExpiredKeys(), 1);
            return "ran";
        } catch (SQLException e) {
            return "error " + e.getErrorCode() + ": " + e.getMessage();
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }
}
