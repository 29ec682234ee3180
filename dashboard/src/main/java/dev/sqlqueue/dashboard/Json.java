package dev.sqlqueue.dashboard;

import java.time.Instant;
import java.util.Map;

/**
 * A minimal JSON writer for the dashboard's few shapes (objects, arrays, strings, numbers, booleans).
 * Strings are escaped so that the output is also safe inside HTML: {@code <}, {@code >}, {@code &},
 * quotes and every control character become {@code \\u} and four hex digits. Not thread-safe.
 */
final class Json {
    private final StringBuilder out = new StringBuilder(256);
    /** Whether the next value in the current object or array needs a comma before it. */
    private boolean needComma;

    Json beginObject() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    Json endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    Json beginArray() {
        comma();
        out.append('[');
        needComma = false;
        return this;
    }

    Json endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    /** The name of the next member of an object. */
    Json name(String name) {
        comma();
        quote(name);
        out.append(':');
        needComma = false;
        return this;
    }

    Json value(String s) {
        comma();
        if (s == null) {
            out.append("null");
        } else {
            quote(s);
        }
        needComma = true;
        return this;
    }

    Json value(long n) {
        comma();
        out.append(n);
        needComma = true;
        return this;
    }

    Json value(double d) {
        comma();
        out.append(Double.isFinite(d) ? Double.toString(d) : "null");
        needComma = true;
        return this;
    }

    Json value(boolean b) {
        comma();
        out.append(b);
        needComma = true;
        return this;
    }

    Json value(Instant t) {
        return value(t == null ? null : t.toString());
    }

    Json member(String name, String v) {
        return name(name).value(v);
    }

    Json member(String name, long v) {
        return name(name).value(v);
    }

    Json member(String name, boolean v) {
        return name(name).value(v);
    }

    Json member(String name, Instant v) {
        return name(name).value(v);
    }

    Json member(String name, Map<String, String> map) {
        name(name).beginObject();
        for (Map.Entry<String, String> e : map.entrySet()) {
            member(e.getKey(), e.getValue());
        }
        return endObject();
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\'' || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
