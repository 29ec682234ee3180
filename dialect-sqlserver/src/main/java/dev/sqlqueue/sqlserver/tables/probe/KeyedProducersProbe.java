package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerEnqueues;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerProvider;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Probe V8 (re-review N1 and P7, "dedup key-range blocking and deadlocks"): does taking a deduplication key lock
 * only that key? Every session runs {@code SET LOCK_TIMEOUT 5000} first, so a wait ends with error 1222 instead of
 * hanging. Three experiments on the probe's own tables, each rolled back or in its own prefix's tables:
 * <ol>
 *   <li>Session A takes key {@code b} ({@code takeKey}, the backend's statement) and keeps its transaction open;
 *       session B then takes {@code c} and {@code a}, keys in the same gap: as documented when neither waits
 *       (no 1222). Session C then takes {@code b}: as documented when it waits for A (1222 after the lock
 *       timeout).</li>
 *   <li>Two sessions take two keys each in opposite order, {@code a1} then {@code z2} against {@code z1} then
 *       {@code a2}, the second key while the other session holds its first: as documented when neither waits
 *       and no deadlock (1205) occurs.</li>
 *   <li>{@value #ROUNDS} rounds of two batches of the same two keys in opposite order, enqueued at the same
 *       moment through the backend ({@code enqueueAllDeduplicated}, {@code deadlock-retries=0} so that every
 *       1205 is seen): as documented when no round meets 1205 or 1222 and both batches of a round report one
 *       message id per key.</li>
 * </ol>
 * Creates and drops one table set; not thread-safe itself (it runs its own threads).
 */
final class KeyedProducersProbe implements Probe {
    static final int ROUNDS = 20;
    static final int WINDOW_S = 600;
    private static final long GIVE_UP_S = 60;
    private final ProbeTables.Migration migration;
    private final int rounds;

    KeyedProducersProbe() {
        this(SqlServerMigrator::migrate, ROUNDS);
    }

    KeyedProducersProbe(ProbeTables.Migration migration, int rounds) {
        this.migration = migration;
        this.rounds = rounds;
    }

    @Override
    public String id() {
        return "V8";
    }

    @Override
    public String question() {
        return "Do producers of different deduplication keys never wait for each other, does a second producer of the same"
                + " key wait, and do keyed batches in opposite key order never deadlock?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Deduplication keys': a key is taken by inserting its row first, on the exact"
                + " key, with no key-range lock; a batch takes its keys in key order";
    }

    /** What one takeKey did: the holder's id (null: taken, 0: this transaction), or its error, and how long it took. */
    record Step(String key, Long holder, boolean taken, Throwable error, long ms) {
        String line() {
            return "'" + key + "' " + (error != null ? ProbeObservations.describe(error) : taken ? "taken"
                    : "held by message " + holder) + " in " + ms + " ms";
        }

        boolean lockTimeout() {
            return error != null && ErrorTally.kind(error).equals(ErrorTally.LOCK_TIMEOUT);
        }
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "kp_", ClaimOrder.FIFO, Layout.CLUSTERED, migration)) {
            sameGap(context, t, obs);
            oppositeOrder(context, t, obs);
            if (rounds > 0) {
                backendBatches(context, t, obs);
            }
        }
        return obs.result();
    }

    private static void sameGap(ProbeContext context, ProbeTables t, ProbeObservations obs) throws SQLException {
        try (Connection a = session(context, t); Connection b = session(context, t); Connection c = session(context, t)) {
            try {
                Step held = take(a, t, "b");
                if (!held.taken()) {
                    obs.notMeasured("session A could not take key 'b': " + held.line());
                    return;
                }
                Step other1 = take(b, t, "c");
                Step other2 = take(b, t, "a");
                obs.point("while session A held key 'b' in its open transaction, session B: " + other1.line() + ", "
                        + other2.line(), other1.taken() && other2.taken());
                Step same = take(c, t, "b");
                obs.point("session C on the key A held: " + same.line() + (same.lockTimeout() ? " (it waited for A)" : ""),
                        same.lockTimeout());
            } finally {
                a.rollback();
                b.rollback();
                c.rollback();
            }
        }
    }

    private static void oppositeOrder(ProbeContext context, ProbeTables t, ProbeObservations obs) throws Exception {
        CyclicBarrier between = new CyclicBarrier(2);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection a = session(context, t); Connection b = session(context, t)) {
            try {
                Future<List<Step>> fa = pool.submit(pair(a, t, "a1", "z2", between));
                Future<List<Step>> fb = pool.submit(pair(b, t, "z1", "a2", between));
                List<Step> sa = fa.get(GIVE_UP_S, TimeUnit.SECONDS);
                List<Step> sb = fb.get(GIVE_UP_S, TimeUnit.SECONDS);
                boolean clean = sa.stream().allMatch(Step::taken) && sb.stream().allMatch(Step::taken);
                obs.point("two sessions taking keys in opposite order, the second while the other held its first: A "
                        + sa.stream().map(Step::line).toList() + ", B " + sb.stream().map(Step::line).toList(), clean);
            } finally {
                pool.shutdownNow();
                a.rollback();
                b.rollback();
            }
        }
    }

    /** Take {@code first}, wait for the other session, take {@code second}, wait again (the transaction stays open). */
    private static Callable<List<Step>> pair(Connection c, ProbeTables t, String first, String second, CyclicBarrier between) {
        return () -> {
            List<Step> steps = new ArrayList<>();
            steps.add(take(c, t, first));
            between.await(GIVE_UP_S, TimeUnit.SECONDS);
            steps.add(take(c, t, second));
            return steps;
        };
    }

    private void backendBatches(ProbeContext context, ProbeTables t, ProbeObservations obs) throws Exception {
        ErrorTally errors = new ErrorTally();
        int consistent = 0;
        int done = 0;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (ProbePool pool = new ProbePool(context, t.sql.probe("probeLockTimeout"))) {
            QueueConfig config = context.config().toBuilder().backend("sqlserver").dataSource(pool).tablePrefix(t.prefix)
                    .migrate(false).poolSize(4).option("deadlock-retries", "0").build();
            try (QueueBackend backend = new SqlServerProvider().open(config)) {
                QueueName q = QueueName.of(ProbeTables.QUEUE);
                for (int r = 0; r < rounds; r++) {
                    String k1 = "round" + r + "-1";
                    String k2 = "round" + r + "-2";
                    CyclicBarrier start = new CyclicBarrier(2);
                    Future<List<EnqueueResult>> f1 = threads.submit(() -> {
                        start.await(GIVE_UP_S, TimeUnit.SECONDS);
                        return backend.enqueueAllDeduplicated(q, List.of(keyed(k1), keyed(k2)));
                    });
                    Future<List<EnqueueResult>> f2 = threads.submit(() -> {
                        start.await(GIVE_UP_S, TimeUnit.SECONDS);
                        return backend.enqueueAllDeduplicated(q, List.of(keyed(k2), keyed(k1)));
                    });
                    List<EnqueueResult> r1 = outcome(f1, errors);
                    List<EnqueueResult> r2 = outcome(f2, errors);
                    done++;
                    if (r1 != null && r2 != null && r1.get(0).id() == r2.get(1).id() && r1.get(1).id() == r2.get(0).id()) {
                        consistent++;
                    }
                }
            }
        } finally {
            threads.shutdownNow();
        }
        obs.point(done + " rounds of two batches of the same two keys in opposite order through the backend"
                + " (deadlock-retries=0, LOCK_TIMEOUT 5 s): " + consistent + " rounds with one message id per key; errors "
                + errors, errors.total() == 0 && consistent == done);
    }

    private static List<EnqueueResult> outcome(Future<List<EnqueueResult>> f, ErrorTally errors) throws InterruptedException {
        try {
            return f.get(GIVE_UP_S, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            errors.add(e.getCause());
            return null;
        } catch (java.util.concurrent.TimeoutException e) {
            f.cancel(true);
            errors.add(e);
            return null;
        }
    }

    private static Message keyed(String key) {
        return Message.builder(new byte[] {1}).deduplicationKey(key).build();
    }

    /** A new session with the probe's lock timeout, in a transaction of its own (auto-commit off). */
    private static Connection session(ProbeContext context, ProbeTables t) throws SQLException {
        Connection c = context.connect();
        try {
            ProbeTables.plain(c, t.sql.probe("probeLockTimeout"));
            c.setAutoCommit(false);
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The backend's takeKey for {@code key} on {@code c}'s open transaction. */
    static Step take(Connection c, ProbeTables t, String key) {
        long start = System.nanoTime();
        try (PreparedStatement ps = Jdbc.prepare(c, t.sql.get("takeKey"), ProbeTables.QUEUE, SqlServerEnqueues.storedKey(key),
                WINDOW_S, 0); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("takeKey returned no row");
            }
            long id = rs.getLong(1);
            boolean taken = rs.wasNull();
            return new Step(key, taken ? null : id, taken, null, (System.nanoTime() - start) / 1_000_000);
        } catch (SQLException e) {
            return new Step(key, null, false, e, (System.nanoTime() - start) / 1_000_000);
        }
    }
}
