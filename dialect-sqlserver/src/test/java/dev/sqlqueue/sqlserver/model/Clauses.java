package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the clauses of the statements {@link TableStatements} runs: a SELECT's TOP, items, FROM, WHERE and
 * ORDER BY, a table reference with its alias and {@code WITH (...)} hints ("Table hints (Transact-SQL)"), an
 * OUTPUT clause. Positions are token indexes of {@link Tsql#tokens}. Stateless.
 */
final class Clauses {
    private Clauses() {
    }

    private static final Set<String> NOT_ALIASES = Set.of("WITH", "WHERE", "SET", "ORDER", "OUTPUT", "JOIN", "GROUP", "VALUES",
            "INNER", "LEFT", "ON", "SELECT", "OPTION", "HAVING");

    /** A table reference: the token index of its name, its alias (lower case, or null), its hints (upper case). */
    record Source(int at, String alias, Set<String> hints, int end) {
        Source(int at, String alias, Set<String> hints) {
            this(at, alias, hints, at + 1);
        }

        boolean hint(String h) {
            return hints.contains(h);
        }
    }

    /** A select-list or OUTPUT item at {@code [from, to)}; {@code variable} set for {@code @v = expr}. */
    record Item(int from, int to, String variable, String label) {
        boolean assigns() {
            return variable != null;
        }
    }

    /** A SELECT: TOP's expression range (or null), items, source, WHERE range (or null), ORDER BY range (or null). */
    record Select(int[] top, List<Item> items, Source source, int[] where, int[] orderBy) {
    }

    /** An OUTPUT clause: its items, the table variable it goes INTO (or null) with its columns, and where it ends. */
    record Output(List<Item> items, String into, List<String> columns, int end) {
    }

    /** The first {@code word} at parenthesis depth 0 in {@code [from, to)}, or -1. */
    static int find(List<String> t, String word, int from, int to) {
        int depth = 0;
        for (int i = Math.max(0, from); i < to && i < t.size(); i++) {
            String x = t.get(i);
            depth += x.equals("(") ? 1 : x.equals(")") ? -1 : 0;
            if (depth == 0 && x.equalsIgnoreCase(word)) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the parenthesis closing the one at {@code open}. */
    static int close(List<String> t, int open) {
        int depth = 0;
        for (int i = open; i < t.size(); i++) {
            depth += t.get(i).equals("(") ? 1 : t.get(i).equals(")") ? -1 : 0;
            if (depth == 0) {
                return i;
            }
        }
        return t.size() - 1;
    }

    /** {@code [from, to)} split at {@code separator} (a comma, or AND) at depth 0. */
    static List<int[]> split(List<String> t, int from, int to, String separator) {
        List<int[]> out = new ArrayList<>();
        int depth = 0;
        int start = from;
        for (int i = from; i < to; i++) {
            String x = t.get(i);
            depth += x.equals("(") ? 1 : x.equals(")") ? -1 : 0;
            if (depth == 0 && x.equalsIgnoreCase(separator)) {
                out.add(new int[] {start, i});
                start = i + 1;
            }
        }
        if (start < to) {
            out.add(new int[] {start, to});
        }
        return out;
    }

    /** A column name without alias or brackets, lower case. */
    static String column(String token) {
        int dot = token.lastIndexOf('.');
        return (dot < 0 ? token : token.substring(dot + 1)).replace("[", "").replace("]", "").toLowerCase(Locale.ROOT);
    }

    /** The table reference whose name is at {@code at}. */
    static Source source(List<String> t, int at) {
        int i = at + 1;
        String alias = null;
        if (i < t.size() && t.get(i).equalsIgnoreCase("AS")) {
            i++;
        }
        if (i < t.size() && Character.isLetter(t.get(i).charAt(0)) && !NOT_ALIASES.contains(t.get(i).toUpperCase(Locale.ROOT))) {
            alias = t.get(i).toLowerCase(Locale.ROOT);
            i++;
        }
        Set<String> hints = new LinkedHashSet<>();
        if (i + 1 < t.size() && t.get(i).equalsIgnoreCase("WITH") && t.get(i + 1).equals("(")) {
            int close = close(t, i + 1);
            for (int k = i + 2; k < close; k++) {
                String h = t.get(k).toUpperCase(Locale.ROOT);
                if (h.equals("(")) {
                    k = close(t, k); // INDEX (name), FORCESEEK (...)
                } else if (!h.equals(",")) {
                    hints.add(h);
                }
            }
            i = close + 1;
        }
        return new Source(at, alias, hints, i);
    }

    /** The SELECT at {@code t[from, to)}. */
    static Select select(List<String> t, int from, int to) {
        int i = from + 1;
        int[] top = null;
        if (t.get(i).equalsIgnoreCase("TOP")) {
            int close = close(t, i + 1);
            top = new int[] {i + 2, close};
            i = close + 1;
        }
        int fromAt = find(t, "FROM", i, to);
        List<Item> items = items(t, i, fromAt < 0 ? to : fromAt);
        Source source = fromAt < 0 ? new Source(-1, null, Set.of()) : source(t, fromAt + 1);
        int order = find(t, "ORDER", source.end(), to);
        int where = find(t, "WHERE", source.end(), to);
        int whereEnd = order < 0 ? to : order;
        return new Select(top, items, source, where < 0 ? null : new int[] {where + 1, whereEnd},
                order < 0 ? null : new int[] {order + 2, to});
    }

    static List<Item> items(List<String> t, int from, int to) {
        List<Item> items = new ArrayList<>();
        int n = 0;
        for (int[] r : split(t, from, to, ",")) {
            n++;
            if (t.get(r[0]).startsWith("@") && r[0] + 1 < r[1] && t.get(r[0] + 1).equals("=")) {
                items.add(new Item(r[0] + 2, r[1], t.get(r[0]).toLowerCase(Locale.ROOT), t.get(r[0]).substring(1)));
            } else if (r[1] - r[0] >= 3 && t.get(r[1] - 2).equalsIgnoreCase("AS")) {
                items.add(new Item(r[0], r[1] - 2, null, t.get(r[1] - 1)));
            } else {
                items.add(new Item(r[0], r[1], null, r[1] - r[0] == 1 ? column(t.get(r[0])) : "c" + n));
            }
        }
        return items;
    }

    /** The OUTPUT clause starting at {@code at} (the OUTPUT keyword) and ending before {@code to}. */
    static Output output(List<String> t, int at, int to) {
        if (at < 0 || at >= t.size() || !t.get(at).equalsIgnoreCase("OUTPUT")) {
            return null;
        }
        int end = to;
        for (String stop : List.of("VALUES", "SELECT", "WHERE", "FROM")) {
            int k = find(t, stop, at + 1, end);
            if (k >= 0) {
                end = k;
            }
        }
        int into = find(t, "INTO", at + 1, end);
        List<Item> items = items(t, at + 1, into < 0 ? end : into);
        if (into < 0) {
            return new Output(items, null, List.of(), end);
        }
        List<String> columns = new ArrayList<>();
        if (into + 2 < end && t.get(into + 2).equals("(")) {
            int close = close(t, into + 2);
            for (int k = into + 3; k < close; k++) {
                if (!t.get(k).equals(",")) {
                    columns.add(column(t.get(k)));
                }
            }
        }
        return new Output(items, t.get(into + 1).toLowerCase(Locale.ROOT), columns, end);
    }

    /** Rows in ORDER BY order; null if a sort value is unknown. */
    static List<Map<String, Object>> order(Ctx ctx, List<String> t, List<Integer> markers, Select q, List<Map<String, Object>> rows,
                                           Ctx.Scope outer) {
        List<int[]> keys = split(t, q.orderBy()[0], q.orderBy()[1], ",");
        List<Object[]> sortValues = new ArrayList<>();
        for (Map<String, Object> r : rows) {
            Object[] v = new Object[keys.size()];
            for (int k = 0; k < v.length; k++) {
                int[] key = keys.get(k);
                int end = t.get(key[1] - 1).equalsIgnoreCase("DESC") || t.get(key[1] - 1).equalsIgnoreCase("ASC") ? key[1] - 1 : key[1];
                v[k] = Expressions.value(ctx.env(t, markers, TableStatements.scope(q.source().alias(), r, outer)), t, key[0], end);
                if (v[k] == Expressions.UNKNOWN) {
                    return null;
                }
            }
            sortValues.add(v);
        }
        List<Integer> index = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            index.add(i);
        }
        index.sort((a, b) -> {
            for (int k = 0; k < keys.size(); k++) {
                boolean desc = t.get(keys.get(k)[1] - 1).equalsIgnoreCase("DESC");
                int c = Tables.KEY_ORDER.compare(java.util.Arrays.asList(sortValues.get(a)[k]), java.util.Arrays.asList(sortValues.get(b)[k]));
                if (c != 0) {
                    return desc ? -c : c;
                }
            }
            return 0;
        });
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i : index) {
            out.add(rows.get(i));
        }
        return out;
    }
}
