package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.PrepareMethods;
import dev.sqlqueue.sqlserver.broker.Sql;
import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * V13, the NOCOUNT leak (re-review N7, P7): on a connection with mssql-jdbc {@code prepareMethod=none}, the
 * provisioning lock batch (one of the three Broker statements that begin with {@code SET NOCOUNT ON}) runs
 * in a transaction; afterwards, is NOCOUNT still on for the session ({@code @@OPTIONS & 512})? Once as sent
 * with {@code none} (a plain batch), once after the backend's switch to {@code prepexec}
 * ({@link PrepareMethods#forceRpc}).
 */
final class ProbeNocount extends BrokerProbe {
    ProbeNocount() {
        super("V13", "With prepareMethod=none, does SET NOCOUNT ON of a Broker statement stay on the session, and does the"
                + " backend's switch to prepexec keep it off?",
                "a SET in a plain batch stays, one in sp_executesql is restored (\"SET Statements\", Considerations): with the"
                        + " backend's switch NOCOUNT is off afterwards");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        String plain;
        String forced;
        try (Connection c = s.connect()) {
            if (!c.isWrapperFor(ISQLServerConnection.class)) {
                return ProbeResult.inconclusive("the connection is not mssql-jdbc's: prepareMethod cannot be set");
            }
            c.unwrap(ISQLServerConnection.class).setPrepareMethod("none");
            plain = "@@OPTIONS & 512 = " + run(s, c);
        }
        try (Connection c = s.connect()) {
            c.unwrap(ISQLServerConnection.class).setPrepareMethod("none");
            String before = PrepareMethods.forceRpc(c);
            forced = "@@OPTIONS & 512 = " + run(s, c) + " (switched from " + before + ")";
            PrepareMethods.restore(c, before);
        }
        String observed = "prepareMethod=none: " + plain + "; switched to prepexec: " + forced;
        return forced.startsWith("@@OPTIONS & 512 = 0 ") ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    private static long run(Setup s, Connection c) throws SQLException {
        Sql.begin(c);
        Sql.query(c, s.sql.provisioning().provisioningLock(), 5000);
        c.commit();
        c.setAutoCommit(true);
        return Sql.asLong(Sql.query(c, ProbeStatements.probeNocount()).get(0)[0]);
    }
}
