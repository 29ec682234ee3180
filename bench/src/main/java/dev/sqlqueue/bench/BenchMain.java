package dev.sqlqueue.bench;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.runtime.WorkerOptions;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The benchmark program: library throughput beside a raw-JDBC baseline running the same SQL, per database
 * and scenario, medians of alternating runs (library, baseline, library, baseline...). See docs/benchmarks.md.
 *
 * <pre>
 * BenchMain plot &lt;results.csv&gt; &lt;out.png&gt;   render the scaling figure (see {@link ScalingPlot})
 * arguments (all optional):
 *   --quick                 1 run each, fewer messages, workers 1/4/16 in the scaling matrix
 *   --db=h2,postgresql,mariadb
 *   --scenario=enqueue,claim,e2e,scaling,drain,memory,latency   (default: all but drain, memory and latency)
 *                           drain: 8 workers against the minimal raw loops of issue 16 (RawLoops):
 *                           default WorkerOptions and lease batch 100 against the raw lease loop,
 *                           transactional batch 100 against the raw transactional loop, and enqueueAll of
 *                           100 with 4 producers against raw batches of 100 plain inserts
 *                           The drain points run on pools of 12 connections (8 workers + 4, as a user sizes
 *                           one; issue 32), the library with default QueueConfig (history off), queues filled
 *                           with enqueueAll of 100
 *   --pool=N                pool size of the library and of each baseline (default 20; the drain points 12)
 *   --reps=N                runs of each side per point (default 3; --quick 1)
 *   --messages=N            messages per point (default 20000; batch-1 points use a tenth)
 *   --h2-messages=N         cap of the H2 consume scenarios (default 2000; its claim is O(backlog))
 *   --memory-messages=N     backlog of the memory scenario (default 1000000)
 *   latency: issue 32 point 2 ({@link LatencyBench}): the maximum of enqueue + drain, then the idle cost and
 *                           enqueue-to-handler p50/p99/p99.9 of an open-loop producer at fractions of that maximum
 *   --latency-loads=10,50,90   offered loads, % of the maximum
 *   --latency-max=N         the maximum in msg/s, not measured (one number, or db:N,db:N per database)
 *   --latency-max-s=15      length of the maximum measurement
 *   --latency-s=30          length of each load
 *   --latency-idle-s=20     length of the idle count
 *   --latency-threads=4     WorkerPool threads (WorkerOptions.defaults() has 4)
 *   --latency-out=FILE.csv  default: the --out file with "-latency" before ".csv"
 *   --out=FILE.csv          default bench/target/bench-&lt;UTC time&gt;.csv
 *   --h2-scaling            run the scaling matrix on H2 too (it is PostgreSQL and MariaDB only by default)
 * </pre>
 */
public final class BenchMain {
    private BenchMain() {
    }

