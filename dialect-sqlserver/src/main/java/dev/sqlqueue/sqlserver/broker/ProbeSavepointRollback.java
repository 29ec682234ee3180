package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.Savepoint;
import java.util.List;

/**
 * V1: {@code SAVE TRAN; WAITFOR (RECEIVE TOP (2) ...); ROLLBACK TRAN savepoint; COMMIT}, six times, on a
 * queue with poison message handling ON: are both messages back with the same queuing order, is the
 * conversation group free for another session, and is the queue still enabled (a savepoint rollback
 * not counted as one of the five rollbacks)? The consume path's nack and release rely on it.
 */
final class ProbeSavepointRollback extends BrokerProbe {
    static final int ROUNDS = 6;

    ProbeSavepointRollback() {
        super("V1", "Does ROLLBACK TRANSACTION to a savepoint taken before WAITFOR (RECEIVE ...) put the messages back,"
                + " unlock their group, and not count toward the poison limit?",
                "yes: nack and release roll back to the savepoint sqlq_receive and commit; the messages return in place");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        s.sendCommitted(2);
        long[] before;
        try (Connection c = s.connect()) {
            Sql.update(c, s.sql.probePoisonHandlingOn(s.q));
            before = s.queueCount(c);
        }
        StringBuilder got = new StringBuilder();
        try (Connection a = s.connect()) {
            a.setAutoCommit(false);
            for (int i = 0; i < ROUNDS; i++) {
                Savepoint sp = a.setSavepoint(BrokerReceiver.SAVEPOINT);
                List<Object[]> rows = Sql.query(a, s.sql.probeReceive(s.q), 2, 5000);
                got.append(i == 0 ? "" : ",").append(rows.size());
                a.rollback(sp);
                a.commit();
            }
            a.setAutoCommit(true);
        }
        long[] after;
        boolean enabled;
        int second;
        try (Connection c = s.connect()) {
            after = s.queueCount(c);
            List<Object[]> st = Sql.query(c, s.sql.queueStatus(s.q));
            enabled = !st.isEmpty() && truthy(st.get(0)[0]);
            Sql.begin(c);
            second = Sql.query(c, s.sql.probeReceive(s.q), 2, 1000).size();
            c.rollback();
            c.setAutoCommit(true);
        }
        String observed = "messages before " + before[0] + " (first queuing_order " + before[1] + "); received per round " + got
                + "; after " + ROUNDS + " savepoint rollbacks: messages " + after[0] + " (first queuing_order " + after[1]
                + "), queue " + (enabled ? "enabled" : "DISABLED") + "; another session then received " + second;
        boolean ok = after[0] == 2 && after[1] == before[1] && enabled && second == 2 && got.toString().equals("2,2,2,2,2,2");
        return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    static boolean truthy(Object o) {
        return o instanceof Boolean b ? b : Sql.asLong(o) != 0;
    }
}
