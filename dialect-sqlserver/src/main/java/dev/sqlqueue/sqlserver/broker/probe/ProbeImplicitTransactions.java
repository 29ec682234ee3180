package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * V3, informational (re-review P5): with {@code setAutoCommit(false)} (mssql-jdbc: {@code SET
 * IMPLICIT_TRANSACTIONS ON}), which of BEGIN DIALOG, SEND, RECEIVE and END CONVERSATION leave
 * {@code @@TRANCOUNT} at 1, and what does {@code sp_getapplock} with owner Transaction return with none open?
 * Each statement starts at {@code @@TRANCOUNT = 0}. The backend begins every transaction itself (L1) and
 * guards the provisioning lock (B1), so it does not depend on the answer: a result other than the
 * documented list is INCONCLUSIVE, not DIFFERS.
 */
final class ProbeImplicitTransactions extends BrokerProbe {
    ProbeImplicitTransactions() {
        super("V3", "Which Service Broker statements open an implicit transaction, and what does sp_getapplock"
                + " (owner Transaction) return outside one? (informational)",
                "none of BEGIN DIALOG, SEND, RECEIVE, END CONVERSATION is on the SET IMPLICIT_TRANSACTIONS list, and"
                        + " sp_getapplock returns -999; the backend begins every transaction itself, so it does not rely on this");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        try (Connection c = s.connect()) {
            c.setAutoCommit(false);
            long lock = Sql.asLong(Sql.query(c, s.sql.probes().probeApplock()).get(0)[0]);
            long afterLock = s.tranCount(c);
            c.commit();
            UUID h = s.begin(c, BrokerStatements.LONGEST_LIFETIME_SECONDS);
            long afterBegin = s.tranCount(c);
            c.commit();
            s.send(c, h, 1);
            long afterSend = s.tranCount(c);
            c.commit();
            List<Object[]> got = Sql.query(c, s.sql.probes().probeReceive(s.q), 1, 5000);
            long afterReceive = s.tranCount(c);
            c.commit();
            Sql.update(c, s.sql.probes().probeEnd(), h.toString());
            long afterEnd = s.tranCount(c);
            c.commit();
            c.setAutoCommit(true);
            String observed = "sp_getapplock returned " + lock + " (@@TRANCOUNT then " + afterLock + "); @@TRANCOUNT after BEGIN DIALOG "
                    + afterBegin + ", SEND " + afterSend + ", RECEIVE " + afterReceive + " (" + got.size() + " received), END CONVERSATION "
                    + afterEnd;
            boolean listed = lock == -999 && afterLock == 0 && afterBegin == 0 && afterSend == 0 && afterReceive == 0 && afterEnd == 0;
            return listed ? ProbeResult.asDocumented(observed)
                    : ProbeResult.inconclusive(observed + " (informational: the backend begins its transactions itself)");
        }
    }
}
