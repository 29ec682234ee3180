package dev.sqlqueue.cli;

import java.io.PrintWriter;
import java.util.function.LongSupplier;

/**
 * Progress of a long run on the error writer: a bar redrawn in place when a console is attached,
 * otherwise one line every {@code lineEveryMillis}. Call {@link #tick()} often; it draws when due.
 * Not thread-safe: one thread ticks.
 */
final class Progress {
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final String label;
    private final long total;
    private final LongSupplier done;
    private final boolean console;
    private final long lineEveryMillis;
    private final long startNanos = System.nanoTime();
    private long lastDraw;
    private boolean drawn;

    Progress(PrintWriter err, String label, long total, LongSupplier done, boolean console, long lineEveryMillis) {
        this.err = err;
        this.label = label;
        this.total = total;
        this.done = done;
        this.console = console;
        this.lineEveryMillis = lineEveryMillis;
    }

    void tick() {
        long now = System.currentTimeMillis();
        if (now - lastDraw < (console ? 200 : lineEveryMillis)) {
            return;
        }
        lastDraw = now;
        draw();
    }

    private void draw() {
        long n = done.getAsLong();
        double secs = Math.max(1e-3, (System.nanoTime() - startNanos) / 1e9);
        int pct = total == 0 ? 100 : (int) (n * 100 / total);
        String rate = String.format("%,.0f msg/s", n / secs);
        if (console) {
            int fill = (int) (WIDTH * Math.min(1.0, total == 0 ? 1.0 : (double) n / total));
            err.printf("\r%s [%s%s] %,d/%,d %3d%% %s ", label, "#".repeat(fill), ".".repeat(WIDTH - fill), n, total, pct, rate);
        } else {
            err.printf("%s: %,d/%,d (%d%%), %s%n", label, n, total, pct, rate);
        }
        err.flush();
        drawn = true;
    }

    /** Draw the final state and end the bar's line. */
    void finish() {
        draw();
        if (console && drawn) {
            err.println();
            err.flush();
        }
    }
}
