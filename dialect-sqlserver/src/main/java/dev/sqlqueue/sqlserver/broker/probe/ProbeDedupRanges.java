package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.SendStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * V10, deduplication key locks (re-review N1, P7): session A takes missing key {@code b.} in an open
 * transaction; session B, with a 2 s lock time-out, takes missing key {@code c.} of the same gap. First with
 * the design before N1 (the key read under UPDLOCK, HOLDLOCK: a RangeS-U lock on the next index entry, which
 * another RangeS-U must wait for), then with the backend's {@link SendStatements#takeKey} (insert on the exact
 * key). Both rolled back.
 */
final class ProbeDedupRanges extends BrokerProbe {
    ProbeDedupRanges() {
        super("V10", "Does a missing deduplication key held by one transaction hold back another key of the same gap?",
                "with UPDLOCK, HOLDLOCK yes (RangeS-U on the next entry, error 1222 after the lock time-out); with takeKey no");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        String range = attempt(s, s.sql.probes().probeRangeKeyRead(), false);
        String take = attempt(s, s.sql.sending().takeKey(), true);
        String observed = "UPDLOCK, HOLDLOCK read: B " + range + "; takeKey: B " + take;
        boolean ok = range.contains("error 1222") && take.equals("took its key");
        return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    private static String attempt(Setup s, String statement, boolean window) throws SQLException {
        try (Connection a = s.connect(); Connection b = s.connect()) {
            Sql.begin(a);
            run(a, s, statement, "b.", window);
            s.plain(b, ProbeStatements.probeLockTimeout2s());
            Sql.begin(b);
            long t0 = System.nanoTime();
            String outcome;
            try {
                run(b, s, statement, "c.", window);
                outcome = "took its key";
            } catch (SQLException e) {
                outcome = "failed after " + (System.nanoTime() - t0) / 1_000_000 + " ms with error " + e.getErrorCode();
            }
            b.rollback();
            a.rollback();
            a.setAutoCommit(true);
            b.setAutoCommit(true);
            return outcome;
        }
    }

    private static void run(Connection c, Setup s, String statement, String key, boolean window) throws SQLException {
        if (window) {
            Sql.query(c, statement, s.q.value(), key, 300, 0);
        } else {
            Sql.query(c, statement, s.q.value(), key);
        }
    }
}
