package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The value expressions the model evaluates, each as SQL Data Types and Literals describes it; any other
 * expression is a {@link ModelViolation}. Stateless.
 */
final class ModelExpressions {
    /** The FORMAT of a TIMESTAMP(6) written as text: {@code YYYY-MM-DD HH:MI:SS.ffffff}. */
    static final String TIMESTAMP_FORMAT = "'YYYY-MM-DDBHH:MI:SS.S(6)'";
    private static final DateTimeFormatter TEXT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
    private static final Pattern TIMESTAMP_PARAMETER = Pattern.compile(
            "CAST\\(\\? AS TIMESTAMP\\(6\\) FORMAT " + Pattern.quote(TIMESTAMP_FORMAT) + "\\)");
    /** {@code CAST(CAST(x AS FORMAT '...') AS CHAR(26))}: a TIMESTAMP as text in a forced format. */
    static final Pattern TIMESTAMP_TEXT = Pattern.compile(
            "CAST\\(CAST\\((.+) AS FORMAT " + Pattern.quote(TIMESTAMP_FORMAT) + "\\) AS CHAR\\(26\\)\\)");
    private static final Pattern EXPIRY = Pattern.compile("CURRENT_TIMESTAMP\\(6\\) \\+ CAST\\(\\? AS INTERVAL DAY\\(4\\)\\)"
            + " \\+ CAST\\(\\? AS INTERVAL MINUTE\\(4\\)\\) \\+ CAST\\(\\? AS INTERVAL SECOND\\(4\\)\\)");

    private ModelExpressions() {
    }

    /** How many parameters {@code expr} takes. */
    static int parameters(String expr) {
        return (int) expr.chars().filter(c -> c == '?').count();
    }

    /**
     * The value of an INSERT or MERGE value expression, taking its parameters from {@code params}:
     * {@code ?}; a whole number; {@code CAST(? AS TIMESTAMP(6) FORMAT '...')} (character-to-TIMESTAMP
     * conversion with an explicit FORMAT: "Character-to-TIMESTAMP Conversion"); the request's
     * {@code CURRENT_TIMESTAMP(6)} plus three single-field intervals from whole numbers of at most 4 digits
     * ("INTERVAL DAY", numeric-to-interval conversion; a larger number overflows the field, error 7453).
     */
    static Object value(String expr, Iterator<Object> params, LocalDateTime requestTime) throws SQLException {
        if (expr.equals("?")) {
            return params.next();
        }
        if (expr.matches("\\d+")) {
            return Integer.parseInt(expr);
        }
        if (expr.equals("CURRENT_TIMESTAMP(6)")) {
            return requestTime;
        }
        if (TIMESTAMP_PARAMETER.matcher(expr).matches()) {
            Object v = params.next();
            if (!(v instanceof String text)) {
                throw new ModelViolation("CAST(? AS TIMESTAMP(6) FORMAT ...) needs a character parameter, got " + v);
            }
            try {
                return LocalDateTime.parse(text.strip(), TEXT);
            } catch (DateTimeParseException e) {
                throw new SQLException("[Teradata Database] [Error 6760] Invalid timestamp: '" + text + "'", "22008", 6760);
            }
        }
        Matcher m = EXPIRY.matcher(expr);
        if (m.matches()) {
            long days = field(params.next());
            long minutes = field(params.next());
            long seconds = field(params.next());
            return requestTime.plusDays(days).plusMinutes(minutes).plusSeconds(seconds);
        }
        throw new ModelViolation("unknown value expression: " + expr);
    }

    private static long field(Object v) throws SQLException {
        long n = ((Number) v).longValue();
        if (Math.abs(n) > 9999) {
            throw new SQLException("[Teradata Database] [Error 7453] Interval field overflow.", "22015", 7453);
        }
        return n;
    }

    /** A TIMESTAMP(6) as the forced FORMAT writes it. */
    static String text(LocalDateTime t) {
        return t == null ? null : TEXT.format(t);
    }
}
