package dev.sqlqueue.sqlserver.model;

import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The T-SQL functions {@link Expressions} computes: {@code DATEADD} and {@code DATEDIFF[_BIG]} for the units
 * millisecond to day ("DATEADD (Transact-SQL)", "DATEDIFF_BIG (Transact-SQL)"), {@code CAST} to the integer
 * types, to {@code nvarchar} and to {@code datetime2} (from a datetime2 or a 'yyyyMMdd' / ISO literal:
 * "CAST and CONVERT (Transact-SQL)", styles 112 and 126), {@code COALESCE} and {@code ISNULL}. Any other
 * function is {@link Expressions#UNKNOWN}. Stateless.
 */
final class Functions {
    private Functions() {
    }

    /** The value of function {@code name} with its arguments at {@code args} (token ranges of {@code t}). */
    static Object call(String name, Expressions.Env env, List<String> t, List<int[]> args) {
        return switch (name) {
            case "DATEADD" -> dateAdd(env, t, args);
            case "DATEDIFF_BIG", "DATEDIFF" -> dateDiff(env, t, args);
            case "CAST" -> cast(env, t, args);
            case "COALESCE", "ISNULL" -> coalesce(env, t, args);
            default -> Expressions.UNKNOWN;
        };
    }

    private static Object arg(Expressions.Env env, List<String> t, int[] range) {
        return Expressions.value(env, t, range[0], range[1]);
    }

    private static ChronoUnit unit(String word) {
        return switch (word.toUpperCase(Locale.ROOT)) {
            case "MILLISECOND", "MS" -> ChronoUnit.MILLIS;
            case "SECOND", "SS", "S" -> ChronoUnit.SECONDS;
            case "MINUTE", "MI", "N" -> ChronoUnit.MINUTES;
            case "HOUR", "HH" -> ChronoUnit.HOURS;
            case "DAY", "DD", "D" -> ChronoUnit.DAYS;
            default -> null;
        };
    }

    private static Object dateAdd(Expressions.Env env, List<String> t, List<int[]> args) {
        if (args.size() != 3) {
            return Expressions.UNKNOWN;
        }
        ChronoUnit unit = unit(t.get(args.get(0)[0]));
        Object n = arg(env, t, args.get(1));
        Object d = arg(env, t, args.get(2));
        if (unit == null || n == Expressions.UNKNOWN || d == Expressions.UNKNOWN) {
            return Expressions.UNKNOWN;
        }
        if (n == null || d == null) {
            return null;
        }
        return n instanceof Number k && d instanceof LocalDateTime x ? x.plus(k.longValue(), unit) : Expressions.UNKNOWN;
    }

    private static Object dateDiff(Expressions.Env env, List<String> t, List<int[]> args) {
        if (args.size() != 3) {
            return Expressions.UNKNOWN;
        }
        ChronoUnit unit = unit(t.get(args.get(0)[0]));
        Object a = arg(env, t, args.get(1));
        Object b = arg(env, t, args.get(2));
        if (unit == null || a == Expressions.UNKNOWN || b == Expressions.UNKNOWN) {
            return Expressions.UNKNOWN;
        }
        if (a == null || b == null) {
            return null;
        }
        return a instanceof LocalDateTime x && b instanceof LocalDateTime y ? unit.between(x, y) : Expressions.UNKNOWN;
    }

    private static Object cast(Expressions.Env env, List<String> t, List<int[]> args) {
        if (args.size() != 1) {
            return Expressions.UNKNOWN;
        }
        int[] r = args.get(0);
        int as = -1;
        int depth = 0;
        for (int i = r[0]; i < r[1]; i++) {
            depth += t.get(i).equals("(") ? 1 : t.get(i).equals(")") ? -1 : 0;
            if (depth == 0 && t.get(i).equalsIgnoreCase("AS")) {
                as = i;
            }
        }
        if (as < 0) {
            return Expressions.UNKNOWN;
        }
        Object v = Expressions.value(env, t, r[0], as);
        String type = t.get(as + 1).toLowerCase(Locale.ROOT);
        if (v == Expressions.UNKNOWN || v == null) {
            return v;
        }
        return switch (type) {
            case "int", "bigint", "smallint", "tinyint" -> v instanceof Number n ? (Object) n.longValue() : Expressions.UNKNOWN;
            case "nvarchar", "varchar" -> v instanceof String ? v : Expressions.UNKNOWN;
            case "datetime2" -> v instanceof LocalDateTime ? v : v instanceof String d ? date(d) : Expressions.UNKNOWN;
            default -> Expressions.UNKNOWN;
        };
    }

    /** A date literal: 'yyyyMMdd' or ISO 'yyyy-MM-ddTHH:mm:ss' ("CAST and CONVERT (Transact-SQL)", styles 112 and 126). */
    private static Object date(String d) {
        try {
            return d.length() == 8 ? java.time.LocalDate.parse(d, java.time.format.DateTimeFormatter.BASIC_ISO_DATE).atStartOfDay()
                    : LocalDateTime.parse(d);
        } catch (java.time.format.DateTimeParseException e) {
            return Expressions.UNKNOWN;
        }
    }

    private static Object coalesce(Expressions.Env env, List<String> t, List<int[]> args) {
        for (int[] a : args) {
            Object v = arg(env, t, a);
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
