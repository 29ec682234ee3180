package dev.sqlqueue.teradata;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Which text a {@code CHARACTER SET UNICODE} column accepts from a session without Unicode Pass Through,
 * and how the library makes its own texts storable.
 *
 * <p>Without Unicode Pass Through (off by default) Teradata accepts in a UNICODE column only the
 * "6.0 BMP characters supported by Teradata"; any other code point fails the request with error 6706
 * ("untranslatable character"). Sources: Teradata Database Release Summary 16.00, "Unicode Pass Through";
 * International Character Set Support 17.20, "Unicode Pass Through Overview" (pass-through characters
 * include private use and unassigned code points; noncharacters are not supported characters; a session
 * without UPT screens out U+FFFD); SQL Data Definition Language, "SET SESSION CHARACTER SET UNICODE PASS
 * THROUGH". The set of code points is the Unicode Character Database property Age ({@code DerivedAge.txt},
 * 6.0 or earlier) less private use (U+E000..U+F8FF), the noncharacters and U+FFFD, kept in the resource
 * {@code unicode-6.0-bmp.ranges} (review N4); surrogate code units are never part of it, so a
 * supplementary character (a surrogate pair in Java) or an unpaired surrogate is refused.
 *
 * <p>Stateless and thread-safe.
 */
public final class TeradataText {
    /** The character that replaces each code point a UNICODE column would refuse: {@code ?} (U+003F). */
    public static final char REPLACEMENT = '?';

    private static final int[] RANGES = load();

    private TeradataText() {
    }

    /**
     * True when {@code codePoint} (0..0x10FFFF) can be stored in a UNICODE column without Unicode Pass Through.
     *
     * @param codePoint a Unicode code point, 0..0x10FFFF
     * @return whether a UNICODE column accepts it
     */
    public static boolean storable(int codePoint) {
        int lo = 0;
        int hi = RANGES.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (codePoint < RANGES[2 * mid]) {
                hi = mid - 1;
            } else if (codePoint > RANGES[2 * mid + 1]) {
                lo = mid + 1;
            } else {
                return true;
            }
        }
        return false;
    }

    /**
     * The index (in UTF-16 units) of the first code point of {@code s} a UNICODE column would refuse, or
     * -1 when every one is storable (also for null).
     *
     * @param s the text, may be null
     * @return the UTF-16 index of the first unstorable code point, or -1
     */
    public static int firstUnstorable(String s) {
        if (s == null) {
            return -1;
        }
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            if (!storable(cp)) {
                return i;
            }
            i += Character.charCount(cp);
        }
        return -1;
    }

    /**
     * {@code U+1D11E} style name of the code point at {@code index} of {@code s}.
     *
     * @param s the text
     * @param index a UTF-16 index into {@code s}, 0..length-1
     * @return {@code U+} and the code point in at least four upper-case hex digits
     * @throws IndexOutOfBoundsException if {@code index} is outside {@code s}
     */
    public static String describe(String s, int index) {
        return String.format("U+%04X", s.codePointAt(index));
    }

    /**
     * {@code s} with every code point a UNICODE column would refuse replaced by one {@link #REPLACEMENT}
     * (a supplementary character, two UTF-16 units, becomes one character), then cut to {@code maxChars}
     * UTF-16 units. Null stays null.
     *
     * @param s the text, may be null
     * @param maxChars the longest result, in UTF-16 units (0 or more)
     * @return the storable text, at most {@code maxChars} long, or null
     */
    public static String storableText(String s, int maxChars) {
        if (s == null) {
            return null;
        }
        StringBuilder b = new StringBuilder(Math.min(s.length(), maxChars));
        for (int i = 0; i < s.length() && b.length() < maxChars; ) {
            int cp = s.codePointAt(i);
            b.append(storable(cp) ? (char) cp : REPLACEMENT);
            i += Character.charCount(cp);
        }
        return b.toString();
    }

    private static int[] load() {
        try (InputStream in = TeradataText.class.getResourceAsStream("unicode-6.0-bmp.ranges")) {
            if (in == null) {
                throw new IllegalStateException("resource unicode-6.0-bmp.ranges is missing");
            }
            List<int[]> out = new ArrayList<>();
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] p = line.trim().split("\\.\\.");
                out.add(new int[] {Integer.parseInt(p[0], 16), Integer.parseInt(p[1], 16)});
            }
            int[] a = new int[out.size() * 2];
            for (int i = 0; i < out.size(); i++) {
                a[2 * i] = out.get(i)[0];
                a[2 * i + 1] = out.get(i)[1];
            }
            return a;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
