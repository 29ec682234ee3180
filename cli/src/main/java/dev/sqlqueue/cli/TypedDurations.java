package dev.sqlqueue.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text each duration option was typed as, so that an error echoes {@code was -5s} (what the user typed) and not
 * the library's {@code was PT-5S}. Per thread: picocli parses and a command validates on the thread that runs
 * {@code execute}; {@link Main#commandLine} starts a fresh record.
 */
final class TypedDurations {
    private static final ThreadLocal<Map<Duration, String>> TYPED = ThreadLocal.withInitial(HashMap::new);
    /** An ISO-8601 duration as {@link Duration#toString()} writes it, after "was ". */
    private static final Pattern ISO = Pattern.compile("\\bwas (PT[-0-9.HMS]+)");

    private TypedDurations() {
    }

    static void clear() {
        TYPED.get().clear();
    }

    static void remember(Duration d, String text) {
        TYPED.get().putIfAbsent(d, text.strip());
    }

    /** What {@code d} was typed as, else its short form ({@link DurationConverter#format}). */
    static String text(Duration d) {
        String typed = TYPED.get().get(d);
        return typed != null ? typed : DurationConverter.format(d);
    }

    /** {@code message} with every {@code was PT...} replaced by the text that duration was typed as. */
    static String echo(String message) {
        if (message == null) {
            return null;
        }
        Matcher m = ISO.matcher(message);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement = m.group(0);
            try {
                replacement = "was " + text(Duration.parse(m.group(1)));
            } catch (RuntimeException e) {
                // not a duration after all: keep it
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
