package dev.sqlqueue.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain text table with left-aligned columns separated by two spaces. Not thread-safe. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    TextTable(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    TextTable row(Object... cells) {
        String[] r = new String[columns];
        for (int i = 0; i < columns; i++) {
            r[i] = i < cells.length && cells[i] != null ? String.valueOf(cells[i]) : "";
        }
        rows.add(r);
        return this;
    }

    int size() {
        return rows.size() - 1;
    }

    void print(PrintWriter out) {
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(r[i]);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - r[i].length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }

    /**
     * A history row's payload preview as printable text: its bytes as UTF-8 (a character the 64-byte cut split shows
     * as U+FFFD), shown by {@link #preview}, cut to {@code HistoryEntry.PREVIEW_BYTES} characters; {@code -} when the
     * row has none (written before the backend kept previews, or a backend that keeps none).
     */
    static String payload(byte[] preview) {
        return preview == null ? "-"
                : preview(new String(preview, java.nio.charset.StandardCharsets.UTF_8), dev.sqlqueue.HistoryEntry.PREVIEW_BYTES);
    }

    /**
     * {@code text} with control characters shown as {@code \n}, {@code \t} or {@code ?}, cut to {@code max}
     * characters. Unicode format characters (category Cf: bidirectional overrides, embeddings, isolates and
     * marks such as U+202E, U+2066, U+200F, zero-width characters) are shown as {@code ?} too: on a terminal
     * they would reorder or hide the text around them, so the preview would misrepresent it.
     */
    static String preview(String text, int max) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        for (; i < text.length() && b.length() < max; i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                b.append("\\n");
            } else if (c == '\t') {
                b.append("\\t");
            } else if (Character.isISOControl(c) || Character.getType(Character.codePointAt(text, i)) == Character.FORMAT) {
                b.append('?');
            } else {
                b.append(c);
            }
        }
        boolean cut = i < text.length() || b.length() > max;
        return cut ? b.substring(0, Math.max(0, Math.min(b.length(), max - 3))) + "..." : b.toString();
    }
}
