package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * V4: whether {@code Statement.cancel()} ends a {@code SELECT AND CONSUME} waiting in the delay state on
 * an empty queue table, with which error, and whether the session stays usable. The consume carries a
 * query timeout, as the backend's do: when the database does not answer the cancel's Abort, terajdbc
 * closes the connection when the query timeout runs out (TJ783, 08S01).
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
        return "Does Statement.cancel() end a SELECT AND CONSUME waiting on an empty queue table, leaving the session usable?";
    }

    @Override
    public String documented() {
        return "assumed, not documented: cancel() ends it with 751 (terajdbc reports the database's 3110 so); if it does not,"
                + " the consume's query timeout makes the driver close the connection (1476, 08S01)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sqlqueue-probe-v4");
            t.setDaemon(true);
            return t;
        });
        Connection admin = null;
        TeradataNames n = null;
        try {
            admin = TeradataProbes.connect(context);
            n = TeradataProbes.names(context, admin);
            TeradataProbes.createQueueTable(admin, n);
            try (Connection c = TeradataProbes.connect(context)) {
                Statement st = c.createStatement();
                st.setQueryTimeout(QueryTimeouts.seconds(settleMillis + endMillis));
                String sql = TeradataStatements.consume(n);
                Future<Boolean> consume = pool.submit(() -> {
                    try (ResultSet rs = st.executeQuery(sql)) {
                        return rs.next();
                    }
                });
                Thread.sleep(settleMillis);
                if (consume.isDone()) {
                    return ProbeResult.inconclusive("the consume on the empty table ended by itself before the cancel: "
                            + outcome(consume));
                }
                long t0 = System.nanoTime();
                st.cancel();
                try {
                    consume.get(endMillis, TimeUnit.MILLISECONDS);
                    return ProbeResult.differs("after cancel the consume returned normally (it should have failed)");
                } catch (ExecutionException e) {
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    String usable = usable(c);
                    return ProbeResult.asDocumented("cancel ended the consume after " + ms + " ms with " + cause(e)
                            + "; afterwards the session " + usable);
                } catch (TimeoutException e) {
                    String after;
                    try {
                        consume.get(settleMillis + 2 * endMillis, TimeUnit.MILLISECONDS);
                        after = "returned";
                    } catch (ExecutionException x) {
                        after = "ended with " + cause(x);
                    } catch (TimeoutException x) {
                        after = "still ran";
                    }
                    return ProbeResult.differs("cancel did not end the consume within " + endMillis
                            + " ms; at its query timeout it " + after);
                }
            }
        } finally {
            TeradataProbes.dropQuietly(admin, n);
            if (admin != null) {
                admin.close();
            }
            pool.shutdownNow();
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

    private static String outcome(Future<Boolean> f) {
        try {
            return "returned " + f.get();
        } catch (ExecutionException e) {
            return cause(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    private static String cause(ExecutionException e) {
        return e.getCause() instanceof SQLException s ? TeradataProbes.describe(s) : String.valueOf(e.getCause());
    }
}
