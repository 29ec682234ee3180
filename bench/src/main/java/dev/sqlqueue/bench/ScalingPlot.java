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
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;

/**
 * Renders the scaling figure from a results CSV: end-to-end msg/s against workers (batch 100), one colour per
 * database, library solid, raw-JDBC baseline dashed. Headless java.awt, no extra downloads.
 *
 * <p>Usage: {@code ScalingPlot <results.csv> <out.png> [batch]}.
 */
public final class ScalingPlot {
    private ScalingPlot() {
    }

    private static final Color[] COLOURS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd)};

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: ScalingPlot <results.csv> <out.png> [batch]");
        }
        String batch = args.length > 2 ? args[2] : "100";
        // db -> workers -> {library, baseline}
        Map<String, TreeMap<Integer, double[]>> series = new TreeMap<>();
        String date = "";
        for (String[] f : Results.read(Path.of(args[0]))) {
            if (f[2].equals("scaling") && f[4].equals(batch)) {
                series.computeIfAbsent(f[1], k -> new TreeMap<>())
                        .put(Integer.parseInt(f[3]), new double[] {Double.parseDouble(f[7]), Double.parseDouble(f[8])});
                date = f[0].substring(0, 10);
            }
        }
        if (series.isEmpty()) {
            throw new IllegalArgumentException("no scaling rows with batch " + batch + " in " + args[0]);
        }
        List<Integer> workers = new ArrayList<>();
        double max = 0;
        for (TreeMap<Integer, double[]> s : series.values()) {
            for (Map.Entry<Integer, double[]> e : s.entrySet()) {
                if (!workers.contains(e.getKey())) {
                    workers.add(e.getKey());
                }
                max = Math.max(max, Math.max(e.getValue()[0], e.getValue()[1]));
            }
        }
        workers.sort(Integer::compare);
        double top = niceCeiling(max);

        int w = 900;
        int h = 560;
        int left = 90;
        int right = 30;
        int topMargin = 60;
        int bottom = 70;
        BufferedImage img = Canvas.blank(w, h);
        Graphics2D g = Canvas.draw(img);
        int pw = w - left - right;
        int ph = h - topMargin - bottom;
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString("sqlqueue end-to-end throughput, lease mode, claim batch " + batch + " (" + date + ")", left, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("solid: library (WorkerPool)   dashed: raw-JDBC baseline, same SQL   (medians of alternating runs)", left, 48);
        // grid and y labels
        for (int i = 0; i <= 5; i++) {
            int y = topMargin + ph - i * ph / 5;
            g.setColor(new Color(0xdddddd));
            g.drawLine(left, y, left + pw, y);
            g.setColor(Color.BLACK);
            String label = String.format(Locale.ROOT, "%,.0f", top * i / 5);
            g.drawString(label, left - 10 - g.getFontMetrics().stringWidth(label), y + 4);
        }
        // x axis: workers evenly spaced (they double)
        for (int i = 0; i < workers.size(); i++) {
            int x = xOf(i, workers.size(), left, pw);
            g.setColor(new Color(0xeeeeee));
            g.drawLine(x, topMargin, x, topMargin + ph);
            g.setColor(Color.BLACK);
            String label = String.valueOf(workers.get(i));
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, topMargin + ph + 18);
        }
        g.drawRect(left, topMargin, pw, ph);
        g.drawString("worker threads", left + pw / 2 - 40, h - 25);
        Graphics2D gy = (Graphics2D) g.create();
        gy.rotate(-Math.PI / 2);
        gy.drawString("messages per second", -(topMargin + ph / 2 + 55), 25);
        gy.dispose();

        int c = 0;
        int legendY = topMargin + 20;
        for (Map.Entry<String, TreeMap<Integer, double[]>> s : series.entrySet()) {
            Color colour = COLOURS[c++ % COLOURS.length];
            for (int side = 0; side < 2; side++) {
                g.setColor(colour);
                g.setStroke(side == 0 ? new BasicStroke(2.5f)
                        : new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {7f, 5f}, 0f));
                int px = -1;
                int py = -1;
                for (Map.Entry<Integer, double[]> e : s.getValue().entrySet()) {
                    int x = xOf(workers.indexOf(e.getKey()), workers.size(), left, pw);
                    int y = topMargin + ph - (int) Math.round(e.getValue()[side] / top * ph);
                    if (px >= 0) {
                        g.drawLine(px, py, x, y);
                    }
                    g.fillOval(x - 3, y - 3, 7, 7);
                    px = x;
                    py = y;
                }
            }
            g.setStroke(new BasicStroke(2.5f));
            g.drawLine(left + 15, legendY, left + 45, legendY);
            g.setColor(Color.BLACK);
            g.drawString(s.getKey(), left + 52, legendY + 4);
            legendY += 18;
        }
        g.dispose();
        Path out = Path.of(args[1]);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        ImageIO.write(img, "png", out.toFile());
        System.out.println("wrote " + out);
    }

    private static int xOf(int i, int n, int left, int pw) {
        return n == 1 ? left + pw / 2 : left + 30 + i * (pw - 60) / (n - 1);
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
