package dev.sqlqueue.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Renders the drain figure from a results CSV of {@code BenchMain --scenario=drain}: for each database and point
 * (enqueue, default options, lease 100, transactional 100) a bar of the library's median over the raw loop's
 * median, a tick at the median of pair ratios, and the line at 1. Headless java.awt.
 *
 * <p>Usage: {@code DrainPlot <results.csv> <out.png>}.
 */
public final class DrainPlot {
    private DrainPlot() {
    }

    private static final List<String> POINTS = List.of("enqueue-raw", "drain-default", "drain-lease100", "drain-tx100");
    private static final List<String> LABELS = List.of("enqueueAll 100 / raw batches of 100", "default options / raw lease",
            "lease, batch 100 / raw lease", "transactional 100 / raw transactional");
    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: DrainPlot <results.csv> <out.png>");
        }
        List<String[]> rows = new ArrayList<>();
        List<String> dbs = new ArrayList<>();
        String date = "";
        for (String[] f : Results.read(Path.of(args[0]))) {
            if (POINTS.contains(f[2])) {
                rows.add(f);
                if (!dbs.contains(f[1])) {
                    dbs.add(f[1]);
                }
                date = f[0].substring(0, 16).replace('T', ' ');
            }
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no drain rows in " + args[0]);
        }
        double top = 1.6;
        for (String[] f : rows) {
            top = Math.max(top, Math.ceil(Double.parseDouble(f[9]) * 5) / 5);
        }
        int barH = 16;
        int groupH = dbs.size() * (barH + 4) + 18;
        int left = 270;
        int right = 40;
        int topMargin = 70;
        int bottom = 50;
        int w = 900;
        int h = topMargin + POINTS.size() * groupH + bottom;
        int pw = w - left - right;
        BufferedImage img = Canvas.blank(w, h);
        Graphics2D g = Canvas.draw(img);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("sqlqueue against the raw JDBC loops, 8 workers, 20,000 messages (" + date + " UTC)", 20, 28);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("bar: library median / raw median; black tick: median of pair ratios; line at 1 = as fast as the raw loop", 20, 48);
        int ph = POINTS.size() * groupH;
        for (int i = 0; i <= (int) Math.round(top * 5); i++) {
            double v = i / 5.0;
            int x = left + (int) Math.round(v / top * pw);
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, topMargin, x, topMargin + ph);
            g.setColor(Color.BLACK);
            String label = String.format(Locale.ROOT, "%.1f", v);
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, topMargin + ph + 16);
        }
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(2f));
        int one = left + (int) Math.round(1.0 / top * pw);
        g.drawLine(one, topMargin - 5, one, topMargin + ph);
        g.setStroke(new BasicStroke(1f));
        for (int p = 0; p < POINTS.size(); p++) {
            int y0 = topMargin + p * groupH + 6;
            g.setColor(Color.BLACK);
            g.drawString(LABELS.get(p), 20, y0 + barH - 2);
            for (int d = 0; d < dbs.size(); d++) {
                String[] f = find(rows, dbs.get(d), POINTS.get(p));
                int y = y0 + d * (barH + 4);
                if (f == null) {
                    continue;
                }
                double ratio = Double.parseDouble(f[9]);
                g.setColor(COLOURS[d % COLOURS.length]);
                g.fillRect(left, y, (int) Math.round(ratio / top * pw), barH);
                if (f.length > 14 && !f[14].isEmpty()) {
                    int x = left + (int) Math.round(Double.parseDouble(f[14]) / top * pw);
                    g.setColor(Color.BLACK);
                    g.fillRect(x - 1, y - 2, 3, barH + 4);
                }
                g.setColor(Color.BLACK);
                g.drawString(String.format(Locale.ROOT, "%s %.2f", dbs.get(d), ratio),
                        left + (int) Math.round(ratio / top * pw) + 6, y + barH - 3);
            }
        }
        g.dispose();
        Path out = Path.of(args[1]);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        ImageIO.write(img, "png", out.toFile());
        System.out.println("wrote " + out);
    }

    private static String[] find(List<String[]> rows, String db, String point) {
        for (String[] f : rows) {
            if (f[1].equals(db) && f[2].equals(point)) {
                return f;
            }
        }
        return null;
    }
}
