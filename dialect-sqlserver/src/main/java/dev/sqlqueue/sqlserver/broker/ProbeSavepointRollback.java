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
            Sql.update(c, s.sql.probes().probePoisonHandlingOn(s.q));
            before = s.queueCount(c);
        }
        StringBuilder got = new StringBuilder();
        try (Connection a = s.connect()) {
            a.setAutoCommit(false);
            for (int i = 0; i < ROUNDS; i++) {
                Savepoint sp = a.setSavepoint(BrokerReceiver.SAVEPOINT);
                List<Object[]> rows = Sql.query(a, s.sql.probes().probeReceive(s.q), 2, 5000);
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
            List<Object[]> st = Sql.query(c, s.sql.admin().queueStatus(s.q));
            enabled = !st.isEmpty() && truthy(st.get(0)[0]);
            Sql.begin(c);
            second = Sql.query(c, s.sql.probes().probeReceive(s.q), 2, 1000).size();
            c.rollback();
            c.setAutoCommit(true);
        }
        String wake = wakeUp(s);
        String observed = "messages before " + before[0] + " (first queuing_order " + before[1] + "); received per round " + got
                + "; after " + ROUNDS + " savepoint rollbacks: messages " + after[0] + " (first queuing_order " + after[1]
                + "), queue " + (enabled ? "enabled" : "DISABLED") + "; another session then received " + second
                + "\n" + wake;
        boolean ok = after[0] == 2 && after[1] == before[1] && enabled && second == 2 && got.toString().equals("2,2,2,2,2,2");
        return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    /**
     * Informational (not part of the verdict): session A holds the messages, session B waits in
     * {@code WAITFOR (RECEIVE ...)} for up to 10 s, A rolls back to its savepoint and commits. Does B
     * wake up with the returned messages, and how long after the rollback?
     */
    private static String wakeUp(Setup s) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection a = s.connect(); Connection b = s.connect()) {
            a.setAutoCommit(false);
            Savepoint sp = a.setSavepoint(BrokerReceiver.SAVEPOINT);
            int held = Sql.query(a, s.sql.probes().probeReceive(s.q), 2, 5000).size();
            java.util.concurrent.Future<Integer> waiter = pool.submit(() -> {
                Sql.begin(b);
                int n = Sql.query(b, s.sql.probes().probeReceive(s.q), 2, 10_000).size();
                b.rollback();
                b.setAutoCommit(true);
                return n;
            });
            sleep(1000);
            long t0 = System.nanoTime();
            a.rollback(sp);
            a.commit();
            a.setAutoCommit(true);
            int woke = waiter.get(20, java.util.concurrent.TimeUnit.SECONDS);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            return "wake-up (informational): A held " + held + "; B, waiting in WAITFOR (RECEIVE), returned " + woke
                    + " message(s) " + ms + " ms after A's savepoint rollback and commit";
        } finally {
            pool.shutdownNow();
        }
    }

    static boolean truthy(Object o) {
        return o instanceof Boolean b ? b : Sql.asLong(o) != 0;
    }
}
