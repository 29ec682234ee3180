package dev.sqlqueue.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text form of message headers, shared by every backend so that a row written by one is read by
 * another: one {@code key=value} entry per line; in keys and values a backslash is written {@code \\},
 * a line feed {@code \n}, a carriage return {@code \r}, and in keys {@code =} is written {@code \=}.
 * The empty map is the empty string.
 */
public final class HeaderCodec {
    private HeaderCodec() {
    }

    /** Thrown by {@link #decode} for text that is not of this form. */
    public static final class MalformedHeadersException extends IllegalArgumentException {
        /**
         * A malformed headers text.
         *
         * @param message what is wrong, and where
         */
        public MalformedHeadersException(String message) {
            super(message);
        }
    }

    /**
     * Encodes headers in the form above.
     *
     * @param headers the headers, in the order to write them; null or empty gives the empty string
     * @return the text
     */
    public static String encode(Map<String, String> headers) {
        if (headers == null || headers.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : headers.entrySet()) {
            if (b.length() > 0) {
                b.append('\n');
            }
            escape(b, e.getKey(), true);
            b.append('=');
            escape(b, e.getValue(), false);
        }
        return b.toString();
    }

    private static void escape(StringBuilder b, String s, boolean key) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '=' -> b.append(key ? "\\=" : "=");
                default -> b.append(c);
            }
        }
    }

    /**
     * Decodes text of the form above.
     *
     * @param text the text; null or empty gives the empty map
     * @return the headers, in the text's order
     * @throws MalformedHeadersException if a line has no unescaped {@code =}, a key is empty, an
     *     escape is unknown, or a key repeats
     */
    public static Map<String, String> decode(String text) {
        if (text == null || text.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\n", -1)) {
            StringBuilder key = new StringBuilder();
            StringBuilder value = null;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                StringBuilder target = value == null ? key : value;
                if (c == '\\') {
                    if (++i >= line.length()) {
                        throw new MalformedHeadersException("headers end inside an escape");
                    }
                    char n = line.charAt(i);
                    switch (n) {
                        case '\\' -> target.append('\\');
                        case 'n' -> target.append('\n');
                        case 'r' -> target.append('\r');
                        case '=' -> target.append('=');
                        default -> throw new MalformedHeadersException("unknown escape \\" + n + " in headers");
                    }
                } else if (c == '=' && value == null) {
                    value = new StringBuilder();
                } else {
                    target.append(c);
                }
            }
            if (value == null) {
                throw new MalformedHeadersException("header line without '=': " + abbreviate(line));
            }
            if (key.length() == 0) {
                throw new MalformedHeadersException("header with an empty key");
            }
            if (out.put(key.toString(), value.toString()) != null) {
                throw new MalformedHeadersException("header key repeated: " + abbreviate(key.toString()));
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
