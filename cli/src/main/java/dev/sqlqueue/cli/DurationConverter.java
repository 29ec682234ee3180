package dev.sqlqueue.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses durations such as {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}, combinations
 * such as {@code 1m30s}, and ISO-8601 ({@code PT30S}). A leading {@code -} gives a negative duration,
 * which the option's own rule then rejects (for example {@code delay.negative}). A number without a unit
 * is rejected so that "30" cannot silently mean seconds or milliseconds, and one longer than {@link #MAX}
 * (rule {@code duration.max}).
 */
public final class DurationConverter implements ITypeConverter<Duration> {
    /**
     * The longest duration accepted, either sign: 3650 days. Durations are counted in milliseconds against
     * the database clock; a longer one (say {@code 9999999999999d}) overflowed that count where it was used.
     */
    static final Duration MAX = Duration.ofDays(3650);
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * Parse one duration in the forms described above.
     *
     * @param text a duration such as {@code 250ms}, {@code 1m30s}, {@code -5s} or {@code PT30S}; case and
     *             surrounding blanks are ignored
     * @return the duration, possibly negative, at most {@link #MAX} either way
     * @throws TypeConversionException naming the accepted forms when {@code text} is none of them (null and
     *         blank included), or rule {@code duration.max} when it is longer than {@link #MAX}
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase();
        boolean negative = s.startsWith("-");
        if (negative) {
            s = s.substring(1);
        }
        Duration d;
        if (s.startsWith("pt") || s.startsWith("p")) {
            try {
                d = Duration.parse(s.toUpperCase());
            } catch (RuntimeException e) {
                throw invalid(text);
            }
        } else if (WHOLE.matcher(s).matches()) {
            d = Duration.ZERO;
            Matcher m = PART.matcher(s);
            try {
                while (m.find()) {
                    long n = Long.parseLong(m.group(1));
                    d = d.plus(switch (m.group(2)) {
                        case "ms" -> Duration.ofMillis(n);
                        case "s" -> Duration.ofSeconds(n);
                        case "m" -> Duration.ofMinutes(n);
                        case "h" -> Duration.ofHours(n);
                        default -> Duration.ofDays(n);
                    });
                }
            } catch (ArithmeticException | NumberFormatException e) {
                throw invalid(text);
            }
        } else {
            throw invalid(text);
        }
        if (d.compareTo(MAX) > 0) {
            throw new TypeConversionException("'" + text + "' is longer than the longest duration accepted, "
                    + format(MAX) + " [rule: duration.max]");
        }
        Duration result = negative ? d.negated() : d;
        TypedDurations.remember(result, text);
        return result;
    }

    private static TypeConversionException invalid(String text) {
        return new TypeConversionException("'" + text + "' is not a duration; use a number with a unit "
                + "(ms, s, m, h, d), for example 250ms, 30s, 5m or 1h30m");
    }

    /**
     * A short human form: {@code 250ms}, {@code 12.3s}, {@code 4m 05s}, {@code 2h 10m}, {@code 3d 4h}.
     *
     * @param d the duration, negative ones included (prefixed with {@code -})
     * @return the form: milliseconds under a second, seconds to one decimal under a minute, otherwise the two largest units (truncated)
     */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms < 0) {
            return "-" + format(d.negated());
        }
        if (ms < 1_000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format("%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format("%dm %02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format("%dh %02dm", s / 3600, (s % 3600) / 60);
        }
        return String.format("%dd %dh", s / 86_400, (s % 86_400) / 3600);
    }
}