    private static final int PAYLOAD = 100;

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("plot")) {
            ScalingPlot.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        boolean quick = false;
        boolean h2Scaling = false;
        List<String> dbs = List.of("h2", "postgresql", "mariadb");
        List<String> scenarios = List.of("enqueue", "claim", "e2e", "scaling");
        Integer reps = null;
        Integer pool = null;
        Integer messages = null;
        int memoryMessages = 1_000_000;
        int h2Messages = 2_000;
        Path out = null;
        Path latencyOut = null;
        List<Integer> latencyLoads = List.of(10, 50, 90);
        String latencyMax = "";
        int latencyMaxSeconds = 15;
        int latencySeconds = 30;
        int latencyIdleSeconds = 20;
        int latencyThreads = WorkerOptions.defaults().threads();
        for (String a : args) {
            String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
            if (a.equals("--quick")) {
                quick = true;
            } else if (a.equals("--h2-scaling")) {
                h2Scaling = true;
            } else if (a.startsWith("--db=")) {
                dbs = Arrays.asList(v.split(","));
            } else if (a.startsWith("--scenario=")) {
                scenarios = Arrays.asList(v.split(","));
            } else if (a.startsWith("--pool=")) {
                pool = Integer.parseInt(v);
            } else if (a.startsWith("--reps=")) {
                reps = Integer.parseInt(v);
            } else if (a.startsWith("--warmups=")) {
                warmups = Integer.parseInt(v);
            } else if (a.startsWith("--messages=")) {
                messages = Integer.parseInt(v);
            } else if (a.startsWith("--h2-messages=")) {
                h2Messages = Integer.parseInt(v);
            } else if (a.startsWith("--memory-messages=")) {
                memoryMessages = Integer.parseInt(v);
            } else if (a.startsWith("--out=")) {
                out = Path.of(v);
            } else if (a.startsWith("--latency-out=")) {
                latencyOut = Path.of(v);
            } else if (a.startsWith("--latency-loads=")) {
                latencyLoads = Arrays.stream(v.split(",")).map(Integer::valueOf).toList();
            } else if (a.startsWith("--latency-max=")) {
                latencyMax = v;
            } else if (a.startsWith("--latency-max-s=")) {
                latencyMaxSeconds = Integer.parseInt(v);
            } else if (a.startsWith("--latency-s=")) {
                latencySeconds = Integer.parseInt(v);
            } else if (a.startsWith("--latency-idle-s=")) {
                latencyIdleSeconds = Integer.parseInt(v);
            } else if (a.startsWith("--latency-threads=")) {
                latencyThreads = Integer.parseInt(v);
            } else {
                throw new IllegalArgumentException("unknown argument " + a + " (see the Javadoc of BenchMain)");
            }
        }
        for (String s : scenarios) {
            if (!List.of("enqueue", "claim", "e2e", "scaling", "drain", "memory", "latency").contains(s)) {
                throw new IllegalArgumentException("unknown scenario " + s);
            }
        }
        int n = messages != null ? messages : quick ? 5_000 : 20_000;
        int r = reps != null ? reps : quick ? 1 : 3;
        if (out == null) {
            String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
            out = Path.of(Files.isDirectory(Path.of("bench")) ? "bench/target" : "target", "bench-" + stamp + ".csv");
        }
        int[] workerSteps = quick ? new int[] {1, 4, 16} : new int[] {1, 2, 4, 8, 16};
        Path tmp = Files.createTempDirectory("sqlqueue-bench");
        System.out.printf(Locale.ROOT, "sqlqueue bench: %s, %d runs each side per point, %d messages of %d bytes, "
                        + "Java %s, %d CPUs, -Xmx %d MB; CSV %s%n", Instant.now(), r, n, PAYLOAD,
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() / 1048576, out);
        long started = System.nanoTime();
        if (latencyOut == null) {
            latencyOut = Path.of(out.toString().replaceAll("\\.csv$", "") + "-latency.csv");
        }
        PrintWriter latencyCsv = null;
        try (Results results = new Results(out)) {
            for (String name : dbs) {
                Database db = Database.of(name, tmp);
                if (scenarios.contains("latency")) {
                    if (latencyCsv == null) {
                        if (latencyOut.getParent() != null) {
                            Files.createDirectories(latencyOut.getParent());
                        }
                        latencyCsv = new PrintWriter(Files.newBufferedWriter(latencyOut, StandardCharsets.UTF_8));
                        latencyCsv.println(LatencyBench.CSV_HEADER);
                        latencyCsv.flush();
                        System.out.println("latency CSV " + latencyOut);
                    }
                    LatencyBench.run(db, new LatencyBench.Options(latencyLoads, maxFor(latencyMax, name), latencyMaxSeconds,
                            latencySeconds, latencyIdleSeconds, latencyThreads), latencyCsv);
                    if (scenarios.size() == 1) {
                        continue; // no other scenario: open no pools of the throughput points
                    }
                }
                try (Target t = new Target(db, pool != null ? pool : 20)) {
                    System.out.printf(Locale.ROOT, "-- %s (%s), table prefix %s, pool size %d%n", db.name(),
                            t.lib.serverVersion(), t.prefix, t.poolSize);
                    Trials trials = new Trials(t, PAYLOAD);
                    // H2's claim statement costs time proportional to the backlog (docs/benchmarks.md), so
                    // its consume scenarios run on a smaller backlog
                    int c = name.equals("h2") ? Math.min(n, h2Messages) : n;
                    if (scenarios.contains("enqueue")) {
                        for (int threads : new int[] {1, 4}) {
                            measure(t, results, "enqueue", threads, 100, n, r,
                                    () -> trials.enqueueLibrary(n, 100, threads),
                                    () -> trials.enqueueBaseline(n, 100, threads));
                        }
                    }
                    if (scenarios.contains("claim")) {
                        measure(t, results, "claim", 1, 100, c, r,
                                () -> trials.claimAckLibrary(c, 100), () -> trials.claimAckBaseline(c, 100));
                    }
                    if (scenarios.contains("e2e")) {
                        for (int batch : new int[] {100, 10}) {
                            measure(t, results, "e2e", 8, batch, c, r,
                                    () -> trials.endToEndLibrary(c, 8, batch), () -> trials.endToEndBaseline(c, 8, batch));
                        }
                    }
                    if (scenarios.contains("scaling") && (!name.equals("h2") || h2Scaling)) {
                        for (int batch : new int[] {100, 10, 1}) {
                            int m = batch == 1 ? c / 10 : c;
                            for (int w : workerSteps) {
                                measure(t, results, "scaling", w, batch, m, r,
                                        () -> trials.endToEndLibrary(m, w, batch), () -> trials.endToEndBaseline(m, w, batch));
                            }
                        }
                    }
                    if (scenarios.contains("drain")) {
                        // as a user runs it (issue 32): a pool of workers + 4, default QueueConfig
                        try (Target d = new Target(db, pool != null ? pool : 8 + 4)) {
                            System.out.printf(Locale.ROOT, "   drain points: table prefix %s, pool size %d%n", d.prefix, d.poolSize);
                            Trials dt = new Trials(d, PAYLOAD);
                            measure(d, results, "enqueue-raw", 4, 100, n, r,
                                    () -> dt.enqueueLibrary(n, 100, 4), () -> dt.enqueueRaw(n, 100, 4));
                            WorkerOptions defaults = WorkerOptions.defaults().withThreads(8);
                            measure(d, results, "drain-default", 8, defaults.batchSize(), c, r,
                                    () -> dt.endToEndLibrary(c, defaults), () -> dt.rawLease(c, 8, 100));
                            measure(d, results, "drain-lease100", 8, 100, c, r,
                                    () -> dt.endToEndLibrary(c, defaults.withBatchSize(100)), () -> dt.rawLease(c, 8, 100));
                            measure(d, results, "drain-tx100", 8, 100, c, r,
                                    () -> dt.endToEndLibrary(c, defaults.withBatchSize(100).withMode(ClaimMode.TRANSACTIONAL)),
                                    () -> dt.rawTransactional(c, 8, 100));
                        }
                    }
                    if (scenarios.contains("memory")) {
                        Path timeline = Path.of(out.toString().replaceAll("\\.csv$", "") + "-memory-" + name + ".csv");
                        MemoryBench.run(t, memoryMessages, results, timeline);
                    }
                }
            }
        } finally {
            if (latencyCsv != null) {
                latencyCsv.close();
            }
            deleteTree(tmp);
        }
        System.out.printf(Locale.ROOT, "done in %.0f s; CSV %s%n", (System.nanoTime() - started) / 1e9, out);
        System.exit(0);
    }

    /** {@code --latency-max}: "" (measure), one number for every database, or {@code db:N,db:N}. */
    static double maxFor(String spec, String db) {
        if (spec.isEmpty()) {
            return 0;
        }
        if (!spec.contains(":")) {
            return Double.parseDouble(spec);
        }
        for (String part : spec.split(",")) {
            String[] kv = part.split(":");
            if (kv[0].equals(db)) {
                return Double.parseDouble(kv[1]);
            }
        }
        return 0;
    }

    @FunctionalInterface
    interface Trial {
        double run() throws Exception;
    }

    private static final java.util.Set<String> WARMED = new java.util.HashSet<>();
    /**
     * Untimed library/baseline pairs before the first run of each point ({@code --warmups=N}, default 1). With
     * one, the first drain point of a database ran with the library's claim and ack paths still being compiled:
     * default {@code WorkerOptions} and {@code withBatchSize(100)}, the same options, gave 0.80 and 0.94 of the
     * raw loop on PostgreSQL in one quiet run (docs/benchmarks.md).
     */
    private static int warmups = 1;

    /** Alternate library and baseline runs (ABAB...), one untimed warm-up pair before the first point of each scenario, and record the medians. */
    private static void measure(Target t, Results results, String scenario, int workers, int batch, int messages,
                                int reps, Trial lib, Trial base) throws Exception {
        double[] l = new double[reps];
        double[] b = new double[reps];
        if (WARMED.add(t.db.name() + "/" + scenario)) {
            for (int w = 0; w < warmups; w++) {
                t.settle();
                lib.run();
                t.settle();
                base.run();
            }
        }
        for (int i = 0; i < reps; i++) {
            t.settle();
            l[i] = lib.run();
            t.settle();
            b[i] = base.run();
        }
        results.point(t.db.name(), scenario, workers, batch, messages, l, b);
    }

    static void deleteTree(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (Exception ignored) {
            // temp dir: best effort
        }
    }
}
