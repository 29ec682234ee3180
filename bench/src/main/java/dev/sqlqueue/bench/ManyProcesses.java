package dev.sqlqueue.bench;

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
import dev.sqlqueue.skiplocked.PostgresOptions;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issue 16 point 5: many worker processes on one PostgreSQL queue, through pgbouncer in transaction pooling mode
 * and directly, side by side in one run. Each side: a fresh table prefix, one queue pre-filled with
 * {@code --messages} messages of 100 bytes, then {@code --processes} child JVMs, each a {@link WorkerPool} with
 * {@code WorkerOptions.defaults().withThreads(--threads).withStopWhenEmpty(true)} and a handler that only acks.
 * The clock starts when every child has opened its {@code SqlQueue} (schema checked) and is told to go; it stops
 * at the last ack any child saw committed. Each child writes the ids its listener saw acked; the parent counts
 * them: every enqueued id acked exactly once, none unknown, the queue empty, and no child logged a WARN or ERROR.
 *
 * <p>The PostgreSQL is, by default, a private cluster the program starts from the installed binaries (with
 * {@code max_connections = 300}), because 16 processes connecting directly need {@code 16 x (pool + 1)}
 * connections, more than a shared server with {@code max_connections = 100} may have free; {@code
 * --server=shared} uses 127.0.0.1:5432/test instead. pgbouncer is Debian's, started privately in front of it.
 *
 * <pre>
 * ManyProcesses [--processes=16] [--threads=4] [--messages=40000] [--child-pool=5] [--bouncer-pool=20]
 *               [--reps=1] [--server=private|shared] [--sides=pgbouncer,direct[,direct-unprepared]]
 *               [--out=FILE.csv]
 * </pre>
 *
 * <p>Side {@code direct-unprepared} connects directly with {@code prepareThreshold=0}, so the cost of the unnamed
 * statements can be told from the cost of the pooler's hop.
 */
public final class ManyProcesses {
    private static final int PAYLOAD = 100;

    private ManyProcesses() {
    }

    record Side(String name, String url, boolean pooler) {
    }

