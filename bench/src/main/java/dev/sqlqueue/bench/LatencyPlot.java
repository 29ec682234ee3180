package dev.sqlqueue.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Stroke;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import javax.imageio.ImageIO;

/**
 * Renders the latency figure from the CSV of {@code BenchMain --scenario=latency} ({@link LatencyBench}): for each
 * database, enqueue-to-handler p50 (solid), p99 (dashed) and p99.9 (dotted) against the offered load in % of its
 * maximum, on a logarithmic axis in milliseconds, with the goals of issue 32 (5 ms for PostgreSQL at 10 %, one poll
 * interval plus 5 ms for the polling backends) as grey lines and each database's idle statements/s in the legend.
 * Headless java.awt, as {@link DrainPlot}.
 *
 * <p>Usage: {@code LatencyPlot <latency.csv> <out.png> [subtitle]}.
 */
public final class LatencyPlot {
    private LatencyPlot() {
    }

    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};
    private static final double LOW_MS = 0.5;

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: LatencyPlot <latency.csv> <out.png> [subtitle]");
        }
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        List<String> header = List.of(lines.get(0).split(","));
        List<String[]> rows = lines.stream().skip(1).filter(l -> !l.isBlank()).map(l -> l.split(",", -1)).toList();
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no rows in " + args[0]);
        }
        int cDb = header.indexOf("db");
        int cLoad = header.indexOf("load_pct");
        int[] cP = {header.indexOf("p50_ms"), header.indexOf("p99_ms"), header.indexOf("p999_ms")};
        int cIdle = header.indexOf("idle_client_stmt_s");
        int cMax = header.indexOf("max_msg_s");
        int cPoll = header.indexOf("idle_poll_ms");
        int cLoadAvg = header.indexOf("load_avg");
        List<String> dbs = new ArrayList<>();
        TreeSet<Integer> loads = new TreeSet<>();
        double top = 10;
        double minLoadAvg = Double.MAX_VALUE;
        double maxLoadAvg = 0;
        for (String[] f : rows) {
            if (!dbs.contains(f[cDb])) {
                dbs.add(f[cDb]);
            }
            loads.add(Integer.parseInt(f[cLoad]));
            for (int c : cP) {
                if (!f[c].equals("NaN")) {
                    top = Math.max(top, Double.parseDouble(f[c]));
                }
            }
            if (!f[cLoadAvg].isEmpty()) {
                minLoadAvg = Math.min(minLoadAvg, Double.parseDouble(f[cLoadAvg]));
                maxLoadAvg = Math.max(maxLoadAvg, Double.parseDouble(f[cLoadAvg]));
            }
        }
        double poll = Double.parseDouble(rows.get(0)[cPoll]);
        top = Math.max(top, poll + 5);
        double logLow = Math.log10(LOW_MS);
        double logTop = Math.ceil(Math.log10(top * 1.5));
        int w = 900;
        int h = 600;
        int left = 80;
        int right = 250;
        int topMargin = 80;
        int bottom = 60;
        int pw = w - left - right;
        int ph = h - topMargin - bottom;
        BufferedImage img = Canvas.blank(w, h);
        Graphics2D g = Canvas.draw(img);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        String date = rows.get(0)[0].substring(0, 16).replace('T', ' ');
        g.drawString("Enqueue-to-handler latency at a fixed offered load (" + date + " UTC)", 20, 26);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString(args.length > 2 ? args[2] : String.format(Locale.ROOT,
                "open loop, from each message's due time; WorkerPool defaults; load average %.1f-%.1f", minLoadAvg, maxLoadAvg), 20, 46);
        g.drawString("solid p50, dashed p99, dotted p99.9; grey: the goals (5 ms; poll interval + 5 ms)", 20, 64);
        // y grid: decades
        for (int e = (int) Math.floor(logLow); e <= logTop; e++) {
            for (int k = 1; k < 10; k++) {
                double v = k * Math.pow(10, e);
                if (v < LOW_MS || Math.log10(v) > logTop) {
                    continue;
                }
                int y = y(v, logLow, logTop, topMargin, ph);
                g.setColor(k == 1 ? new Color(0xcccccc) : new Color(0xf0f0f0));
                g.drawLine(left, y, left + pw, y);
                if (k == 1 || (k == 5 && e >= 0)) {
                    g.setColor(Color.BLACK);
                    String label = v >= 1 ? String.format(Locale.ROOT, "%.0f ms", v) : String.format(Locale.ROOT, "%.1f ms", v);
                    g.drawString(label, left - 8 - g.getFontMetrics().stringWidth(label), y + 4);
                }
            }
        }
        // x: load %
        int xLow = 0;
        int xTop = 100;
        for (int l = xLow; l <= xTop; l += 10) {
            int x = left + (l - xLow) * pw / (xTop - xLow);
            g.setColor(new Color(0xeeeeee));
            g.drawLine(x, topMargin, x, topMargin + ph);
            g.setColor(Color.BLACK);
            String label = l + " %";
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, topMargin + ph + 18);
        }
        g.drawString("offered load, % of each backend's measured maximum", left + pw / 2 - 140, topMargin + ph + 40);
        g.setColor(Color.BLACK);
        g.drawRect(left, topMargin, pw, ph);
        // goals
        g.setColor(new Color(0x888888));
        g.setStroke(new BasicStroke(2f));
        int y5 = y(5, logLow, logTop, topMargin, ph);
        g.drawLine(left, y5, left + pw, y5);
        g.drawString("5 ms (PostgreSQL at 10 %)", left + 6, y5 - 4);
        int yPoll = y(poll + 5, logLow, logTop, topMargin, ph);
        g.drawLine(left, yPoll, left + pw, yPoll);
        g.drawString(String.format(Locale.ROOT, "%.0f ms (poll interval + 5 ms: MariaDB, H2)", poll + 5), left + 6, yPoll - 4);
        Stroke[] strokes = {new BasicStroke(2.5f),
            new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {9f, 5f}, 0f),
            new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f, new float[] {1f, 5f}, 0f)};
        for (int d = 0; d < dbs.size(); d++) {
            Color colour = COLOURS[d % COLOURS.length];
            final int dd = d;
            List<String[]> mine = rows.stream().filter(f -> f[cDb].equals(dbs.get(dd))).sorted((a, b) ->
                    Integer.compare(Integer.parseInt(a[cLoad]), Integer.parseInt(b[cLoad]))).toList();
            for (int p = 0; p < cP.length; p++) {
                g.setColor(colour);
                g.setStroke(strokes[p]);
                int px = -1;
                int py = -1;
                for (String[] f : mine) {
                    if (f[cP[p]].equals("NaN")) {
                        continue;
                    }
                    int x = left + (Integer.parseInt(f[cLoad]) - xLow) * pw / (xTop - xLow);
                    int y = y(Double.parseDouble(f[cP[p]]), logLow, logTop, topMargin, ph);
                    if (px >= 0) {
                        g.drawLine(px, py, x, y);
                    }
                    g.fillOval(x - 3, y - 3, 7, 7);
                    px = x;
                    py = y;
                }
            }
            g.setStroke(new BasicStroke(1f));
            int ly = topMargin + 10 + d * 64;
            int lx = left + pw + 16;
            g.setColor(colour);
            g.fillRect(lx, ly, 14, 14);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
            g.drawString(dbs.get(d), lx + 20, ly + 12);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            String[] first = mine.get(0);
            g.drawString(String.format(Locale.ROOT, "maximum %s msg/s", first[cMax]), lx + 20, ly + 28);
            g.drawString(String.format(Locale.ROOT, "idle: %.1f statements/s", Double.parseDouble(first[cIdle])), lx + 20, ly + 44);
        }
        g.dispose();
        Path out = Path.of(args[1]);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        ImageIO.write(img, "png", out.toFile());
        System.out.println("wrote " + out);
    }

    private static int y(double ms, double logLow, double logTop, int topMargin, int ph) {
        double v = Math.log10(Math.max(ms, LOW_MS));
        return topMargin + ph - (int) Math.round((v - logLow) / (logTop - logLow) * ph);
    }
}
