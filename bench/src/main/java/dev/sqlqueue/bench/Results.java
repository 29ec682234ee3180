package dev.sqlqueue.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Prints each measured point and appends it to the CSV (flushed per row, so a stopped run keeps what it had).
 * {@code ratio} is the library's median over the baseline's median; {@code pair_ratio} is the median of the
 * ratios of each library run to the baseline run right after it (the runs alternate), which a machine whose
 * speed drifts between runs sways less. {@code load_avg} is the machine's 1-minute load average when the point
 * ended ({@code /proc/loadavg}; empty where there is none): on a shared machine a figure means little without it.
 */
final class Results implements AutoCloseable {
    static final String HEADER = "date,db,scenario,workers,batch,messages,reps,library_msg_s,baseline_msg_s,ratio,"
            + "library_runs,baseline_runs,peak_heap_mb,xmx_mb,pair_ratio,load_avg";

    private final PrintWriter out;
    private final String date = Instant.now().toString();
    final Path path;

    Results(Path path) throws IOException {
        this.path = path;
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        this.out = new PrintWriter(Files.newBufferedWriter(path, StandardCharsets.UTF_8));
        out.println(HEADER);
        out.flush();
        System.out.printf(Locale.ROOT, "%-10s %-14s %7s %5s %8s %12s %12s %6s %6s  %s%n", "db", "scenario", "workers",
                "batch", "messages", "library/s", "baseline/s", "ratio", "pairs", "runs (library | baseline)");
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String runs(double[] v) {
        return Arrays.stream(v).mapToObj(x -> String.format(Locale.ROOT, "%.0f", x)).collect(Collectors.joining(";"));
    }

    /** The median of {@code lib[i] / base[i]}. */
    static double pairRatio(double[] lib, double[] base) {
        double[] r = new double[Math.min(lib.length, base.length)];
        for (int i = 0; i < r.length; i++) {
            r[i] = lib[i] / base[i];
        }
        return median(r);
    }

    void point(String db, String scenario, int workers, int batch, int messages, double[] lib, double[] base) {
        double l = median(lib);
        double b = median(base);
        double ratio = l / b;
        double pairs = pairRatio(lib, base);
        String load = loadAverage();
        System.out.printf(Locale.ROOT, "%-10s %-14s %7d %5d %8d %12.0f %12.0f %6.2f %6.2f  %s | %s  load %s%s%n", db, scenario,
                workers, batch, messages, l, b, ratio, pairs, runs(lib), runs(base), load, ratio < 0.8 ? "   < 0.8" : "");
        out.printf(Locale.ROOT, "%s,%s,%s,%d,%d,%d,%d,%.0f,%.0f,%.3f,%s,%s,,,%.3f,%s%n", date, db, scenario, workers, batch,
                messages, lib.length, l, b, ratio, runs(lib), runs(base), pairs, load);
        out.flush();
    }

    /** The 1-minute load average of the machine ({@code /proc/loadavg}), or "" where it cannot be read. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    void memory(String db, int workers, int batch, int messages, double drainRate, double peakHeapMb, double xmxMb) {
        out.printf(Locale.ROOT, "%s,%s,memory,%d,%d,%d,1,%.0f,,,,,%.1f,%.0f,%n", date, db, workers, batch, messages,
                drainRate, peakHeapMb, xmxMb);
        out.flush();
    }

    /** Rows of a CSV written by this class, split on commas (no field contains one). */
    static List<String[]> read(Path csv) throws IOException {
        return Files.readAllLines(csv, StandardCharsets.UTF_8).stream().skip(1).filter(l -> !l.isBlank())
                .map(l -> l.split(",", -1)).toList();
    }

    @Override
    public void close() {
        out.close();
    }
}
