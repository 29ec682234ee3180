package dev.sqlqueue.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Renders one or more CSVs of {@link Sustained} side by side (one column per CSV, same scales): throughput
 * (enqueued and acked msg/s), claim latency p50/p99 (ms, log scale), message table sizes (MB) and live/dead
 * tuples. Headless java.awt.
 *
 * <p>Usage: {@code SustainedPlot <out.png> <run.csv> [<run.csv>...]}, or {@code SustainedPlot --table <run.csv>
 * [minutes]} for a Markdown table per window of 5 minutes (the mean rates, the median of the 10 s p50 and
 * p99, the worst 10 s p99, sizes and dead tuples at the window's end, the mean load average).
 */
public final class SustainedPlot {
    private SustainedPlot() {
    }

    private static final Color BLUE = new Color(0x1f77b4);
    private static final Color RED = new Color(0xd62728);
    private static final Color GREEN = new Color(0x2ca02c);
    private static final Color GREY = new Color(0x7f7f7f);

    private record Run(String title, Map<String, double[]> cols) {
        double[] col(String name) {
            double[] c = cols.get(name);
            if (c == null) {
                throw new IllegalArgumentException("no column " + name);
            }
            return c;
        }
    }

    private record Series(String column, String label, Color colour, double scale) {
    }

    private record Panel(String title, boolean log, List<Series> series) {
    }

    static Run read(Path csv) throws Exception {
        List<String> lines = Files.readAllLines(csv);
        String title = csv.getFileName().toString();
        int i = 0;
        if (lines.get(0).startsWith("#")) {
            String h = lines.get(0);
            title = "autovacuum " + field(h, "autovacuum") + ", " + field(h, "rate") + " msg/s ("
                    + (field(h, "max").equals("0") ? "rate given" : Math.round(Double.parseDouble(field(h, "fraction")) * 100)
                    + "% of " + field(h, "max")) + ")"
                    + (field(h, "vacuum_every_s").equals("0") ? "" : ", VACUUM every " + field(h, "vacuum_every_s") + " s")
                    + ", " + h.split(" ")[2].substring(0, Math.min(16, h.split(" ")[2].length())).replace('T', ' ') + " UTC";
            i = 1;
        }
        String[] header = lines.get(i).split(",");
        List<String[]> rows = new ArrayList<>();
        for (String l : lines.subList(i + 1, lines.size())) {
            if (!l.isBlank()) {
                rows.add(l.split(",", -1));
            }
        }
        Map<String, double[]> cols = new HashMap<>();
        for (int c = 0; c < header.length; c++) {
            double[] v = new double[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                try {
                    v[r] = Double.parseDouble(rows.get(r)[c]);
                } catch (NumberFormatException e) {
                    v[r] = Double.NaN;
                }
            }
            cols.put(header[c], v);
        }
        return new Run(title, cols);
    }

    private static String field(String header, String key) {
        for (String f : header.split(" ")) {
            if (f.startsWith(key + "=")) {
                return f.substring(key.length() + 1);
            }
        }
        return "?";
    }

    static void table(Path csv, int minutes) throws Exception {
        Run r = read(csv);
        double[] t = r.col("t_s");
        System.out.println("| minutes | enqueued msg/s | acked msg/s | claim p50 ms | claim p99 ms (median / worst 10 s) "
                + "| heap MB | indexes MB | total MB | dead tuples | backlog | autovacuums | load avg |");
        System.out.println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        // a sample belongs to the window its time falls in; samples a few seconds past the end (the sampling
        // interval drifts when the statistics query is slow) to the last window
        int span = minutes * 60;
        int windows = Math.max(1, (int) Math.round(t[t.length - 1] / span));
        int from = 0;
        for (int k = 0, w = span; k < windows; k++, w += span) {
            int to = from;
            while (to < t.length && (k == windows - 1 || t[to] <= w + 1)) {
                to++;
            }
            if (to == from) {
                break;
            }
            int last = to - 1;
            System.out.printf(Locale.ROOT, "| %d-%d | %,.0f | %,.0f | %.1f | %.0f / %.0f | %.0f | %.0f | %.0f | %,.0f | %,.0f | %.0f | %.1f |%n",
                    (w - minutes * 60) / 60, w / 60, mean(r.col("enqueued_per_s"), from, to), mean(r.col("acked_per_s"), from, to),
                    median(r.col("claim_p50_ms"), from, to), median(r.col("claim_p99_ms"), from, to), max(r.col("claim_p99_ms"), from, to),
                    r.col("heap_bytes")[last] / 1048576, r.col("index_bytes")[last] / 1048576, r.col("total_bytes")[last] / 1048576,
                    r.col("dead_tup")[last], r.col("backlog")[last], r.col("autovacuum_count")[last], mean(r.col("load1"), from, to));
            from = to;
        }
    }

    private static double mean(double[] v, int from, int to) {
        double s = 0;
        for (int i = from; i < to; i++) {
            s += v[i];
        }
        return s / (to - from);
    }

    private static double max(double[] v, int from, int to) {
        double m = 0;
        for (int i = from; i < to; i++) {
            m = Math.max(m, v[i]);
        }
        return m;
    }

    private static double median(double[] v, int from, int to) {
        double[] c = java.util.Arrays.copyOfRange(v, from, to);
        java.util.Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 1 && args[0].equals("--table")) {
            table(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 5);
            return;
        }
        System.setProperty("java.awt.headless", "true");
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: SustainedPlot <out.png> <run.csv> [<run.csv>...]");
        }
        List<Run> runs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            runs.add(read(Path.of(args[i])));
        }
        List<Panel> panels = List.of(
                new Panel("throughput, msg/s", false, List.of(new Series("enqueued_per_s", "enqueued", GREY, 1),
                        new Series("acked_per_s", "acked", BLUE, 1))),
                new Panel("claim latency, ms (log)", true, List.of(new Series("claim_p50_ms", "p50", BLUE, 1),
                        new Series("claim_p99_ms", "p99", RED, 1))),
                new Panel("message table, MB", false, List.of(new Series("heap_bytes", "heap", BLUE, 1.0 / 1048576),
                        new Series("index_bytes", "indexes", RED, 1.0 / 1048576),
                        new Series("total_bytes", "total (heap+indexes+TOAST)", GREEN, 1.0 / 1048576))),
                new Panel("tuples, thousands", false, List.of(new Series("live_tup", "live", BLUE, 1e-3),
                        new Series("dead_tup", "dead", RED, 1e-3), new Series("backlog", "backlog (stats)", GREY, 1e-3))));
        int colW = 620;
        int panelH = 210;
        int left = 70;
        int right = 20;
        int top = 50;
        int gap = 40;
        int w = runs.size() * colW;
        int h = top + panels.size() * (panelH + gap) + 20;
        BufferedImage img = Canvas.blank(w, h);
        Graphics2D g = Canvas.draw(img);
        double xMax = 0;
        for (Run r : runs) {
            double[] t = r.col("t_s");
            xMax = Math.max(xMax, t.length == 0 ? 1 : t[t.length - 1]);
        }
        for (int p = 0; p < panels.size(); p++) {
            Panel panel = panels.get(p);
            double yMax = 0;
            double yMin = Double.MAX_VALUE;
            for (Run r : runs) {
                for (Series s : panel.series) {
                    for (double v : r.col(s.column)) {
                        if (!Double.isNaN(v)) {
                            yMax = Math.max(yMax, v * s.scale);
                            if (v > 0) {
                                yMin = Math.min(yMin, v * s.scale);
                            }
                        }
                    }
                }
            }
            double lo = panel.log ? Math.pow(10, Math.floor(Math.log10(Math.max(yMin == Double.MAX_VALUE ? 0.1 : yMin, 1e-3)))) : 0;
            double hi = panel.log ? Math.pow(10, Math.ceil(Math.log10(Math.max(yMax, lo * 10)))) : niceCeiling(yMax);
            for (int c = 0; c < runs.size(); c++) {
                Run run = runs.get(c);
                int x0 = c * colW + left;
                int pw = colW - left - right;
                int y0 = top + p * (panelH + gap) + 20;
                int ph = panelH - 20;
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
                g.setColor(Color.BLACK);
                g.drawString(panel.title, x0, y0 - 6);
                if (p == 0) {
                    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
                    g.drawString(run.title, c * colW + 10, 22);
                }
                g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
                // grid
                int ticks = panel.log ? (int) Math.round(Math.log10(hi / lo)) : 4;
                for (int i = 0; i <= ticks; i++) {
                    int y = y0 + ph - i * ph / ticks;
                    double val = panel.log ? lo * Math.pow(10, i) : hi * i / ticks;
                    g.setColor(new Color(0xdddddd));
                    g.drawLine(x0, y, x0 + pw, y);
                    g.setColor(Color.BLACK);
                    String label = val >= 1 || val == 0 ? String.format(Locale.ROOT, "%,.0f", val) : String.format(Locale.ROOT, "%.3g", val);
                    g.drawString(label, x0 - 6 - g.getFontMetrics().stringWidth(label), y + 4);
                }
                for (int m = 0; m <= xMax / 60; m += xMax > 900 ? 5 : 1) {
                    int x = x0 + (int) Math.round(m * 60 / xMax * pw);
                    g.setColor(new Color(0xeeeeee));
                    g.drawLine(x, y0, x, y0 + ph);
                    g.setColor(Color.BLACK);
                    String label = m + " min";
                    if (p == panels.size() - 1 || m == 0) {
                        g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, y0 + ph + 14);
                    }
                }
                g.setColor(Color.BLACK);
                g.drawRect(x0, y0, pw, ph);
                double[] t = run.col("t_s");
                int legendX = x0 + 8;
                for (Series s : panel.series) {
                    double[] v = run.col(s.column);
                    g.setColor(s.colour);
                    g.setStroke(new BasicStroke(1.8f));
                    int px = -1;
                    int py = -1;
                    for (int i = 0; i < v.length; i++) {
                        if (Double.isNaN(v[i])) {
                            continue;
                        }
                        double val = v[i] * s.scale;
                        double frac = panel.log ? (Math.log10(Math.max(val, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : val / hi;
                        int x = x0 + (int) Math.round(t[i] / xMax * pw);
                        int y = y0 + ph - (int) Math.round(frac * ph);
                        if (px >= 0) {
                            g.drawLine(px, py, x, y);
                        }
                        px = x;
                        py = y;
                    }
                    g.setStroke(new BasicStroke(1f));
                    g.fillRect(legendX, y0 + 8, 14, 4);
                    g.setColor(Color.BLACK);
                    g.drawString(s.label, legendX + 18, y0 + 14);
                    legendX += 26 + g.getFontMetrics().stringWidth(s.label);
                }
            }
        }
        g.dispose();
        Path out = Path.of(args[0]);
        if (out.toAbsolutePath().getParent() != null) {
            Files.createDirectories(out.toAbsolutePath().getParent());
        }
        ImageIO.write(img, "png", out.toFile());
        System.out.println("wrote " + out);
    }

    private static double niceCeiling(double v) {
        double exp = Math.pow(10, Math.floor(Math.log10(Math.max(v, 1))));
        for (double m : new double[] {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (m * exp >= v * 1.05) {
                return m * exp;
            }
        }
        return 10 * exp;
    }
}
