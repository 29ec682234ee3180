package dev.sqlqueue.bench;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.runtime.WorkerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The library side of the drain scenario alone, for a profiler (JFR): {@code ProfileDrain <db> <options>
 * [messages] [runs]}, options {@code default} (WorkerOptions.defaults() with 8 threads), {@code lease100},
 * {@code tx100}, {@code enqueue} (enqueueAll of 100, 4 producers), {@code raw-enqueue} (raw batches of 100, 4
 * producers), {@code raw-lease} or {@code raw-tx} (the raw loops, 8 threads, claims of 100), or {@code pairs}, {@code pairs-lease100}, {@code pairs-tx100} (those options and the raw loop of
 * their mode by turns, see {@link #pairs}); each run prints its rate and the CPU time of the JVM and of the rest of the machine ({@link CpuSplit}). Run it with {@code -XX:StartFlightRecording=filename=drain.jfr,settings=profile}; see
 * docs/benchmarks.md. Pools of 12 connections (8 workers + 4, as the drain points of BenchMain), or
 * {@code -Dbench.pool=N}.
 */
public final class ProfileDrain {
    private ProfileDrain() {
    }

    public static void main(String[] args) throws Exception {
        String db = args.length > 0 ? args[0] : "postgresql";
        String what = args.length > 1 ? args[1] : "default";
        int messages = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        WorkerOptions opts = WorkerOptions.defaults().withThreads(8);
        opts = switch (what) {
            case "default" -> opts;
            case "lease100", "pairs-lease100" -> opts.withBatchSize(100);
            case "tx100", "pairs-tx100" -> opts.withBatchSize(100).withMode(ClaimMode.TRANSACTIONAL);
            case "enqueue", "raw-enqueue", "raw-lease", "raw-tx", "pairs" -> opts;
            default -> throw new IllegalArgumentException(
                    "options: default, lease100, tx100, enqueue, raw-enqueue, raw-lease, raw-tx, pairs, pairs-lease100, pairs-tx100");
        };
        Path tmp = Files.createTempDirectory("sqlqueue-profile");
        try {
            try (Target t = new Target(Database.of(db, tmp), Integer.getInteger("bench.pool", 12))) {
                Trials trials = new Trials(t, 100);
                if (what.startsWith("pairs")) {
                    pairs(t, trials, messages, runs, opts, what);
                    runs = 0;
                }
                for (int i = 0; i < runs; i++) {
                    t.settle();
                    double rate = switch (what) {
                        case "enqueue" -> trials.enqueueLibrary(messages, 100, 4);
                        case "raw-enqueue" -> trials.enqueueRaw(messages, 100, 4);
                        case "raw-lease" -> trials.rawLease(messages, 8, 100);
                        case "raw-tx" -> trials.rawTransactional(messages, 8, 100);
                        default -> trials.endToEndLibrary(messages, opts);
                    };
                    System.out.printf(Locale.ROOT, "%s %s run %d: %.0f msg/s, %s%n", db, what, i + 1, rate, trials.lastCpu());
                }
            }
        } finally {
            BenchMain.deleteTree(tmp);
        }
        System.exit(0);
    }

    /**
     * {@code pairs}: the library with {@code opts} and the raw loop of their claim mode (8 threads, claims of
     * 100) run by turns, {@code runs} pairs (the first two untimed), each pair's ratio printed and their median;
     * on a machine whose speed drifts, only ratios of neighbouring runs compare.
     */
    private static void pairs(Target t, Trials trials, int messages, int runs, WorkerOptions opts, String what)
            throws Exception {
        boolean tx = opts.mode() == ClaimMode.TRANSACTIONAL;
        java.util.List<Double> ratios = new java.util.ArrayList<>();
        for (int i = 0; i < runs + 2; i++) {
            t.settle();
            double lib = trials.endToEndLibrary(messages, opts);
            t.settle();
            double raw = tx ? trials.rawTransactional(messages, 8, 100) : trials.rawLease(messages, 8, 100);
            if (i >= 2) {
                ratios.add(lib / raw);
                System.out.printf(Locale.ROOT, "pair %d: %s %.0f msg/s, raw %s %.0f msg/s, ratio %.2f%n", i - 1, what,
                        lib, tx ? "transactional" : "lease", raw, lib / raw);
            }
        }
        java.util.Collections.sort(ratios);
        System.out.printf(Locale.ROOT, "median ratio of %d pairs: %.2f%n", ratios.size(), ratios.get(ratios.size() / 2));
    }
}
