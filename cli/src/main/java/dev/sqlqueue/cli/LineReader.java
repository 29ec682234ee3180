package dev.sqlqueue.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a byte stream into lines on {@code \n} (a trailing {@code \r} is removed), keeping each line's
 * bytes exactly (no character decoding, so any payload survives). Empty lines are skipped.
 */
final class LineReader {
    private LineReader() {
    }

    /** A line and its 1-based number in the input. */
    record Line(long number, byte[] bytes) {
    }

    /** Every non-empty line of {@code in}, read to its end. */
    static List<Line> readAll(InputStream in) throws IOException {
        List<Line> lines = new ArrayList<>();
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        long number = 1;
        int n;
        while ((n = in.read(buf)) > 0) {
            int from = 0;
            for (int i = 0; i < n; i++) {
                if (buf[i] == '\n') {
                    cur.write(buf, from, i - from);
                    add(lines, number++, cur);
                    from = i + 1;
                }
            }
            cur.write(buf, from, n - from);
        }
        add(lines, number, cur);
        return lines;
    }

    private static void add(List<Line> lines, long number, ByteArrayOutputStream cur) {
        byte[] b = cur.toByteArray();
        cur.reset();
        int len = b.length;
        if (len > 0 && b[len - 1] == '\r') {
            len--;
        }
        if (len > 0) {
            lines.add(new Line(number, len == b.length ? b : java.util.Arrays.copyOf(b, len)));
        }
    }
}
