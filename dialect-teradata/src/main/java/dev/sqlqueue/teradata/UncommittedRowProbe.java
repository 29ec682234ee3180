package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
 * V5: with one uncommitted row (older) and one committed row (newer) in the queue table, whether the
 * peek sees the uncommitted row, and whether a consume waits for it (the queue cache lists uncommitted
 * rows) or takes the committed one.
 */
final class UncommittedRowProbe implements Probe {
    private final long waitMillis;

    UncommittedRowProbe() {
        this(3000);
    }

    /** @param waitMillis how long the consume may run before it is cancelled, ms */
    UncommittedRowProbe(long waitMillis) {
        this.waitMillis = waitMillis;
    }

    @Override
    public String id() {
        return "V5";
    }

    @Override
    public String question() {
        return "Does the peek see an uncommitted row, and does a consume wait for it while a newer committed row exists?";
    }

    @Override
    public String documented() {
        return "the peek (ACCESS lock) sees uncommitted rows (documented); whether the consume then waits for them is open";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sqlqueue-probe-v5");
            t.setDaemon(true);
            return t;
        });
        try {
            return TeradataProbes.withQueue(context, false, false, (admin, n) -> {
                try (Connection producer = TeradataProbes.connect(context); Connection consumer = TeradataProbes.connect(context)) {
                    insert(producer, n, (byte) 1);
                    boolean peekSaw;
                    try (Statement st = consumer.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.peek(n))) {
                        peekSaw = rs.next();
                    }
                    consumer.commit();
                    insert(admin, n, (byte) 2);
                    admin.commit();
                    Statement st = consumer.createStatement();
                    st.setQueryTimeout(QueryTimeouts.seconds(3 * waitMillis)); // ends it even if the cancel is not answered
                    String sql = TeradataStatements.consume(n);
                    Future<Integer> consume = pool.submit(() -> {
                        try (ResultSet rs = st.executeQuery(sql)) {
                            return rs.next() ? (int) rs.getBytes(8)[0] : 0;
                        }
                    });
                    String took;
                    boolean waited;
                    try {
                        int which = consume.get(waitMillis, TimeUnit.MILLISECONDS);
                        took = which == 2 ? "took the newer committed row at once" : "returned row " + which;
                        waited = false;
                    } catch (TimeoutException e) {
                        st.cancel();
                        producer.rollback();
                        took = "waited " + waitMillis + " ms (until cancelled) for the uncommitted row";
                        waited = true;
                        try {
                            consume.get(3 * waitMillis, TimeUnit.MILLISECONDS);
                        } catch (ExecutionException | TimeoutException ignored) {
                            // ended by the cancel, or by the query timeout (the driver closes the connection)
                        }
                    } catch (ExecutionException e) {
                        took = "failed: " + (e.getCause() instanceof SQLException s ? TeradataProbes.describe(s) : e.getCause());
                        waited = false;
                    }
                    producer.rollback();
                    String observed = "peek " + (peekSaw ? "saw" : "did not see") + " the uncommitted row; the consume " + took;
                    return peekSaw ? ProbeResult.asDocumented(observed + (waited ? " (consumes stall behind open enqueues)"
                            : " (the queue cache skips uncommitted rows)")) : ProbeResult.differs(observed);
                }
            });
        } finally {
            pool.shutdownNow();
        }
    }

    private static void insert(Connection c, TeradataNames n, byte marker) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n))) {
            ps.setString(1, "");
            ps.setBytes(2, new byte[] {marker});
            ps.executeUpdate();
        }
    }
}
