package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.BrokerClaim;
import dev.sqlqueue.sqlserver.broker.BrokerReceiver;
import dev.sqlqueue.sqlserver.broker.ClaimStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * V1, on the production path (re-review P4): six times, a claim as {@link BrokerReceiver} makes it
 * (savepoint {@value BrokerReceiver#SAVEPOINT}, {@code WAITFOR (RECEIVE TOP (1) ...)}, then
 * {@code RECEIVE TOP (n) ... WHERE conversation_group_id = ?}) ended as {@link BrokerClaim} ends a claim that
 * only released: {@link ClaimStatements#releaseClaim} (a {@code ROLLBACK TRANSACTION} to the savepoint inside
 * a parameterised batch), then commit; on a queue with poison message handling ON. Are both messages back
 * with the same queuing order, is the group free for another session, is the queue still enabled? Then,
 * informational, the m1 window: while session B waits in RECEIVE, A nacks one message with
 * {@code releaseClaim(1)} and commits a second later; does B receive it before A's commit, and what attempt
 * count does B read then?
 */
final class ProbeSavepointRollback extends BrokerProbe {
    static final int ROUNDS = 6;

    ProbeSavepointRollback() {
        super("V1", "Does the claim's release (ROLLBACK TRANSACTION to the savepoint taken before WAITFOR (RECEIVE ...), inside"
                + " releaseClaim) put the messages back, unlock their group, and not count toward the poison limit?",
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
                int n = claim(s, a, 10, 5000).size();
                Sql.update(a, s.sql.claims().releaseClaim(0), s.q.value());
                a.commit();
                got.append(i == 0 ? "" : ",").append(n);
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
            second = claim(s, c, 10, 1000).size();
            c.rollback();
            c.setAutoCommit(true);
        }
        String window = window(s);
        String observed = "messages before " + before[0] + " (first queuing_order " + before[1] + "); received per claim " + got
                + "; after " + ROUNDS + " releases: messages " + after[0] + " (first queuing_order " + after[1]
                + "), queue " + (enabled ? "enabled" : "DISABLED") + "; another session then received " + second
                + "\n" + window;
        boolean ok = after[0] == 2 && after[1] == before[1] && enabled && second == 2 && got.toString().equals("2,2,2,2,2,2");
        return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    /** A claim's RECEIVEs as {@link BrokerReceiver} runs them: a savepoint, TOP (1), then the rest of its group. */
    private static List<Object[]> claim(Setup s, Connection c, int max, int waitMs) throws SQLException {
        c.setSavepoint(BrokerReceiver.SAVEPOINT);
        List<Object[]> rows = new ArrayList<>(Sql.query(c, s.sql.claims().receive(s.q), 1, waitMs));
        if (!rows.isEmpty()) {
            rows.addAll(Sql.query(c, s.sql.claims().receiveMore(s.q), max - 1, String.valueOf(rows.get(0)[0])));
        }
        return rows;
    }

    /** Informational (not part of the verdict): the m1 race window of a first nack. */
    private static String window(Setup s) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (Connection a = s.connect(); Connection b = s.connect()) {
            a.setAutoCommit(false);
            int held = claim(s, a, 10, 5000).size();
            long[] receivedAt = {0};
            java.util.concurrent.Future<String> waiter = pool.submit(() -> {
                Sql.begin(b);
                int n = Sql.query(b, s.sql.claims().receive(s.q), 1, 10_000).size();
                receivedAt[0] = System.nanoTime();
                String count;
                try {
                    List<Object[]> r = Sql.query(b, s.sql.claims().attemptsOf(1), s.q.value(), 1L);
                    count = r.isEmpty() ? "no attempts row" : "attempts " + r.get(0)[1];
                } catch (SQLException e) {
                    count = "its attempts read failed with error " + e.getErrorCode();
                }
                b.rollback();
                b.setAutoCommit(true);
                return "B received " + n + " and then read " + count;
            });
            sleep(1000);
            long t0 = System.nanoTime();
            Sql.update(a, s.sql.claims().releaseClaim(1), s.q.value(), 1L, "probe nack");
            sleep(1000);
            long committed = System.nanoTime();
            a.commit();
            a.setAutoCommit(true);
            String seen = waiter.get(30, java.util.concurrent.TimeUnit.SECONDS);
            String when = receivedAt[0] == 0 ? "" : receivedAt[0] < committed
                    ? " " + (receivedAt[0] - t0) / 1_000_000 + " ms after A's releaseClaim, before A's commit"
                    : " after A's commit";
            return "m1 window (informational): A held " + held + " and nacked message 1 with releaseClaim(1), committing 1 s later; "
                    + seen + when;
        } finally {
            pool.shutdownNow();
        }
    }

    static boolean truthy(Object o) {
        return o instanceof Boolean b ? b : Sql.asLong(o) != 0;
    }
}
