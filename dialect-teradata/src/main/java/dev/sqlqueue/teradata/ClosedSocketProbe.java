package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * V12 (re-review N12): what a closed socket does to a blocked consume. A session consumes a row, then
 * waits in a second consume on the now empty queue table; the probe closes that connection's socket
 * without a logoff, as the driver does when an Abort goes unanswered ({@link DriverInternals#closeSocket}),
 * and watches from another session how long until the consumed row is back. With Recoverable Network
 * Protocol the database may keep the session and its transaction open for a reconnect ("With the
 * RNP/Redrive feature, the database keeps the transactions open": ODBC Driver for Teradata 17.20,
 * "Recoverable Network Protocol and Redrive Capability"); the driver's own view (RNP_ACTIVE,
 * REDRIVE_ACTIVE) is printed beside it.
 */
final class ClosedSocketProbe implements Probe {
    private final long settleMillis;
    private final long waitMillis;

    ClosedSocketProbe() {
        this(1000, 30_000);
    }

    /** @param settleMillis wait before closing the socket, ms; @param waitMillis how long to watch for the row, ms */
    ClosedSocketProbe(long settleMillis, long waitMillis) {
        this.settleMillis = settleMillis;
        this.waitMillis = waitMillis;
    }

    @Override
    public String id() {
        return "V12";
    }

    @Override
    public String question() {
        return "When the socket of a session blocked in a consume closes, how soon are the rows its transaction consumed back?";
    }

    @Override
    public String documented() {
        return "at once when RNP is not active (the session ends, its transaction is rolled back); with RNP (terajdbc's"
                + " default REDRIVE level 3) only when the reconnect window ends: docs/backends/teradata.md recommends REDRIVE=0";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (admin, n) -> {
            TeradataProbes.insertCommitted(admin, n, 1);
            Connection c = TeradataProbes.connect(context);
            try (ProbeConsume consume = new ProbeConsume(c, QueryTimeouts.seconds(settleMillis + waitMillis))) {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.consume(n))) {
                    if (!rs.next()) {
                        return ProbeResult.inconclusive("the first consume found no row");
                    }
                }
                String driver = "RNP_ACTIVE=" + DriverInternals.provide(c, "RNP_ACTIVE") + ", REDRIVE_ACTIVE="
                        + DriverInternals.provide(c, "REDRIVE_ACTIVE");
                consume.start(n);
                Thread.sleep(settleMillis);
                if (consume.isDone()) {
                    return ProbeResult.inconclusive(driver + "; the second consume ended by itself: " + consume.outcome(0));
                }
                if (!DriverInternals.closeSocket(c)) {
                    consume.statement.cancel();
                    return ProbeResult.inconclusive(driver + "; the driver's socket cannot be reached (not terajdbc?)");
                }
                long t0 = System.nanoTime();
                String ended = consume.outcome(5_000);
                long back = -1;
                while ((System.nanoTime() - t0) / 1_000_000 < waitMillis) {
                    if (TeradataProbes.count(admin, TeradataStatements.queueStats(n)) == 1) {
                        back = (System.nanoTime() - t0) / 1_000_000;
                        break;
                    }
                    Thread.sleep(100);
                }
                String observed = driver + "; the blocked consume " + (ended == null ? "still ran 5 s later" : ended)
                        + "; the consumed row was " + (back >= 0 ? "back after " + back + " ms" : "not back within "
                        + waitMillis + " ms");
                return back >= 0 ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed
                        + " (the database kept the session's transaction open)");
            } finally {
                try {
                    c.close();
                } catch (java.sql.SQLException ignored) {
                    // the socket is closed
                }
            }
        });
    }
}
