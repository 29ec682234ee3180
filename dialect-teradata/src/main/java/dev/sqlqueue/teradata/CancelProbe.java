package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * V4: whether {@code Statement.cancel()} ends a {@code SELECT AND CONSUME}, with which error, whether the
 * transaction was rolled back (an INSERT made before it in the same transaction is gone) and whether the
 * session stays usable; once for a consume in the delay state (empty queue table) and once for one waiting
 * on a table lock another session holds. The consume has a query timeout, as the backend's do.
 */
final class CancelProbe implements Probe {
    private final long settleMillis;
    private final long endMillis;

    CancelProbe() {
        this(1000, 5000);
    }

    /** @param settleMillis wait before cancelling, ms; @param endMillis wait for the consume to end, ms */
    CancelProbe(long settleMillis, long endMillis) {
        this.settleMillis = settleMillis;
        this.endMillis = endMillis;
    }

    @Override
    public String id() {
        return "V4";
    }

    @Override
    public String question() {
        return "Does Statement.cancel() end a SELECT AND CONSUME waiting in the delay state, and one waiting on a lock,"
                + " rolling the transaction back and leaving the session usable?";
    }

    @Override
    public String documented() {
        return "assumed, not documented: cancel() ends it with 751 (terajdbc reports the database's 3110 so) and the"
                + " transaction is rolled back; if not, the consume's query timeout makes the driver close the connection"
                + " (1476, 08S01)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, true, false, (admin, n) -> {
            String[] delay = once(context, admin, n, false);
            String[] lock = once(context, admin, n, true);
            String observed = "delay state: " + delay[1] + "; lock wait: " + lock[1];
            boolean ok = delay[0] != null && lock[0] != null;
            return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        });
    }

    /** [non-null when as documented, raw observation]. */
    private String[] once(ProbeContext context, Connection admin, TeradataNames n, boolean lockWait) throws Exception {
        try (Connection c = TeradataProbes.connect(context); Connection locker = TeradataProbes.connect(context);
             ProbeConsume consume = new ProbeConsume(c, QueryTimeouts.seconds(settleMillis + endMillis))) {
            ProbeConsume.insertEarlierWork(c, n);
            if (lockWait) {
                TeradataProbes.insertCommitted(admin, n, 1); // a row is there: the consume waits for the lock, not for a row
                try (Statement st = locker.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.lockQueueTable(n))) {
                    rs.next();
                }
            }
            consume.start(n);
            Thread.sleep(settleMillis);
            if (consume.isDone()) {
                locker.rollback();
                return new String[] {null, "the consume ended before the cancel: " + consume.outcome(0)};
            }
            consume.statement.cancel();
            String ended = consume.outcome(endMillis);
            boolean byCancel = ended != null;
            if (ended == null) {
                ended = "still ran " + endMillis + " ms after the cancel; at its query timeout it "
                        + consume.outcome(settleMillis + 2 * endMillis);
            }
            locker.rollback();
            long earlier = TeradataProbes.count(admin, TeradataStatements.deadLetterCount(n));
            String usable = usable(c);
            String raw = "cancel: " + ended + "; the earlier INSERT of its transaction " + (earlier == 0 ? "was rolled back"
                    : "is still there") + "; the session then " + usable;
            boolean ok = byCancel && consume.errorCode() == TeradataErrors.CANCELLED && earlier == 0;
            return new String[] {ok ? "ok" : null, raw};
        }
    }

    private static String usable(Connection c) {
        try {
            c.rollback();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.currentDatabase())) {
                rs.next();
            }
            c.rollback();
            return "still works";
        } catch (SQLException e) {
            return "failed its next request: " + TeradataProbes.describe(e);
        }
    }
}
