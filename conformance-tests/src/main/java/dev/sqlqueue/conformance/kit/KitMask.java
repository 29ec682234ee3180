package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.spi.Redaction;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the kit masks passwords (the {@code --password} and those in the URL: {@code password=} values and the
 * user-info {@code //user:password@host}) on every line it prints and in every report file: the URL where it
 * appears whole is replaced by {@link Redaction#url}, then each password by {@code ***} only where it stands
 * as a token of its own. A password that starts (ends) with a letter, digit or underscore is not masked where
 * the character before (after) it is one too, so a password such as {@code e} or {@code kt} does not garble
 * {@code version}, {@code encoding} or a {@code kt<random>_} prefix. In JUnit XML only text, CDATA, comments
 * and attribute values are masked (never element or attribute names, nor entity references), and in
 * {@code prefixes.log} only the comment lines, never a prefix. Where a message quotes the place on this
 * machine a migration script was read from (Flyway's "Location : ... (path on disk)"), that place is left out.
 */
final class KitMask {
    private static final Pattern XML_PART = Pattern.compile(
            "<!\\[CDATA\\[(.*?)]]>|<!--(.*?)-->|<\\?.*?\\?>|<[^>]*>", Pattern.DOTALL);
    private static final Pattern ATTRIBUTE_VALUE = Pattern.compile("(\"[^\"]*\"|'[^']*')");

    /**
     * Flyway's "Location   : db/migration/x/V1__a.sql (/the/jar/on/disk!/db/...)": the part in brackets is where
     * the script lies on this machine (the class path), which no report holds.
     */
    private static final Pattern FLYWAY_LOCATION = Pattern.compile("(Location\\s*:\\s*\\S+)[ \\t]*\\([^()\\r\\n]*\\)");

    private final String url;
    private final String redactedUrl;
    private final List<Pattern> plain = new ArrayList<>();
    private final List<Pattern> escaped = new ArrayList<>();

    KitMask(String url, String password) {
        this.url = url == null || url.isEmpty() ? null : url;
        this.redactedUrl = this.url == null ? null : Redaction.url(this.url);
        for (String s : Redaction.secrets(url, password)) {
            plain.add(token(s, false));
            // how an XML writer may have escaped it: always & and <, perhaps > and the quotes
            for (String e : new java.util.LinkedHashSet<>(List.of(s.replace("&", "&amp;").replace("<", "&lt;"),
                    s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), escape(s)))) {
                escaped.add(token(e, true));
            }
        }
    }

    /** {@code text} with the URL and the passwords masked (a console line, a Markdown report). */
    String text(String text) {
        if (text == null) {
            return null;
        }
        String out = url != null ? text.replace(url, redactedUrl) : text;
        out = FLYWAY_LOCATION.matcher(out).replaceAll("$1");
        return apply(plain, out);
    }

    /** An XML document masked in its text, CDATA, comments and attribute values only. */
    String xml(String doc) {
        StringBuilder b = new StringBuilder(doc.length());
        Matcher m = XML_PART.matcher(doc);
        int from = 0;
        while (m.find()) {
            b.append(escapedText(doc.substring(from, m.start())));
            String part = m.group();
            if (m.group(1) != null) {
                b.append("<![CDATA[").append(text(m.group(1))).append("]]>");
            } else if (m.group(2) != null) {
                b.append("<!--").append(text(m.group(2))).append("-->");
            } else if (part.startsWith("<?") || part.startsWith("<!")) {
                b.append(part);
            } else {
                Matcher v = ATTRIBUTE_VALUE.matcher(part);
                StringBuilder tag = new StringBuilder();
                while (v.find()) {
                    String value = v.group();
                    v.appendReplacement(tag, Matcher.quoteReplacement(
                            value.charAt(0) + escapedText(value.substring(1, value.length() - 1)) + value.charAt(0)));
                }
                v.appendTail(tag);
                b.append(tag);
            }
            from = m.end();
        }
        b.append(escapedText(doc.substring(from)));
        return b.toString();
    }

    /** {@code prefixes.log}: its comment lines ({@code #...}) masked, its prefix lines untouched. */
    String ledger(String text) {
        String[] lines = text.split("(?<=\n)", -1);
        StringBuilder b = new StringBuilder(text.length());
        for (String line : lines) {
            b.append(line.startsWith("#") ? text(line) : line);
        }
        return b.toString();
    }

    /** A stream whose every line goes through {@link #text} on its way to {@code target}. */
    PrintStream stream(PrintStream target) {
        return new PrintStream(new LineMasker(target), true, StandardCharsets.UTF_8);
    }

    private String escapedText(String s) {
        if (s.isEmpty()) {
            return s;
        }
        String out = url != null ? s.replace(escape(url), escape(redactedUrl)) : s;
        out = FLYWAY_LOCATION.matcher(out).replaceAll("$1");
        return apply(escaped, out);
    }

    private static String apply(List<Pattern> patterns, String s) {
        String out = s;
        for (Pattern p : patterns) {
            out = p.matcher(out).replaceAll("***");
        }
        return out;
    }

    private static boolean word(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /**
     * {@code secret} as a token: no word character right before a secret that starts with one (nor an
     * {@code &} or {@code #} in escaped XML text, where it would be an entity reference), none right after
     * one that ends with one.
     */
    private static Pattern token(String secret, boolean xml) {
        String before = word(secret.charAt(0)) ? (xml ? "(?<![\\p{L}\\p{N}_&#])" : "(?<![\\p{L}\\p{N}_])") : "";
        String after = word(secret.charAt(secret.length() - 1)) ? "(?![\\p{L}\\p{N}_])" : "";
        return Pattern.compile(before + Pattern.quote(secret) + after);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&apos;");
    }

    /** Buffers a line, masks it, writes it on; {@code flush} masks and passes on what is buffered. */
    private final class LineMasker extends OutputStream {
        private final PrintStream target;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineMasker(PrintStream target) {
            this.target = target;
        }

        @Override
        public synchronized void write(int b) {
            line.write(b);
            if (b == '\n') {
                emit();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        @Override
        public synchronized void flush() {
            emit();
            target.flush();
        }

        private void emit() {
            if (line.size() > 0) {
                target.print(text(line.toString(StandardCharsets.UTF_8)));
                line.reset();
            }
        }
    }
}
