package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerProvider;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Probe V10 (re-review P8, "no concurrency beyond two sessions"): {@value #PRODUCERS} producers and
 * {@value #CONSUMERS} consumers work at once through the backend for a fixed time on the probe's own fifo/clustered
 * tables, with {@code deadlock-retries=0} (so every deadlock reaches the probe) and {@code SET LOCK_TIMEOUT 5000}
 * on every session ({@link ProbePool}). A producer enqueues batches of four messages, two of them with keys drawn
 * from {@value #KEY_SPACE} keys shared by all producers, in random order; half the consumers claim in lease mode
 * and ack the batch, the other half claim in transactional mode and ack each delivery. Raw numbers: operations,
 * errors by kind ({@link ErrorTally}: 1205, 1222, query time-outs, others), and per index of the message and key
 * tables the lock escalations ({@code index_lock_promotion_attempt_count}, {@code index_lock_promotion_count}),
 * row lock waits and page latch waits from {@code sys.dm_db_index_operational_stats} (after minus before), and the
 * server-wide lock counters of {@code sys.dm_os_performance_counters} (every session's, not only the probe's).
 * The verdict is on escalation only (no escalation on the queue tables); the other numbers are reported, not
 * judged. Creates and drops one table set; not thread-safe itself (it runs its own threads).
 */
final class LoadProbe implements Probe {
    static final int PRODUCERS = 8;
    static final int CONSUMERS = 8;
    static final int KEY_SPACE = 10_000;
    private static final long GIVE_UP_MS = 120_000;
    private final ProbeTables.Migration migration;
    private final Duration duration;

    LoadProbe() {
        this(SqlServerMigrator::migrate, Duration.ofSeconds(20));
    }

    LoadProbe(ProbeTables.Migration migration, Duration duration) {
        this.migration = migration;
        this.duration = duration;
    }

    @Override
    public String id() {
        return "V10";
    }

    @Override
    public String question() {
        return "With 8 producers (keyed batches) and 8 consumers (lease and transactional) at once, how many deadlocks, lock"
                + " time-outs, lock escalations and page latch waits are there?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Why each part of the claim is there' (batch cap 500): no lock escalation on the"
                + " queue tables; 1205 and 1222 are retried by the library (off here, so that each one is counted)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        ProbeObservations obs = new ProbeObservations();
        try (ProbeTables t = ProbeTables.create(context, "ld_", ClaimOrder.FIFO, Layout.CLUSTERED, migration)) {
            Map<String, long[]> before = indexStats(context, t, obs, "before");
            Map<String, Long> countersBefore = counters(context, t, obs);
            String work = load(context, t);
            Map<String, long[]> after = indexStats(context, t, obs, "after");
            Map<String, Long> countersAfter = counters(context, t, obs);
            obs.info(work);
            if (countersBefore != null && countersAfter != null) {
                StringBuilder b = new StringBuilder("server-wide lock counters (all sessions), after minus before:");
                countersAfter.forEach((k, v) -> b.append(' ').append(k).append(" +").append(v - countersBefore.getOrDefault(k, 0L))
                        .append(';'));
                obs.info(b.toString());
            }
            if (before == null || after == null) {
                obs.notMeasured("lock escalations on the message and key tables: not read (see above)");
                return obs.result();
            }
            long promotions = 0;
            StringBuilder per = new StringBuilder("per index, after minus before (escalation attempts/escalations, row lock waits"
                    + " count/ms, page latch waits count/ms):");
            for (Map.Entry<String, long[]> e : after.entrySet()) {
                long[] a = e.getValue();
                long[] b = before.getOrDefault(e.getKey(), new long[a.length]);
                long[] d = new long[a.length];
                for (int i = 0; i < a.length; i++) {
                    d[i] = a[i] - b[i];
                }
                promotions += d[6];
                per.append(' ').append(e.getKey()).append(' ').append(d[5]).append('/').append(d[6]).append(", ").append(d[0])
                        .append('/').append(d[1]).append("ms, ").append(d[3]).append('/').append(d[4]).append("ms;");
            }
            obs.info(per.toString());
            obs.point("lock escalations on the message and key tables during the run: " + promotions, promotions == 0);
        }
        return obs.result();
    }

    /** The load itself; one line of what it did and met. */
    private String load(ProbeContext context, ProbeTables t) throws Exception {
        AtomicLong enqueued = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong claimed = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        ErrorTally errors = new ErrorTally();
        try (ProbePool pool = new ProbePool(context, t.sql.probe("probeLockTimeout"))) {
            QueueConfig config = context.config().toBuilder().backend("sqlserver").dataSource(pool).tablePrefix(t.prefix)
                    .migrate(false).poolSize(PRODUCERS + CONSUMERS + 4).option("deadlock-retries", "0").build();
            try (QueueBackend backend = new SqlServerProvider().open(config)) {
                QueueName q = QueueName.of(ProbeTables.QUEUE);
                long end = System.nanoTime() + duration.toNanos();
                ExecutorService threads = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
                try {
                    for (int i = 0; i < PRODUCERS; i++) {
                        threads.execute(() -> {
                            while (System.nanoTime() < end) {
                                try {
                                    for (EnqueueResult r : backend.enqueueAllDeduplicated(q, batch())) {
                                        (r.duplicate() ? duplicates : enqueued).incrementAndGet();
                                    }
                                } catch (RuntimeException e) {
                                    errors.add(e);
                                }
                            }
                        });
                    }
                    for (int i = 0; i < CONSUMERS; i++) {
                        boolean lease = i % 2 == 0;
                        threads.execute(() -> {
                            while (System.nanoTime() < end) {
                                try {
                                    consume(backend, q, lease, claimed, acked);
                                } catch (RuntimeException e) {
                                    errors.add(e);
                                }
                            }
                        });
                    }
                } finally {
                    threads.shutdown();
                    if (!threads.awaitTermination(duration.toMillis() + GIVE_UP_MS, TimeUnit.MILLISECONDS)) {
                        threads.shutdownNow();
                        errors.add(new IllegalStateException("a session was still busy " + GIVE_UP_MS + " ms after the run"));
                    }
                }
            }
        }
        return PRODUCERS + " producers and " + CONSUMERS + " consumers for " + duration.toSeconds() + " s (deadlock-retries=0,"
                + " LOCK_TIMEOUT 5 s): " + enqueued.get() + " messages enqueued, " + duplicates.get() + " duplicates, "
                + claimed.get() + " claimed, " + acked.get() + " acked; errors: " + ErrorTally.DEADLOCK + " x"
                + errors.count(ErrorTally.DEADLOCK) + ", " + ErrorTally.LOCK_TIMEOUT + " x" + errors.count(ErrorTally.LOCK_TIMEOUT)
                + ", " + ErrorTally.QUERY_TIMEOUT + " x" + errors.count(ErrorTally.QUERY_TIMEOUT) + "; all: " + errors;
    }

    private static void consume(QueueBackend backend, QueueName q, boolean lease, AtomicLong claimed, AtomicLong acked) {
        ConsumeRequest request = ConsumeRequest.of(10).withMode(lease ? ClaimMode.LEASE : ClaimMode.TRANSACTIONAL);
        List<Delivery> got = backend.consume(q, request);
        claimed.addAndGet(got.size());
        if (lease) {
            List<dev.sqlqueue.Receipt> receipts = got.stream().map(Delivery::receipt).toList();
            acked.addAndGet(receipts.size() - backend.ackAll(receipts).size());
        } else {
            for (Delivery d : got) {
                backend.ack(d.receipt());
                acked.incrementAndGet();
            }
        }
    }

    /** Four messages, two keyed from the shared key space, in random order. */
    private static List<Message> batch() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        List<Message> m = new ArrayList<>(List.of(Message.ofText("x"), Message.ofText("y"),
                Message.builder(new byte[] {1}).deduplicationKey("k" + r.nextInt(KEY_SPACE)).build(),
                Message.builder(new byte[] {2}).deduplicationKey("k" + r.nextInt(KEY_SPACE)).build()));
        java.util.Collections.shuffle(m, r);
        return m;
    }

    /**
     * Per index of the message and key tables: row lock waits, ms, page lock waits, page latch waits, ms, escalation
     * attempts, escalations; null after reporting that they could not be read.
     */
    private static Map<String, long[]> indexStats(ProbeContext context, ProbeTables t, ProbeObservations obs, String when) {
        Map<String, long[]> out = new LinkedHashMap<>();
        try (Connection c = context.connect()) {
            for (String table : List.of(t.messagesQualified(), t.keysQualified())) {
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeIndexStats"), table); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getString("index_name"), new long[] {rs.getLong("row_lock_waits"), rs.getLong("row_lock_wait_ms"),
                            rs.getLong("page_lock_waits"), rs.getLong("page_latch_waits"), rs.getLong("page_latch_wait_ms"),
                            rs.getLong("promotion_attempts"), rs.getLong("promotions")});
                    }
                }
            }
            return out;
        } catch (SQLException e) {
            obs.couldNotRead("lock escalations, lock and latch waits per index " + when + " the run"
                    + " (sys.dm_db_index_operational_stats, readable with VIEW SERVER STATE)", e);
            return null;
        }
    }

    /** Server-wide lock counters by name; null after reporting (as information) that they could not be read. */
    private static Map<String, Long> counters(ProbeContext context, ProbeTables t, ProbeObservations obs) {
        Map<String, Long> out = new LinkedHashMap<>();
        try (Connection c = context.connect();
             PreparedStatement ps = c.prepareStatement(t.sql.probe("probeLockCounters")); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getString("counter_name"), rs.getLong("value"));
            }
            return out;
        } catch (SQLException e) {
            obs.info("could not read the server-wide lock counters (sys.dm_os_performance_counters): "
                    + ProbeObservations.describe(e));
            return null;
        }
    }
}
