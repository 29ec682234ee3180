package dev.sqlqueue.bench;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.ForwardingQueueBackend;
import dev.sqlqueue.spi.QueueBackend;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sustained load on PostgreSQL (issue 16 point 4): first the maximum (producers and a WorkerPool at full
 * speed together), then {@code --minutes} of a producer paced at {@code --fraction} of that maximum against
 * a WorkerPool of 8 threads with default {@link WorkerOptions} whose handler only acks, sampled every
 * {@code --sample-s} seconds into a CSV (and a PNG through {@link SustainedPlot}).
 *
 * <pre>
 * Sustained [options]
 *   --url=jdbc:postgresql://127.0.0.1:5432/test  --user=postgres  --password=
 *   --label=NAME          written into the CSV and the plot title (default: the server's autovacuum setting)
 *   --max-s=45            length of the maximum measurement; its rate is the acks of its last two thirds
 *   --rate=N              skip the maximum measurement and pace at N msg/s
 *   --fraction=0.8        share of the maximum the producer is paced at
 *   --minutes=20          length of the paced run
 *   --sample-s=10         sampling interval
 *   --vacuum-every-s=0    when above 0, a plain VACUUM of the message table every so many seconds from a
 *                         separate autocommit connection (what a cron job would do with autovacuum off)
 *   --option=KEY=VALUE    a backend option of the paced run's queue, repeatable: for example
 *                         --option=postgresql.vacuum-every=1m (the library vacuums its own table)
 *   --keep                leave the paced run's tables in place (to inspect plans and statistics afterwards)
 *   --out=FILE.csv        default bench/results/sustained-&lt;label&gt;.csv; the PNG is written beside it
 * </pre>
 *
 * <p>Claim latency is the time of each call to the backend's {@code consume} (one claim statement and its
 * commit), measured by a {@link ForwardingQueueBackend} under {@link SqlQueue#wrap}, the way
 * metrics-micrometer meters it; p50/p99 are per sampling interval, over every claim, empty ones included.
 */
public final class Sustained {
    private Sustained() {
    }

    private static final int BATCH = 100;
    private static final int THREADS = 8;
    private static final int PAYLOAD = 100;
    private static final int PRODUCERS = 2;
    /** The maximum measurement pauses its producers while this many messages are enqueued but not yet acked. */
    private static final long MAX_BACKLOG = 20_000;

    /** Latencies of backend consume() calls (nanoseconds), swapped out at every sample. */
    static final class Claims {
        private long[] values = new long[1 << 16];
        private int n;
        private long empty;

        synchronized void record(long nanos, boolean wasEmpty) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = nanos;
            if (wasEmpty) {
                empty++;
            }
        }

        /** {count, empty, p50 ns, p99 ns, max ns} since the last call. */
        synchronized long[] drain() {
            long[] v = Arrays.copyOf(values, n);
            long e = empty;
            n = 0;
            empty = 0;
            Arrays.sort(v);
            if (v.length == 0) {
                return new long[] {0, 0, 0, 0, 0};
            }
            return new long[] {v.length, e, v[(int) Math.min(v.length - 1, Math.floor(v.length * 0.50))],
                    v[(int) Math.min(v.length - 1, Math.floor(v.length * 0.99))], v[v.length - 1]};
        }
    }

    /** Times consume() round trips into {@code claims}. */
    static class TimedBackend extends ForwardingQueueBackend {
        final Claims claims;

        TimedBackend(QueueBackend delegate, Claims claims) {
            super(delegate);
            this.claims = claims;
        }

        @Override
        public List<Delivery> consume(QueueName queue, ConsumeRequest request) {
            long t0 = System.nanoTime();
            List<Delivery> got = super.consume(queue, request);
            claims.record(System.nanoTime() - t0, got.isEmpty());
            return got;
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        String user = "postgres";
        String password = "";
        String label = null;
        int maxSeconds = 45;
        double rate = 0;
        double fraction = 0.8;
        double minutes = 20;
        int sampleSeconds = 10;
        int vacuumEvery = 0;
        List<String> options = new ArrayList<>();
        Path out = null;
        boolean keep = false;
        for (String a : args) {
            String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
            if (a.startsWith("--url=")) {
                url = v;
            } else if (a.startsWith("--user=")) {
                user = v;
            } else if (a.startsWith("--password=")) {
                password = v;
            } else if (a.startsWith("--label=")) {
                label = v;
            } else if (a.startsWith("--max-s=")) {
                maxSeconds = Integer.parseInt(v);
            } else if (a.startsWith("--rate=")) {
                rate = Double.parseDouble(v);
            } else if (a.startsWith("--fraction=")) {
                fraction = Double.parseDouble(v);
            } else if (a.startsWith("--minutes=")) {
                minutes = Double.parseDouble(v);
            } else if (a.startsWith("--sample-s=")) {
                sampleSeconds = Integer.parseInt(v);
            } else if (a.startsWith("--option=")) {
                options.add(v);
            } else if (a.startsWith("--vacuum-every-s=")) {
                vacuumEvery = Integer.parseInt(v);
            } else if (a.startsWith("--out=")) {
                out = Path.of(v);
            } else if (a.equals("--keep")) {
                keep = true;
            } else {
                throw new IllegalArgumentException("unknown argument " + a + " (see the Javadoc of Sustained)");
            }
        }
        String autovacuum;
        String serverVersion;
        try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
            autovacuum = scalar(st, "SHOW autovacuum");
            serverVersion = scalar(st, "SHOW server_version");
        }
        if (label == null) {
            label = "autovacuum-" + autovacuum + (vacuumEvery > 0 ? "-vacuum" + vacuumEvery + "s" : "");
        }
        if (out == null) {
            out = Path.of(Files.isDirectory(Path.of("bench/results")) ? "bench/results" : ".", "sustained-" + label + ".csv");
        }
        byte[] payload = new byte[PAYLOAD];
        Arrays.fill(payload, (byte) 'x');
        List<Message> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(Message.of(payload));
        }
        System.out.printf(Locale.ROOT, "sustained: %s, PostgreSQL %s, autovacuum %s, label %s, load %s%n",
                Instant.now(), serverVersion, autovacuum, label, loadavg());

        double max = 0;
        if (rate <= 0) {
            max = measureMax(url, user, password, batch, maxSeconds);
            rate = max * fraction;
            System.out.printf(Locale.ROOT, "maximum %.0f msg/s; pacing at %.0f msg/s (%.0f%%)%n", max, rate, fraction * 100);
        }

        String prefix = prefix();
        Claims claims = new Claims();
        QueueConfig.Builder builder = QueueConfig.builder().url(url).user(user).password(password).tablePrefix(prefix).poolSize(20);
        for (String o : options) {
            int eq = o.indexOf('=');
            builder.option(o.substring(0, eq), o.substring(eq + 1));
        }
        QueueConfig config = builder.build();
        SqlQueue lib = SqlQueue.wrap(new TimedBackend(BackendDiscovery.find(config).open(config), claims), config);
        QueueName q = QueueName.of("sustained");
        lib.createQueue(q);
        AtomicLong enqueued = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicLong worstLagMillis = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        long periodNanos = (long) (BATCH / rate * 1e9);
        AtomicLong nextBatch = new AtomicLong();
        long start = System.nanoTime();
        long end = start + (long) (minutes * 60e9);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            Thread th = new Thread(() -> {
                while (!stop.get()) {
                    long due = start + nextBatch.getAndIncrement() * periodNanos;
                    if (due >= end) {
                        return;
                    }
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        sleepNanos(wait);
                    } else {
                        worstLagMillis.accumulateAndGet(-wait / 1_000_000, Math::max);
                    }
                    lib.enqueueAll(q, batch);
                    enqueued.addAndGet(BATCH);
                }
            }, "producer-" + p);
            th.setDaemon(true);
            producers.add(th);
        }
        WorkerListener listener = new WorkerListener() {
            @Override
            public void acked(Delivery delivery, long handlerNanos) {
                acked.incrementAndGet();
            }

            @Override
            public void leaseLost(Delivery delivery) {
                lost.incrementAndGet();
            }
        };
        WorkerPool pool = WorkerPool.start(lib, q, d -> Outcome.ack(), WorkerOptions.defaults().withThreads(THREADS), listener);
        producers.forEach(Thread::start);
        String table = prefix + "message";
        Files.createDirectories(out.toAbsolutePath().getParent());
        AtomicLong vacuums = new AtomicLong();
        if (vacuumEvery > 0) {
            String u = url;
            String us = user;
            String pw = password;
            long everyNanos = vacuumEvery * 1_000_000_000L;
            Thread vacuumer = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(u, us, pw); Statement st = c.createStatement()) {
                    c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
                    for (long next = start + everyNanos; !stop.get(); next += everyNanos) {
                        sleepNanos(Math.max(0, next - System.nanoTime()));
                        if (stop.get()) {
                            return;
                        }
                        long v0 = System.nanoTime();
                        st.execute("VACUUM \"" + table + "\"");
                        System.out.printf(Locale.ROOT, "   VACUUM %d took %.1f s%n", vacuums.incrementAndGet(), (System.nanoTime() - v0) / 1e9);
                    }
                } catch (SQLException e) {
                    System.out.println("VACUUM failed: " + e.getMessage());
                }
            }, "vacuum");
            vacuumer.setDaemon(true);
            vacuumer.start();
        }
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out));
             Connection mon = DriverManager.getConnection(url, user, password)) {
            mon.setAutoCommit(true);
            csv.printf(Locale.ROOT, "# sustained %s label=%s server=%s autovacuum=%s max=%.0f rate=%.0f fraction=%.2f minutes=%s "
                            + "threads=%d batch=%d payload=%d vacuum_every_s=%d prefix=%s%n", Instant.now(), label, serverVersion,
                    autovacuum, max, rate, fraction, minutes, THREADS, BATCH, PAYLOAD, vacuumEvery, prefix);
            csv.println("t_s,enqueued_per_s,acked_per_s,backlog,in_flight,claims,empty_claims,claim_p50_ms,claim_p99_ms,"
                    + "claim_max_ms,heap_bytes,index_bytes,toast_bytes,total_bytes,live_tup,dead_tup,n_tup_upd,n_tup_hot_upd,"
                    + "autovacuum_count,last_autovacuum,vacuums,producer_lag_ms,lease_lost,load1");
            long lastEnq = 0;
            long lastAck = 0;
            long lastT = start;
            claims.drain();
            for (int i = 1; ; i++) {
                long due = start + i * sampleSeconds * 1_000_000_000L;
                sleepNanos(Math.max(0, due - System.nanoTime()));
                long now = System.nanoTime();
                long enq = enqueued.get();
                long ack = acked.get();
                long[] lat = claims.drain();
                double dt = (now - lastT) / 1e9;
                QueueStats stats = lib.stats(q);
                String row;
                try (PreparedStatement ps = mon.prepareStatement(
                        "SELECT pg_relation_size(c.oid), pg_indexes_size(c.oid), "
                                + "COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0), pg_total_relation_size(c.oid), "
                                + "s.n_live_tup, s.n_dead_tup, s.n_tup_upd, s.n_tup_hot_upd, s.autovacuum_count, "
                                + "COALESCE(to_char(s.last_autovacuum AT TIME ZONE 'UTC', 'HH24:MI:SS'), '') "
                                + "FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = ?")) {
                    ps.setString(1, table);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new IllegalStateException("no table " + table);
                        }
                        row = String.format(Locale.ROOT, "%d,%d,%d,%d,%d,%d,%d,%d,%d,%s", rs.getLong(1), rs.getLong(2),
                                rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getLong(7), rs.getLong(8),
                                rs.getLong(9), rs.getString(10));
                    }
                }
                String line = String.format(Locale.ROOT, "%.0f,%.0f,%.0f,%d,%d,%d,%d,%.3f,%.3f,%.3f,%s,%d,%d,%d,%s",
                        (now - start) / 1e9, (enq - lastEnq) / dt, (ack - lastAck) / dt, stats.depth(), stats.inFlight(),
                        lat[0], lat[1], lat[2] / 1e6, lat[3] / 1e6, lat[4] / 1e6, row, vacuums.get(), worstLagMillis.getAndSet(0),
                        lost.get(), loadavg().split(" ")[0]);
                csv.println(line);
                csv.flush();
                System.out.println(line);
                lastEnq = enq;
                lastAck = ack;
                lastT = now;
                if (now >= end) {
                    break;
                }
            }
        } finally {
            stop.set(true);
            for (Thread th : producers) {
                th.join(10_000);
            }
            pool.close();
            System.out.printf(Locale.ROOT, "enqueued %d, acked %d, lease-lost reports %d, backlog at the end %d; load %s%n",
                    enqueued.get(), acked.get(), lost.get(), lib.stats(q).depth(), loadavg());
            if (!keep) {
                lib.dropSchema();
            }
            lib.close();
        }
        Path png = Path.of(out.toString().replaceAll("\\.csv$", "") + ".png");
        SustainedPlot.main(new String[] {png.toString(), out.toString()});
        System.exit(0);
    }

    /** Producers at full speed (pausing above {@value #MAX_BACKLOG} unacked) and the pool; acks/s over the last two thirds. */
    private static double measureMax(String url, String user, String password, List<Message> batch, int seconds) throws Exception {
        String prefix = prefix();
        QueueConfig config = QueueConfig.builder().url(url).user(user).password(password).tablePrefix(prefix).poolSize(20).build();
        SqlQueue lib = SqlQueue.open(config);
        try {
            QueueName q = QueueName.of("maximum");
            lib.createQueue(q);
            AtomicLong enqueued = new AtomicLong();
            AtomicLong acked = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                Thread th = new Thread(() -> {
                    while (!stop.get()) {
                        if (enqueued.get() - acked.get() > MAX_BACKLOG) {
                            sleepNanos(1_000_000);
                            continue;
                        }
                        lib.enqueueAll(q, batch);
                        enqueued.addAndGet(BATCH);
                    }
                }, "max-producer-" + p);
                th.setDaemon(true);
                producers.add(th);
            }
            WorkerPool pool = WorkerPool.start(lib, q, d -> Outcome.ack(), WorkerOptions.defaults().withThreads(THREADS),
                    new WorkerListener() {
                        @Override
                        public void acked(Delivery delivery, long handlerNanos) {
                            acked.incrementAndGet();
                        }
                    });
            producers.forEach(Thread::start);
            long warm = seconds / 3;
            Thread.sleep(warm * 1000);
            long a0 = acked.get();
            long e0 = enqueued.get();
            long t0 = System.nanoTime();
            Thread.sleep((seconds - warm) * 1000L);
            double dt = (System.nanoTime() - t0) / 1e9;
            double ackRate = (acked.get() - a0) / dt;
            double enqRate = (enqueued.get() - e0) / dt;
            stop.set(true);
            for (Thread th : producers) {
                th.join(10_000);
            }
            pool.close();
            System.out.printf(Locale.ROOT, "maximum over %.0f s after %d s warm-up: enqueued %.0f msg/s, acked %.0f msg/s; load %s%n",
                    dt, warm, enqRate, ackRate, loadavg());
            return ackRate;
        } finally {
            lib.dropSchema();
            lib.close();
        }
    }

    private static String prefix() {
        return "su" + Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36) + "_";
    }

    private static String scalar(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static String loadavg() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "? ? ?";
        }
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
