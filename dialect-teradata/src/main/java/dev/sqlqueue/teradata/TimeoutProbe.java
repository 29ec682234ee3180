package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * V7 (re-review section 4, item 1): what an expired query timeout raises, and whether it rolled the whole
 * transaction back. A session consumes a row, then INSERTs a dead letter with a query timeout of 1 s
 * while another session holds a table WRITE lock on the dead-letter table; then a third session looks
 * whether the consumed row is back.
 */
final class TimeoutProbe implements Probe {
    @Override
    public String id() {
        return "V7";
    }

    @Override
    public String question() {
        return "What does an INSERT blocked past its query timeout (1 s) raise, and is the transaction's consume rolled back?";
    }

    @Override
    public String documented() {
        return "terajdbc 20.00.00.51 sends an Abort and throws SQLException 802/HY000 (not SQLTimeoutException); the"
                + " asynchronous abort rolls the whole ANSI transaction back, so the consumed row is back";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, true, false, (admin, n) -> {
            TeradataProbes.insertCommitted(admin, n, 1);
            try (Connection c = TeradataProbes.connect(context); Connection locker = TeradataProbes.connect(context)) {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.consume(n))) {
                    if (!rs.next()) {
                        return ProbeResult.inconclusive("the consume found no row");
                    }
                }
                try (Statement st = locker.createStatement()) {
                    st.executeUpdate(TeradataStatements.purgeDeadLetters(n)); // a table WRITE lock until rollback
                }
                long t0 = System.nanoTime();
                String raised;
                int code = -1;
                try {
                    ProbeConsume.insertDeadLetter(c, n, 1);
                    raised = "no error";
                } catch (Exception e) {
                    raised = TeradataProbes.describe(e);
                    code = e instanceof java.sql.SQLException s ? s.getErrorCode() : -1;
                }
                long ms = (System.nanoTime() - t0) / 1_000_000;
                locker.rollback();
                long back = TeradataProbes.count(admin, TeradataStatements.queueStats(n));
                String observed = "the INSERT ended after " + ms + " ms with " + raised + "; the consumed row is "
                        + (back == 1 ? "back (rolled back)" : "not back (" + back + " rows): the transaction stayed open")
                        + "; the session is " + (c.isClosed() ? "closed" : "open");
                return code == TeradataErrors.QUERY_TIMEOUT && back == 1 ? ProbeResult.asDocumented(observed)
                        : ProbeResult.differs(observed);
            }
        });
    }
}
