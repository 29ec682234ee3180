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
        return readFrom(in, 1).lines();
    }

    /**
     * The lines of one of several inputs read in turn: numbered from {@code first}, with the number the next input's
     * first line takes (each input ends a line, with or without a final line break).
     */
    record Read(List<Line> lines, long next) {
    }

    static Read readFrom(InputStream in, long first) throws IOException {
        List<Line> lines = new ArrayList<>();
        ByteArrayOutputStream cur = new ByteArrayOutputStream();
        byte[] buf = new byte[65536];
        long number = first;
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
        boolean partial = cur.size() > 0;
        add(lines, number, cur);
        return new Read(lines, partial ? number + 1 : number);
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
