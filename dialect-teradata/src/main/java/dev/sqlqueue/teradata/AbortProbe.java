package dev.sqlqueue.teradata;

import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.util.concurrent.Executors;

/**
 * V8 (re-review section 4, item 2): {@code Connection.abort} alone, without a cancel first, on a consume in
 * the delay state. Afterwards the probe cancels it, and the consume's query timeout bounds it in any case.
 */
final class AbortProbe implements Probe {
    private final long settleMillis;
    private final long endMillis;

    AbortProbe() {
        this(1000, 5000);
    }

    /** @param settleMillis wait before the abort, ms; @param endMillis wait for the consume to end, ms */
    AbortProbe(long settleMillis, long endMillis) {
        this.settleMillis = settleMillis;
        this.endMillis = endMillis;
    }

    @Override
    public String id() {
        return "V8";
    }

    @Override
    public String question() {
        return "Does Connection.abort (without a cancel) end a SELECT AND CONSUME waiting in the delay state?";
    }

    @Override
    public String documented() {
        return "no: in terajdbc 20.00.00.51 GenericTeradataConnection.abort(Executor) is an empty method; the backend"
                + " does not use it";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        return TeradataProbes.withQueue(context, false, false, (admin, n) -> {
            try (Connection c = TeradataProbes.connect(context);
                 ProbeConsume consume = new ProbeConsume(c, QueryTimeouts.seconds(settleMillis + 2 * endMillis))) {
                consume.start(n);
                Thread.sleep(settleMillis);
                if (consume.isDone()) {
                    return ProbeResult.inconclusive("the consume ended before the abort: " + consume.outcome(0));
                }
                java.util.concurrent.ExecutorService executor = Executors.newSingleThreadExecutor();
                try {
                    c.abort(executor);
                } finally {
                    executor.shutdown();
                }
                String ended = consume.outcome(endMillis);
                if (ended != null) {
                    return ProbeResult.differs("Connection.abort ended the consume: it " + ended);
                }
                consume.statement.cancel();
                String after = consume.outcome(settleMillis + 2 * endMillis);
                return ProbeResult.asDocumented("the consume still ran " + endMillis + " ms after Connection.abort;"
                        + " after a cancel it " + (after == null ? "still ran" : after));
            }
        });
    }
}
