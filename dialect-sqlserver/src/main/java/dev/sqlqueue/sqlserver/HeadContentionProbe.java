package dev.sqlqueue.sqlserver;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.SqlServerOptions.Layout;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Probe V4 (review, "contention at the head of the claim index in both layouts"): {@value #CONSUMERS}
 * threads, each enqueueing one message, claiming one (lease mode) and acking it, through the backend
 * itself for a fixed time, on fifo/clustered, fifo/heap and lifo/heap tables. Afterwards, per index of
 * the message table: page latch waits ({@code sys.dm_db_index_operational_stats}; PAGELATCH waits of
 * that index) and ghost records ({@code sys.dm_db_index_physical_stats}, DETAILED). As documented when
 * the heap's base table waits less on page latches than the clustered primary key, while the claim
 * index has latch waits in both layouts. Creates and drops three table sets; not thread-safe itself
 * (it runs its own threads).
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

    /** Page latch wait ms and ghost records of one run, by index name ({@code (heap)} for a heap). */
    record Measured(String line, Map<String, Long> waitMs) {
    }

    @Override
    public ProbeResult run(ProbeContext context) throws Exception {
        List<String> lines = new ArrayList<>();
        Measured clustered = measure(context, ClaimOrder.FIFO, Layout.CLUSTERED, "cc_");
        Measured heap = measure(context, ClaimOrder.FIFO, Layout.HEAP, "ch_");
        Measured lifoHeap = measure(context, ClaimOrder.LIFO, Layout.HEAP, "lh_");
        lines.add(clustered.line());
        lines.add(heap.line());
        lines.add(lifoHeap.line());
        String prefix = context.prefix();
        long clusteredBase = clustered.waitMs().getOrDefault(prefix + "cc_messages_pk", 0L);
        long heapBase = heap.waitMs().getOrDefault("(heap)", 0L);
        long clusteredClaim = clustered.waitMs().getOrDefault(prefix + "cc_messages_claim", 0L);
        long heapClaim = heap.waitMs().getOrDefault(prefix + "ch_messages_claim", 0L);
        String observed = String.join("\n", lines);
        if (clusteredBase + heapBase + clusteredClaim + heapClaim == 0) {
            return ProbeResult.inconclusive(observed + "\nno page latch waits at all (too few cores or too short a run)");
        }
        boolean asDocumented = heapBase < clusteredBase && clusteredClaim > 0 && heapClaim > 0;
        return asDocumented ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
    }

    private Measured measure(ProbeContext context, ClaimOrder order, Layout layout, String code) throws Exception {
        try (ProbeTables t = ProbeTables.create(context, code, order, layout, migration)) {
            QueueConfig config = context.config().toBuilder().backend("sqlserver").tablePrefix(t.prefix).migrate(false)
                    .poolSize(CONSUMERS + 4).option("ordering", order.key()).option("layout", layout.key()).build();
            AtomicLong acked = new AtomicLong();
            AtomicLong errors = new AtomicLong();
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
                                    errors.incrementAndGet();
                                }
                            }
                        });
                    }
                } finally {
                    pool.shutdown();
                    pool.awaitTermination(duration.toMillis() + 60_000, TimeUnit.MILLISECONDS);
                }
            }
            Map<String, Long> waitMs = new LinkedHashMap<>();
            StringBuilder line = new StringBuilder(order.key() + "/" + layout.key() + ": " + CONSUMERS + " consumers, "
                    + duration.toSeconds() + " s: " + acked.get() + " messages acked, " + errors.get() + " errors; page latch waits");
            try (Connection c = context.connect()) {
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeLatches"), t.messagesQualified());
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        waitMs.put(rs.getString("index_name"), rs.getLong("wait_ms"));
                        line.append(' ').append(rs.getString("index_name")).append('=').append(rs.getLong("waits")).append('/')
                                .append(rs.getLong("wait_ms")).append("ms");
                    }
                }
                line.append("; ghost records");
                try (PreparedStatement ps = Jdbc.prepare(c, t.sql.probe("probeGhosts"), t.messagesQualified());
                     ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        line.append(' ').append(rs.getString("index_name")).append('=').append(rs.getLong("ghosts"))
                                .append(" (version ").append(rs.getLong("version_ghosts")).append(", pages ")
                                .append(rs.getLong("pages")).append(')');
                    }
                }
            } catch (SQLException e) {
                line.append(" not readable (error ").append(e.getErrorCode()).append(": ").append(e.getMessage())
                        .append("; needs VIEW SERVER STATE / VIEW DATABASE STATE)");
            }
            return new Measured(line.toString(), waitMs);
        }
    }
}