    record Outcome5(String side, double seconds, long acks, long distinct, long duplicates, long lost, long unknown,
                    long depthAfter, int problems, String load) {
        double rate(int messages) {
            return messages / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("child")) {
            child(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int processes = 16;
        int threads = 4;
        int messages = 40_000;
        int childPool = 5;
        int bouncerPool = 20;
        int reps = 1;
        boolean privateServer = true;
        List<String> sideNames = List.of("pgbouncer", "direct");
        Path out = Path.of("bench/target/many-processes.csv");
        for (String a : args) {
            String v = a.substring(a.indexOf('=') + 1);
            if (a.startsWith("--processes=")) {
                processes = Integer.parseInt(v);
            } else if (a.startsWith("--threads=")) {
                threads = Integer.parseInt(v);
            } else if (a.startsWith("--messages=")) {
                messages = Integer.parseInt(v);
            } else if (a.startsWith("--child-pool=")) {
                childPool = Integer.parseInt(v);
            } else if (a.startsWith("--bouncer-pool=")) {
                bouncerPool = Integer.parseInt(v);
            } else if (a.startsWith("--reps=")) {
                reps = Integer.parseInt(v);
            } else if (a.startsWith("--server=")) {
                privateServer = v.equals("private");
            } else if (a.startsWith("--sides=")) {
                sideNames = Arrays.asList(v.split(","));
            } else if (a.startsWith("--out=")) {
                out = Path.of(v);
            } else {
                throw new IllegalArgumentException("unknown argument " + a + " (see the Javadoc of ManyProcesses)");
            }
        }
        PrivateServer pg = privateServer ? PrivateServer.postgres(300) : null;
        String host = "127.0.0.1";
        int port = pg != null ? pg.port() : 5432;
        String database = pg != null ? "postgres" : "test";
        String direct = "jdbc:postgresql://" + host + ":" + port + "/" + database;
        try (PrivateServer bouncer = PrivateServer.pgbouncer(host, port, database, "postgres", bouncerPool)) {
            String pooled = "jdbc:postgresql://127.0.0.1:" + bouncer.port() + "/" + database;
            System.out.printf(Locale.ROOT, "many processes: %s, %d processes x %d threads, %d messages of %d bytes, child pool %d"
                            + " (+1 LISTEN directly), pgbouncer 1.18 transaction mode default_pool_size %d, %s PostgreSQL %s,"
                            + " %d CPUs, load %s%n", Instant.now(), processes, threads, messages, PAYLOAD, childPool, bouncerPool,
                    pg != null ? "private" : "shared", direct, Runtime.getRuntime().availableProcessors(), load());
            List<Side> sides = new ArrayList<>();
            for (String name : sideNames) {
                sides.add(switch (name) {
                    case "pgbouncer" -> new Side(name, pooled, true);
                    case "direct" -> new Side(name, direct, false);
                    // directly, without server-side prepared statements: what prepareThreshold=0 alone costs
                    case "direct-unprepared" -> new Side(name, direct + "?prepareThreshold=0", false);
                    default -> throw new IllegalArgumentException("unknown side " + name);
                });
            }
            Files.createDirectories(out.toAbsolutePath().getParent());
            boolean header = !Files.exists(out);
            List<Outcome5> all = new ArrayList<>();
            try (var csv = Files.newBufferedWriter(out, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND)) {
                if (header) {
                    csv.write("time,side,processes,threads,messages,child_pool,bouncer_pool,seconds,msg_per_s,acks,distinct,"
                            + "duplicates,lost,unknown,depth_after,logged_problems,load\n");
                }
                for (int rep = 0; rep < reps; rep++) {
                    // alternate which side runs first: A B, B A, A B... (with three sides, rotated)
                    List<Side> order = new ArrayList<>(sides);
                    if (sides.size() == 2 && rep % 2 == 1) {
                        java.util.Collections.reverse(order);
                    } else if (sides.size() > 2) {
                        java.util.Collections.rotate(order, -rep);
                    }
                    for (Side side : order) {
                        Outcome5 o = runSide(side, direct, processes, threads, messages, childPool);
                        all.add(o);
                        System.out.printf(Locale.ROOT, "%-9s %7.2f s %8.0f msg/s  acks %d distinct %d duplicates %d lost %d unknown"
                                        + " %d depth after %d, WARN/ERROR lines %d, load %s%n", o.side, o.seconds, o.rate(messages),
                                o.acks, o.distinct, o.duplicates, o.lost, o.unknown, o.depthAfter, o.problems, o.load);
                        csv.write(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%d,%.3f,%.0f,%d,%d,%d,%d,%d,%d,%d,%s%n",
                                Instant.now(), o.side, processes, threads, messages, childPool, bouncerPool, o.seconds,
                                o.rate(messages), o.acks, o.distinct, o.duplicates, o.lost, o.unknown, o.depthAfter, o.problems,
                                o.load.replace(',', ' ')));
                        csv.flush();
                    }
                }
            }
            double d = median(all, "direct", messages);
            for (Side side : sides) {
                double m = median(all, side.name, messages);
                System.out.printf(Locale.ROOT, "median drain: %s %.0f msg/s, ratio to direct %.2f%n", side.name, m, m / d);
            }
            System.out.printf(Locale.ROOT, "pgbouncer log WARNING/ERROR lines: %d%n", bouncer.problems().size());
            bouncer.problems().forEach(System.out::println);
        } finally {
            if (pg != null) {
                pg.close();
            }
        }
        System.exit(0);
    }

    private static double median(List<Outcome5> all, String side, int messages) {
        double[] r = all.stream().filter(o -> o.side.equals(side)).mapToDouble(o -> o.rate(messages)).sorted().toArray();
        return r.length == 0 ? Double.NaN : r[r.length / 2];
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static QueueConfig config(String url, String prefix, int poolSize, boolean pooler) {
        QueueConfig.Builder b = QueueConfig.builder().url(url).user("postgres").password("").tablePrefix(prefix).poolSize(poolSize);
        if (pooler) {
            b.option(PostgresOptions.TRANSACTION_POOLER, "true");
        }
        return b.build();
    }

    private static Outcome5 runSide(Side side, String direct, int processes, int threads, int messages, int childPool)
            throws Exception {
        String prefix = "mp" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 30, 1L << 35), 36) + "_";
        QueueName queue = QueueName.of("many");
        Path dir = Files.createTempDirectory("sqlqueue-many-");
        List<Process> children = new ArrayList<>();
        try (SqlQueue admin = SqlQueue.open(config(direct, prefix, 4, false))) {
            admin.createQueue(queue);
            List<Long> ids = new ArrayList<>(messages);
            byte[] payload = new byte[PAYLOAD];
            Arrays.fill(payload, (byte) 'x');
            for (int i = 0; i < messages; i += 500) {
                List<Message> batch = new ArrayList<>();
                for (int j = i; j < Math.min(messages, i + 500); j++) {
                    batch.add(Message.of(payload));
                }
                ids.addAll(admin.enqueueAll(queue, batch));
            }
            String java = ProcessHandle.current().info().command().orElse("java");
            List<BufferedReader> stdouts = new ArrayList<>();
            for (int i = 0; i < processes; i++) {
                Process p = new ProcessBuilder(java, "-Xmx192m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                        ManyProcesses.class.getName(), "child", side.url, prefix, queue.value(), Integer.toString(threads),
                        Integer.toString(childPool), Boolean.toString(side.pooler), dir.resolve("child-" + i + ".ids").toString())
                        .redirectError(dir.resolve("child-" + i + ".log").toFile()).start();
                children.add(p);
                stdouts.add(new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (int i = 0; i < processes; i++) {
                String line = stdouts.get(i).readLine();
                if (!"ready".equals(line)) {
                    throw new IllegalStateException("child " + i + " did not start (" + line + "): "
                            + Files.readString(dir.resolve("child-" + i + ".log")));
                }
            }
            String loadBefore = load();
            long go = System.currentTimeMillis();
            for (Process p : children) {
                OutputStream in = p.getOutputStream();
                in.write("go\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
            }
            long lastAck = go;
            for (int i = 0; i < processes; i++) {
                String line = stdouts.get(i).readLine();
                if (line == null || !line.startsWith("done ")) {
                    throw new IllegalStateException("child " + i + " ended without a result (" + line + "): "
                            + Files.readString(dir.resolve("child-" + i + ".log")));
                }
                lastAck = Math.max(lastAck, Long.parseLong(line.split(" ")[2]));
                if (!children.get(i).waitFor(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("child " + i + " did not exit");
                }
            }
            String loadAfter = load();
            // count the acks every child saw committed
            Map<Long, Integer> counts = new HashMap<>(messages * 2);
            long acks = 0;
            int problems = 0;
            for (int i = 0; i < processes; i++) {
                try (DataInputStream in = new DataInputStream(Files.newInputStream(dir.resolve("child-" + i + ".ids")))) {
                    int n = in.readInt();
                    for (int k = 0; k < n; k++) {
                        counts.merge(in.readLong(), 1, Integer::sum);
                        acks++;
                    }
                }
                for (String l : Files.readAllLines(dir.resolve("child-" + i + ".log"))) {
                    if (l.contains("WARN") || l.contains("ERROR") || l.contains("Exception")) {
                        problems++;
                        if (problems <= 5) {
                            System.out.println("  child " + i + ": " + l);
                        }
                    }
                }
            }
            long duplicates = counts.values().stream().filter(c -> c > 1).mapToLong(c -> c - 1).sum();
            java.util.Set<Long> expected = new java.util.HashSet<>(ids);
            long lost = expected.stream().filter(id -> !counts.containsKey(id)).count();
            long unknown = counts.keySet().stream().filter(id -> !expected.contains(id)).count();
            QueueStats stats = admin.stats(queue);
            long depth = stats.depth() + stats.dead();
            admin.dropSchema();
            return new Outcome5(side.name, (lastAck - go) / 1000.0, acks, counts.size(), duplicates, lost, unknown, depth,
                    problems, loadBefore + " -> " + loadAfter);
        } finally {
            for (Process p : children) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
            try (var files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
            }
            Files.deleteIfExists(dir);
        }
    }

    /** A worker process: url prefix queue threads poolSize pooler idsFile. */
    private static void child(String[] a) throws Exception {
        QueueConfig config = config(a[0], a[1], Integer.parseInt(a[4]), Boolean.parseBoolean(a[5]));
        QueueName queue = QueueName.of(a[2]);
        int threads = Integer.parseInt(a[3]);
        Path idsFile = Path.of(a[6]);
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (SqlQueue q = SqlQueue.open(config)) {
            System.out.println("ready");
            System.out.flush();
            if (!"go".equals(stdin.readLine())) {
                System.exit(2);
            }
            List<Long> acked = new ArrayList<>();
            AtomicLong last = new AtomicLong();
            WorkerListener listener = new WorkerListener() {
                @Override
                public void acked(Delivery delivery, long handlerNanos) {
                    synchronized (acked) {
                        acked.add(delivery.id());
                    }
                    last.accumulateAndGet(System.currentTimeMillis(), Math::max);
                }
            };
            WorkerOptions options = WorkerOptions.defaults().withThreads(threads).withStopWhenEmpty(true);
            try (WorkerPool pool = WorkerPool.start(q, queue, d -> Outcome.ack(), options, listener)) {
                pool.awaitTermination();
            }
            synchronized (acked) {
                try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(idsFile)))) {
                    out.writeInt(acked.size());
                    for (long id : acked) {
                        out.writeLong(id);
                    }
                }
                System.out.println("done " + acked.size() + " " + last.get());
                System.out.flush();
            }
        }
        System.exit(0);
    }
}
