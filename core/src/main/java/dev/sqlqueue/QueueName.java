package dev.sqlqueue;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A validated queue name: 1 to {@value #MAX_LENGTH} characters, an ASCII letter first, then ASCII
 * letters, digits, {@code _} or {@code -}. Anything else (quotes, {@code ;}, spaces, dots, non-ASCII
 * look-alikes such as Cyrillic {@code а}) is rejected with {@link InvalidInputException}, so a queue name
 * can never change the meaning of a SQL statement. Names are case-sensitive as stored; backends that map
 * a queue onto a database object still quote the derived identifier.
 *
 * <p>Immutable and thread-safe.
 */
public final class QueueName {
    /** Maximum length in characters. */
    public static final int MAX_LENGTH = 48;
    private static final Pattern PATTERN = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

    private final String value;

    private QueueName(String value) {
        this.value = value;
    }

    /**
     * @param name the name, 1 to {@value #MAX_LENGTH} characters
     * @return the queue name
     * @throws InvalidInputException if the name is null, empty, longer than {@value #MAX_LENGTH}, or
     *     not of the pattern {@code [A-Za-z][A-Za-z0-9_-]*}
     */
    public static QueueName of(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidInputException("queue-name.empty", "queue name must not be empty");
        }
        if (name.length() > MAX_LENGTH) {
            throw new InvalidInputException("queue-name.max-length",
                    "queue name is " + name.length() + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        if (!PATTERN.matcher(name).matches()) {
            throw new InvalidInputException("queue-name.pattern",
                    "queue name '" + printable(name) + "' must start with an ASCII letter and contain only ASCII letters, digits, '_' or '-'");
        }
        return new QueueName(name);
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(cp -> {
            if (cp >= 0x20 && cp < 0x7f) {
                b.appendCodePoint(cp);
            } else {
                b.append(String.format("\\u%04X", cp));
            }
        });
        return b.toString();
    }

    /**
     * The name as given.
     *
     * @return the name
     */
    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueueName q && q.value.equals(value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
