package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerProvider;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Probe V4 (review, "contention at the head of the claim index in both layouts"): {@value #CONSUMERS}
 * threads, each enqueueing one message, claiming one (lease mode) and acking it, through the backend
 * itself for a fixed time, on fifo/clustered, fifo/heap and lifo/heap tables. Afterwards, per index of
 * the message table: page latch waits ({@code sys.dm_db_index_operational_stats}; PAGELATCH waits of
 * that index) and ghost records ({@code sys.dm_db_index_physical_stats}, DETAILED). As documented when
 * the heap's base table waits less on page latches than the clustered primary key, while the claim
 * index has latch waits in both layouts. Latch waits that could not be read (a view missing or not
 * permitted) are reported as {@code could not read ...} and give no verdict: they are not "no waits".
 * Errors of the consumers are counted by kind ({@link ErrorTally}). Creates and drops three table sets; not
 * thread-safe itself (it runs its own threads).
 */
final class HeadContentionProbe implements Probe {
    static final int CONSUMERS = 16;
    private final ProbeTables.Migration migration;
    private final Duration duration;

    HeadContentionProbe() {
        this(SqlServerMigrator::migrate, Duration.ofSeconds(10));
    }

    HeadContentionProbe(ProbeTables.Migration migration, Duration duration) {
        this.migration = migration;
        this.duration = duration;
    }

    @Override
    public String id() {
        return "V4";
    }

    @Override
    public String question() {
        return "With 16 consumers, where are the page latch waits and ghost records: base table or claim index, clustered or heap?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Schema': a heap takes the clustered key's hot head out of the base table, but the"
                + " claim index keeps a hot head (inserts, moved keys, ghosts) in both layouts";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        ProbeObservations obs = new ProbeObservations();
        Map<String, Long> clustered = measure(context, ClaimOrder.FIFO, Layout.CLUSTERED, "cc_", obs);
        Map<String, Long> heap = measure(context, ClaimOrder.FIFO, Layout.HEAP, "ch_", obs);
        measure(context, ClaimOrder.LIFO, Layout.HEAP, "lh_", obs);
        if (clustered == null || heap == null) {
            obs.notMeasured("page latch waits of fifo/clustered or fifo/heap not read: no comparison");
            return obs.result();
        }
        String prefix = context.prefix();
        long clusteredBase = clustered.getOrDefault(prefix + "cc_messages_pk", 0L);
        long heapBase = heap.getOrDefault("(heap)", 0L);
        long clusteredClaim = clustered.getOrDefault(prefix + "cc_messages_claim", 0L);
        long heapClaim = heap.getOrDefault(prefix + "ch_messages_claim", 0L);
        String compared = "page latch wait ms: base table clustered " + clusteredBase + ", heap " + heapBase + "; claim index"
                + " clustered " + clusteredClaim + ", heap " + heapClaim;
        if (clusteredBase + heapBase + clusteredClaim + heapClaim == 0) {
            obs.notMeasured(compared + ": the views were read and show no page latch wait at all (too few cores or too short"
                    + " a run)");
        } else {
            obs.point(compared, heapBase < clusteredBase && clusteredClaim > 0 && heapClaim > 0);
        }
        return obs.result();
    }

    /** Page latch wait ms by index name ({@code (heap)} for a heap), or null when they could not be read. */
    private Map<String, Long> measure(ProbeContext context, ClaimOrder order, Layout layout, String code, ProbeObservations obs)
            throws Exception {
        try (ProbeTables t = ProbeTables.create(context, code, order, layout, migration)) {
            QueueConfig config = context.config().toBuilder().backend("sqlserver").tablePrefix(t.prefix).migrate(false)
                    .poolSize(CONSUMERS + 4).option("ordering", order.key()).option("layout", layout.key()).build();
            AtomicLong acked = new AtomicLong();
            ErrorTally errors = new ErrorTally();
            try (QueueBackend backend = new SqlServerProvider().open(config)) {
                QueueName q = QueueName.of(ProbeTables.QUEUE);
                long end = System.nanoTime() + duration.toNanos();
                ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
                try {
                    for (int i = 0; i < CONSUMERS; i++) {
                        pool.execute(() -> {
                            while (System.nanoTime() < end) {
                                try {
                                    backend.enqueue(q, Message.ofText("x"));
                                    for (Delivery d : backend.consume(q, ConsumeRequest.of(1))) {
                                        backend.ack(d.receipt());
                                        acked.incrementAndGet();
                                    }
                                } catch (RuntimeException e) {
                                    errors.add(e);
                                }
                            }
                        });
                    }
                } finally {
                    pool.shutdown();
                    pool.awaitTermination(duration.toMillis() + 60_000, TimeUnit.MILLISECONDS);
                }
            }
            String label = order.key() + "/" + layout.key();
            obs.info(label + ": " + CONSUMERS + " consumers, " + duration.toSeconds() + " s: " + acked.get() + " messages acked; errors "
                    + errors);
            Map<String, Long> waitMs = new LinkedHashMap<>();
            try (Connection c = context.connect()) {
                StringBuilder line = new StringBuilder(label + ": page latch waits (count/ms)");
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeLatches"), t.messagesQualified());
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        waitMs.put(rs.getString("index_name"), rs.getLong("wait_ms"));
                        line.append(' ').append(rs.getString("index_name")).append('=').append(rs.getLong("waits")).append('/')
                                .append(rs.getLong("wait_ms")).append("ms");
                    }
                    obs.info(line.toString());
                } catch (SQLException e) {
                    obs.couldNotRead(label + " page latch waits (sys.dm_db_index_operational_stats, readable with VIEW SERVER STATE)", e);
                    waitMs = null;
                }
                StringBuilder ghosts = new StringBuilder(label + ": ghost records");
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeGhosts"), t.messagesQualified());
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ghosts.append(' ').append(rs.getString("index_name")).append('=').append(rs.getLong("ghosts"))
                                .append(" (version ").append(rs.getLong("version_ghosts")).append(", pages ")
                                .append(rs.getLong("pages")).append(')');
                    }
                    obs.info(ghosts.toString());
                } catch (SQLException e) {
                    obs.info("could not read " + label + " ghost records (sys.dm_db_index_physical_stats): "
                            + ProbeObservations.describe(e));
                }
            }
            return waitMs;
        }
    }
}
