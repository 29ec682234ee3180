package dev.sqlqueue.sqlserver.model;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The T-SQL expressions and conditions the model can decide: numbers, strings, NULL, variables,
 * parameters, columns of a row in scope, {@code @@TRANCOUNT}, {@code @@ROWCOUNT}, {@code @@OPTIONS & mask},
 * {@code XACT_STATE()}, {@code ERROR_NUMBER()}, {@code SYSUTCDATETIME()} (the model's clock), the functions of
 * {@link Functions}, {@code CASE}, arithmetic, comparisons, {@code IS [NOT] NULL},
 * {@code [NOT] IN (...)}, {@code [NOT] EXISTS (subquery)}, {@code AND}, {@code OR}, {@code NOT}. Anything
 * else is {@link #UNKNOWN}, and so is every expression that uses an unknown value: the model never claims a
 * value the documented rules cannot give it.
 *
 * <p>Three-valued logic as "Comparison Operators (Transact-SQL)" and "NULL and UNKNOWN (Transact-SQL)" define
 * it (ANSI_NULLS ON): a comparison with NULL is neither true nor false; IF and WHILE treat it as false.
 * That SQL "unknown" is Java {@code null} here; {@link #UNKNOWN} is the model not knowing. Strings compare
 * by code point with trailing spaces ignored ("SET ANSI_PADDING": {@code =} pads the shorter string with
 * spaces). Integer division truncates ("/ (Divide) (Transact-SQL)"). Stateless.
 */
final class Expressions {
    private Expressions() {
    }

    /** A value the model cannot know. */
    static final Object UNKNOWN = new Object() {
        @Override
        public String toString() {
            return "UNKNOWN";
        }
    };

    /** A bit set of which only the bits in {@code known} are modelled ({@code @@OPTIONS}): only {@code &} with a mask of them reads it. */
    record Bits(long value, long known) {
    }

    /** Returned by {@link Env#column} for a name that is not a column in scope. */
    static final Object NO_COLUMN = new Object();

    /** What an expression can see. */
    interface Env {
        /** A variable's value (lower-case name with its {@code @}), or {@link #UNKNOWN}. */
        Object variable(String name);

        /** The value bound to the parameter marker at this token index of the statement. */
        Object param(int tokenIndex);

        /** A column of the row in scope, or {@link #NO_COLUMN}. */
        Object column(String alias, String column);

        /** {@code @@TRANCOUNT}, {@code @@ROWCOUNT}, {@code XACT_STATE}, {@code ERROR_NUMBER}, {@code SYSUTCDATETIME}, {@code NEXT VALUE FOR x}. */
        Object global(String name);

        /** Whether the subquery in {@code tokens[from, to)} returns a row: {@link Boolean} or {@link #UNKNOWN}. */
        Object exists(int from, int to);
    }

    /** The value of {@code tokens[from, to)}. */
    static Object value(Env env, List<String> tokens, int from, int to) {
        Parser p = new Parser(env, tokens, from, to);
        Object v = p.or();
        return p.at < to ? UNKNOWN : v;
    }

    /** TRUE, FALSE (also for SQL's unknown), or null when the model cannot decide. */
    static Boolean truth(Object v) {
        if (v == UNKNOWN) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        return Boolean.FALSE;
    }

    /** Whether two known values are equal under the rules of {@code =}; null for SQL NULL. */
    static Boolean equal(Object a, Object b) {
        Integer c = compare(a, b);
        return c == null ? null : c == 0;
    }

    /** Orders two known non-null values; null when either is SQL NULL or they cannot be compared. */
    static Integer compare(Object a, Object b) {
        if (a == null || b == null) {
            return null;
        }
        if (a instanceof Number x && b instanceof Number y) {
            return Long.compare(x.longValue(), y.longValue());
        }
        if (a instanceof Boolean x && b instanceof Number y) {
            return Long.compare(x ? 1 : 0, y.longValue());
        }
        if (a instanceof Number x && b instanceof Boolean y) {
            return Long.compare(x.longValue(), y ? 1 : 0);
        }
        if (a instanceof LocalDateTime x && b instanceof LocalDateTime y) {
            return x.compareTo(y);
        }
        if (a instanceof String x && b instanceof String y) {
            return Integer.signum(stripTrailing(x).compareTo(stripTrailing(y)));
        }
        if (a instanceof java.util.UUID || b instanceof java.util.UUID) {
            return compare(String.valueOf(a), String.valueOf(b));
        }
        return null;
    }

    private static String stripTrailing(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    private static final class Parser {
        final Env env;
        final List<String> t;
        final int to;
        int at;

        Parser(Env env, List<String> t, int from, int to) {
            this.env = env;
            this.t = t;
            this.at = from;
            this.to = to;
        }

        String up(int i) {
            return i < to ? t.get(i).toUpperCase(Locale.ROOT) : "";
        }

        boolean accept(String word) {
            if (up(at).equals(word)) {
                at++;
                return true;
            }
            return false;
        }

        Object or() {
            Object v = and();
            while (accept("OR")) {
                Object w = and();
                v = logic(v, w, false);
            }
            return v;
        }

        Object and() {
            Object v = not();
            while (accept("AND")) {
                Object w = not();
                v = logic(v, w, true);
            }
            return v;
        }

        /** AND (all = true) / OR of two predicate values with UNKNOWN and SQL NULL. */
        private static Object logic(Object a, Object b, boolean all) {
            Boolean x = a == UNKNOWN ? null : (Boolean) a;
            Boolean y = b == UNKNOWN ? null : (Boolean) b;
            boolean unknownA = a == UNKNOWN;
            boolean unknownB = b == UNKNOWN;
            if (all) {
                if (Boolean.FALSE.equals(x) || Boolean.FALSE.equals(y)) {
                    return Boolean.FALSE;
                }
                if (unknownA || unknownB) {
                    return UNKNOWN;
                }
                return x == null || y == null ? null : Boolean.TRUE;
            }
            if (Boolean.TRUE.equals(x) || Boolean.TRUE.equals(y)) {
                return Boolean.TRUE;
            }
            if (unknownA || unknownB) {
                return UNKNOWN;
            }
            return x == null || y == null ? null : Boolean.FALSE;
        }

        Object not() {
            if (accept("NOT")) {
                Object v = not();
                return v == UNKNOWN ? UNKNOWN : v == null ? null : !(Boolean) v;
            }
            return predicate();
        }

        Object predicate() {
            if (up(at).equals("EXISTS")) {
                at++;
                int close = close(at);
                Object r = env.exists(at + 1, close);
                at = close + 1;
                return r;
            }
            Object left = additive();
            if (accept("IS")) {
                boolean negated = accept("NOT");
                accept("NULL");
                if (left == UNKNOWN) {
                    return UNKNOWN;
                }
                return negated == (left != null);
            }
            boolean negated = up(at).equals("NOT") && (up(at + 1).equals("IN") || up(at + 1).equals("EXISTS"));
            if (negated) {
                at++;
            }
            if (accept("IN")) {
                int close = close(at);
                at++;
                List<Object> items = new ArrayList<>();
                while (at < close) {
                    items.add(or());
                    accept(",");
                }
                at = close + 1;
                Object r = in(left, items);
                return r == UNKNOWN || r == null ? r : negated != (Boolean) r;
            }
            String op = up(at);
            if (op.equals("=") || op.equals("<") || op.equals(">") || op.equals("<=") || op.equals(">=") || op.equals("<>")
                    || op.equals("!=")) {
                at++;
                Object right = additive();
                if (left == UNKNOWN || right == UNKNOWN) {
                    return UNKNOWN;
                }
                Integer c = compare(left, right);
                if (c == null) {
                    return left == null || right == null ? null : UNKNOWN;
                }
                return switch (op) {
                    case "=" -> c == 0;
                    case "<" -> c < 0;
                    case ">" -> c > 0;
                    case "<=" -> c <= 0;
                    case ">=" -> c >= 0;
                    default -> c != 0;
                };
            }
            return left;
        }

        private static Object in(Object left, List<Object> items) {
            if (left == UNKNOWN || items.contains(UNKNOWN)) {
                return UNKNOWN;
            }
            boolean sawNull = left == null;
            for (Object i : items) {
                Boolean e = equal(left, i);
                if (Boolean.TRUE.equals(e)) {
                    return Boolean.TRUE;
                }
                sawNull |= e == null;
            }
            return sawNull ? null : Boolean.FALSE;
        }

        Object additive() {
            Object v = multiplicative();
            while (up(at).equals("+") || up(at).equals("-")) {
                String op = t.get(at++);
                Object w = multiplicative();
                v = arithmetic(op, v, w);
            }
            return v;
        }

        Object multiplicative() {
            Object v = unary();
            while (up(at).equals("*") || up(at).equals("/") || up(at).equals("%") || up(at).equals("&")) {
                String op = t.get(at++);
                Object w = unary();
                v = arithmetic(op, v, w);
            }
            return v;
        }

        private static Object arithmetic(String op, Object a, Object b) {
            if (a == UNKNOWN || b == UNKNOWN) {
                return UNKNOWN;
            }
            if (a == null || b == null) {
                return null;
            }
            if (a instanceof String x && b instanceof String y && op.equals("+")) {
                return x + y;
            }
            if (op.equals("&") && a instanceof Bits bits && b instanceof Number mask) {
                return (mask.longValue() & ~bits.known()) == 0 ? (Object) (bits.value() & mask.longValue()) : UNKNOWN;
            }
            if (!(a instanceof Number x) || !(b instanceof Number y)) {
                return UNKNOWN;
            }
            long p = x.longValue();
            long q = y.longValue();
            return switch (op) {
                case "+" -> p + q;
                case "-" -> p - q;
                case "*" -> p * q;
                case "&" -> p & q;
                case "/" -> q == 0 ? UNKNOWN : p / q;
                default -> q == 0 ? UNKNOWN : p % q;
            };
        }

        Object unary() {
            if (accept("-")) {
                return arithmetic("-", 0L, unary());
            }
            return primary();
        }

        /** The index of the parenthesis closing the one at {@code open}. */
        int close(int open) {
            int depth = 0;
            for (int i = open; i < to; i++) {
                depth += t.get(i).equals("(") ? 1 : t.get(i).equals(")") ? -1 : 0;
                if (depth == 0) {
                    return i;
                }
            }
            return to - 1;
        }

        Object primary() {
            if (at >= to) {
                return UNKNOWN;
            }
            String tok = t.get(at);
            String u = tok.toUpperCase(Locale.ROOT);
            if (tok.equals("(")) {
                int close = close(at);
                if (up(at + 1).equals("SELECT")) {
                    at = close + 1;
                    return UNKNOWN; // a scalar subquery
                }
                at++;
                Object v = or();
                at = close + 1;
                return v;
            }
            if (tok.equals("?")) {
                at++;
                return env.param(at - 1);
            }
            if (tok.startsWith("'") || ((tok.startsWith("N'") || tok.startsWith("n'")) && tok.length() > 1)) {
                at++;
                return Tsql.unquote(tok);
            }
            if (u.equals("NULL")) {
                at++;
                return null;
            }
            if (u.startsWith("@@")) {
                at++;
                return env.global(u);
            }
            if (tok.startsWith("@")) {
                at++;
                return env.variable(tok.toLowerCase(Locale.ROOT));
            }
            if (u.startsWith("0X")) {
                at++;
                return UNKNOWN; // binary literals: the model does not compute bodies
            }
            if (Character.isDigit(tok.charAt(0))) {
                at++;
                try {
                    return Long.parseLong(tok);
                } catch (NumberFormatException e) {
                    return UNKNOWN;
                }
            }
            if (u.equals("CASE")) {
                return caseExpression();
            }
            if (u.equals("NEXT") && up(at + 1).equals("VALUE") && up(at + 2).equals("FOR")) {
                at += 4;
                return env.global("NEXT VALUE FOR " + t.get(at - 1).toLowerCase(Locale.ROOT));
            }
            if (at + 1 < to && t.get(at + 1).equals("(")) {
                return function(u);
            }
            at++;
            int dot = tok.lastIndexOf('.');
            String alias = dot < 0 ? null : tok.substring(0, dot).toLowerCase(Locale.ROOT);
            String column = (dot < 0 ? tok : tok.substring(dot + 1)).replace("[", "").replace("]", "").toLowerCase(Locale.ROOT);
            Object v = env.column(alias, column);
            return v == NO_COLUMN ? UNKNOWN : v;
        }

        Object caseExpression() {
            at++;
            Object subject = up(at).equals("WHEN") ? null : or();
            boolean simple = subject != null || !up(at).equals("WHEN");
            Object result = null;
            boolean decided = false;
            boolean unknown = subject == UNKNOWN;
            while (accept("WHEN")) {
                Object when = or();
                accept("THEN");
                Object then = or();
                if (decided || unknown) {
                    continue;
                }
                Object hit = simple ? equal(subject, when) : truth(when);
                if (when == UNKNOWN || (simple && hit == null && subject != null && when != null)) {
                    unknown = true;
                } else if (Boolean.TRUE.equals(hit)) {
                    result = then;
                    decided = true;
                }
            }
            Object otherwise = null;
            if (accept("ELSE")) {
                otherwise = or();
            }
            accept("END");
            if (unknown) {
                return UNKNOWN;
            }
            return decided ? result : otherwise;
        }

        Object function(String name) {
            int open = at + 1;
            int close = close(open);
            List<int[]> args = new ArrayList<>();
            int depth = 0;
            int start = open + 1;
            for (int i = open + 1; i < close; i++) {
                depth += t.get(i).equals("(") ? 1 : t.get(i).equals(")") ? -1 : 0;
                if (depth == 0 && t.get(i).equals(",")) {
                    args.add(new int[] {start, i});
                    start = i + 1;
                }
            }
            if (start < close) {
                args.add(new int[] {start, close});
            }
            at = close + 1;
            if (name.equals("XACT_STATE") || name.equals("ERROR_NUMBER") || name.equals("SYSUTCDATETIME")) {
                return env.global(name);
            }
            return Functions.call(name, env, t, args);
        }

    }
}
