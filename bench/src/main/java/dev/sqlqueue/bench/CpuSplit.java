package dev.sqlqueue.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * CPU time of this JVM and of everything else on the machine (the database server on a quiet machine) over
 * one trial, from Linux's {@code /proc/self/stat} and {@code /proc/stat} (proc(5)): which side of a drain
 * spends the machine's cores. Jiffies of {@code USER_HZ}, printed as milliseconds per 1,000 messages.
 */
final class CpuSplit {
    private static final double MS_PER_TICK = 10.0; // USER_HZ is 100 on Linux (sysconf(_SC_CLK_TCK))

    private final long self0;
    private final long busy0;

    private CpuSplit(long self, long busy) {
        this.self0 = self;
        this.busy0 = busy;
    }

    static CpuSplit start() {
        return new CpuSplit(selfTicks(), busyTicks());
    }

    /** "jvm X ms, rest Y ms per 1000 messages". */
    String per1000(int messages) {
        long self = selfTicks() - self0;
        long rest = busyTicks() - busy0 - self;
        return String.format(Locale.ROOT, "cpu per 1000 msgs: jvm %.1f ms, rest of machine %.1f ms",
                self * MS_PER_TICK * 1000 / messages, rest * MS_PER_TICK * 1000 / messages);
    }

    private static long selfTicks() {
        try {
            String s = Files.readString(Path.of("/proc/self/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long busyTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
