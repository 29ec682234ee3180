package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * SELECT, INSERT, UPDATE and DELETE on a kept table or a table variable ({@link Tables}): which rows they
 * read and change, and the locks they take ({@link TableAccess}). The shapes the model reads: one table per
 * statement (no JOIN), {@code TOP (n)}, {@code WITH (hints)}, a WHERE of AND-ed conditions (others are
 * evaluated as a whole), {@code [NOT] EXISTS} subqueries, {@code ORDER BY}, {@code OUTPUT [INTO @t]},
 * {@code INSERT ... VALUES} and {@code INSERT ... SELECT}. A statement on a kept table that the model cannot
 * read is refused ({@link UnsupportedOperationException}), so a test never passes over it silently.
 * Stateless.
 */
final class TableStatements {
    private TableStatements() {
    }

    /** The table a statement reads (SELECT) or changes (INSERT, UPDATE, DELETE): the token index of its name, or -1. */
    static int primary(List<String> t) {
        String k = t.isEmpty() ? "" : t.get(0).toUpperCase(Locale.ROOT);
        int i = 1;
        switch (k) {
            case "SELECT" -> {
                int from = Clauses.find(t, "FROM", 1, t.size());
                return from < 0 ? -1 : from + 1;
            }
            case "INSERT" -> {
                return t.size() > 1 && t.get(1).equalsIgnoreCase("INTO") ? 2 : 1;
            }
            case "UPDATE", "DELETE" -> {
                if (t.size() > 1 && t.get(1).equalsIgnoreCase("TOP")) {
                    i = Clauses.close(t, 2) + 1;
                }
                if (k.equals("DELETE") && i < t.size() && t.get(i).equalsIgnoreCase("FROM")) {
                    i++;
                }
                return i < t.size() ? i : -1;
            }
            default -> {
                return -1;
            }
        }
    }

    /** The kept table or table variable named at {@code i}, or null. */
    static Tables.Table table(Ctx ctx, List<String> t, int i) {
        if (i < 0 || i >= t.size()) {
            return null;
        }
        String name = t.get(i);
        if (name.startsWith("@")) {
            return ctx.tableVariables.get(name.toLowerCase(Locale.ROOT));
        }
        return ctx.model.tables().get(name);
    }

    /** Whether this statement is the model's to run here. */
    static boolean handles(Ctx ctx, Tsql.Stmt st) {
        return table(ctx, st.tokens(), primary(st.tokens())) != null;
    }

    /** Runs a statement whose primary table is kept or a table variable. */
    static void run(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        switch (st.upper(0)) {
            case "SELECT" -> select(ctx, t, st.params(), 0, t.size(), null);
            case "INSERT" -> insert(ctx, st);
            case "UPDATE" -> update(ctx, st);
            default -> delete(ctx, st);
        }
    }

    // ---- SELECT -------------------------------------------------------------------------------------------

    /** A SELECT at {@code t[from, to)}: assigns its variables or adds its result set to the batch's results. */
    private static void select(Ctx ctx, List<String> t, List<Integer> markers, int from, int to, Ctx.Scope outer)
            throws SQLException {
        Clauses.Select q = Clauses.select(t, from, to);
        List<Map<String, Object>> rows = rows(ctx, t, markers, q, outer);
        boolean assigns = !q.items().isEmpty() && q.items().stream().allMatch(Clauses.Item::assigns);
        if (rows == null) {
            if (assigns) {
                for (Clauses.Item it : q.items()) {
                    ctx.vars.put(it.variable(), Expressions.UNKNOWN);
                }
            } else {
                ctx.results.add(new Results.Rows(List.of(), labels(q), false));
            }
            ctx.rowcount = Expressions.UNKNOWN;
            return;
        }
        List<Object[]> out = new ArrayList<>();
        boolean known = true;
        for (Map<String, Object> r : rows) {
            Object[] values = new Object[q.items().size()];
            for (int i = 0; i < values.length; i++) {
                Clauses.Item it = q.items().get(i);
                values[i] = Expressions.value(ctx.env(t, markers, scope(q.source().alias(), r, outer)), t, it.from(), it.to());
                known &= values[i] != Expressions.UNKNOWN;
                if (it.assigns()) {
                    // "SELECT @local_variable": with several rows the variable gets the last row's value; with none it is unchanged
                    ctx.vars.put(it.variable(), values[i]);
                }
            }
            out.add(values);
        }
        ctx.rowcount = (long) rows.size();
        if (!assigns) {
            ctx.results.add(new Results.Rows(known ? out : List.of(), labels(q), known));
        }
    }

    private static List<String> labels(Clauses.Select q) {
        return q.items().stream().map(Clauses.Item::label).toList();
    }

    /** The rows a SELECT returns, or null when the model cannot know them. */
    static List<Map<String, Object>> rows(Ctx ctx, List<String> t, List<Integer> markers, Clauses.Select q, Ctx.Scope outer)
            throws SQLException {
        Tables.Table table = table(ctx, t, q.source().at());
        if (table == null || table.unknown) {
            return null;
        }
        Long top = q.top() == null ? null : number(ctx, t, markers, q.top(), outer);
        if (q.top() != null && top == null) {
            return null;
        }
        TableAccess access = new TableAccess(ctx, t, markers, table, q.source(), outer);
        boolean keyOrder = q.orderBy() == null || inKeyOrder(t, q.orderBy(), table);
        List<Map<String, Object>> rows = access.read(q.where(), keyOrder ? top : null);
        if (rows == null) {
            return null;
        }
        if (!keyOrder) {
            rows = Clauses.order(ctx, t, markers, q, rows, outer);
            if (rows == null) {
                return null;
            }
            if (top != null && rows.size() > top) {
                rows = new ArrayList<>(rows.subList(0, (int) (long) top));
            }
        }
        return rows;
    }

    /** Whether ORDER BY asks for the clustered key's own order (an ordered scan that TOP can stop early). */
    private static boolean inKeyOrder(List<String> t, int[] orderBy, Tables.Table table) {
        List<int[]> keys = Clauses.split(t, orderBy[0], orderBy[1], ",");
        if (keys.size() > table.key.size()) {
            return false;
        }
        for (int k = 0; k < keys.size(); k++) {
            int[] r = keys.get(k);
            int end = t.get(r[1] - 1).equalsIgnoreCase("ASC") ? r[1] - 1 : r[1];
            if (end - r[0] != 1 || !Clauses.column(t.get(r[0])).equals(table.key.get(k))) {
                return false;
            }
        }
        return true;
    }

    private static Long number(Ctx ctx, List<String> t, List<Integer> markers, int[] range, Ctx.Scope outer) {
        Object v = Expressions.value(ctx.env(t, markers, outer), t, range[0], range[1]);
        return v instanceof Number n ? n.longValue() : null;
    }

    /** {@code [NOT] EXISTS (subquery)}: true if the subquery at {@code t[from, to)} returns a row. */
    static Object exists(Ctx ctx, List<String> t, List<Integer> markers, int from, int to, Ctx.Scope outer) {
        if (from >= to || !t.get(from).equalsIgnoreCase("SELECT")) {
            return Expressions.UNKNOWN;
        }
        try {
            Clauses.Select q = Clauses.select(t, from, to);
            List<Map<String, Object>> rows = rows(ctx, t, markers, q, outer);
            return rows == null ? Expressions.UNKNOWN : !rows.isEmpty();
        } catch (SQLException e) {
            throw new Raised(e);
        }
    }

    /** An error raised inside an expression (a lock time-out in an EXISTS subquery), carried out of the evaluator. */
    static final class Raised extends RuntimeException {
        final SQLException error;

        Raised(SQLException error) {
            super(error);
            this.error = error;
        }
    }

    /** Columns of {@code row} under {@code alias} (or unqualified), then the outer scope. */
    static Ctx.Scope scope(String alias, Map<String, Object> row, Ctx.Scope outer) {
        return (a, c) -> {
            if ((a == null || a.equals(alias)) && row.containsKey(c)) {
                return row.get(c);
            }
            return outer == null ? Expressions.NO_COLUMN : outer.column(a, c);
        };
    }

    // ---- INSERT, UPDATE, DELETE -----------------------------------------------------------------------

    private static void insert(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        int at = primary(t);
        Tables.Table table = table(ctx, t, at);
        List<String> columns = new ArrayList<>();
        int i = at + 1;
        if (i < t.size() && t.get(i).equals("(")) {
            int close = Clauses.close(t, i);
            for (int k = i + 1; k < close; k++) {
                if (!t.get(k).equals(",")) {
                    columns.add(Clauses.column(t.get(k)));
                }
            }
            i = close + 1;
        }
        Clauses.Output output = Clauses.output(t, i, t.size());
        if (output != null) {
            i = output.end();
        }
        List<Map<String, Object>> values = new ArrayList<>();
        if (t.get(i).equalsIgnoreCase("VALUES")) {
            i++;
            while (i < t.size() && t.get(i).equals("(")) {
                int close = Clauses.close(t, i);
                List<int[]> exprs = Clauses.split(t, i + 1, close, ",");
                Map<String, Object> row = new HashMap<>();
                for (int k = 0; k < exprs.size(); k++) {
                    row.put(columns.get(k), Expressions.value(ctx.env(t, st.params(), null), t, exprs.get(k)[0], exprs.get(k)[1]));
                }
                values.add(row);
                i = close + 1;
                if (i < t.size() && t.get(i).equals(",")) {
                    i++;
                }
            }
        } else if (t.get(i).equalsIgnoreCase("SELECT")) {
            Clauses.Select q = Clauses.select(t, i, t.size());
            List<Map<String, Object>> rows = rows(ctx, t, st.params(), q, null);
            if (rows == null) {
                unknownContent(ctx, table, st);
                return;
            }
            for (Map<String, Object> r : rows) {
                Map<String, Object> row = new HashMap<>();
                for (int k = 0; k < q.items().size(); k++) {
                    Clauses.Item it = q.items().get(k);
                    row.put(columns.get(k), Expressions.value(ctx.env(t, st.params(), scope(q.source().alias(), r, null)), t,
                            it.from(), it.to()));
                }
                values.add(row);
            }
        } else {
            throw unsupported(st);
        }
        for (Map<String, Object> row : values) {
            if (row.containsValue(Expressions.UNKNOWN) && !table.variable) {
                throw unsupported(st);
            }
        }
        TableAccess access = new TableAccess(ctx, t, st.params(), table, new Clauses.Source(at, null, java.util.Set.of()), null);
        List<Map<String, Object>> inserted = new ArrayList<>();
        for (Map<String, Object> row : values) {
            inserted.add(access.insert(row));
        }
        ctx.rowcount = (long) inserted.size();
        emit(ctx, st, output, inserted, null, table);
    }

    private static void update(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        int at = primary(t);
        Tables.Table table = table(ctx, t, at);
        Clauses.Source src = Clauses.source(t, at);
        int set = Clauses.find(t, "SET", src.end(), t.size());
        int where = Clauses.find(t, "WHERE", set, t.size());
        int outputAt = Clauses.find(t, "OUTPUT", set, t.size());
        int end = where < 0 ? t.size() : where;
        if (Clauses.find(t, "FROM", set, end) >= 0) {
            throw unsupported(st);
        }
        List<int[]> assignments = Clauses.split(t, set + 1, outputAt < 0 ? end : outputAt, ",");
        Clauses.Output output = outputAt < 0 ? null : Clauses.output(t, outputAt, end);
        Long top = topOf(ctx, st);
        TableAccess access = new TableAccess(ctx, t, st.params(), table, src, null);
        List<Map<String, Object>[]> changed = access.update(where < 0 ? null : new int[] {where + 1, t.size()}, top, row -> {
            Map<String, Object> next = new HashMap<>(row);
            for (int[] a : assignments) {
                String column = Clauses.column(t.get(a[0]));
                next.put(column, Expressions.value(ctx.env(t, st.params(), scope(src.alias(), row, null)), t, a[0] + 2, a[1]));
            }
            return next;
        });
        if (changed == null) {
            throw unsupported(st);
        }
        ctx.rowcount = (long) changed.size();
        emit(ctx, st, output, changed.stream().map(c -> c[1]).toList(), changed.stream().map(c -> c[0]).toList(), table);
    }

    private static void delete(Ctx ctx, Tsql.Stmt st) throws SQLException {
        List<String> t = st.tokens();
        int at = primary(t);
        Tables.Table table = table(ctx, t, at);
        Clauses.Source src = Clauses.source(t, at);
        int where = Clauses.find(t, "WHERE", src.end(), t.size());
        int outputAt = Clauses.find(t, "OUTPUT", src.end(), t.size());
        Clauses.Output output = outputAt < 0 ? null : Clauses.output(t, outputAt, where < 0 ? t.size() : where);
        Long top = topOf(ctx, st);
        TableAccess access = new TableAccess(ctx, t, st.params(), table, src, null);
        List<Map<String, Object>[]> removed = access.update(where < 0 ? null : new int[] {where + 1, t.size()}, top, row -> null);
        if (removed == null) {
            throw unsupported(st);
        }
        ctx.rowcount = (long) removed.size();
        emit(ctx, st, output, null, removed.stream().map(c -> c[0]).toList(), table);
    }

    private static Long topOf(Ctx ctx, Tsql.Stmt st) {
        List<String> t = st.tokens();
        if (t.size() < 2 || !t.get(1).equalsIgnoreCase("TOP")) {
            return null;
        }
        Long n = number(ctx, t, st.params(), new int[] {3, Clauses.close(t, 2)}, null);
        if (n == null) {
            throw unsupported(st);
        }
        return n;
    }

    /** The update count and the OUTPUT rows of a change. */
    private static void emit(Ctx ctx, Tsql.Stmt st, Clauses.Output output, List<Map<String, Object>> inserted,
                             List<Map<String, Object>> deleted, Tables.Table table) throws SQLException {
        int n = inserted != null ? inserted.size() : deleted.size();
        if (!table.variable && !ctx.session.nocount) {
            ctx.results.add(new Results.Count((long) n));
        }
        if (output == null) {
            return;
        }
        List<String> t = st.tokens();
        List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            Map<String, Object> ins = inserted == null ? null : inserted.get(r);
            Map<String, Object> del = deleted == null ? null : deleted.get(r);
            Ctx.Scope s = (a, c) -> {
                Map<String, Object> row = "inserted".equals(a) ? ins : "deleted".equals(a) ? del : null;
                return row != null && row.containsKey(c) ? row.get(c) : Expressions.NO_COLUMN;
            };
            Object[] values = new Object[output.items().size()];
            for (int k = 0; k < values.length; k++) {
                Clauses.Item it = output.items().get(k);
                values[k] = Expressions.value(ctx.env(t, st.params(), s), t, it.from(), it.to());
            }
            rows.add(values);
        }
        if (output.into() == null) {
            ctx.results.add(new Results.Rows(rows, output.items().stream().map(Clauses.Item::label).toList(), true));
            return;
        }
        Tables.Table target = ctx.tableVariables.get(output.into());
        if (target == null) {
            throw unsupported(st);
        }
        for (Object[] values : rows) {
            Map<String, Object> row = new LinkedHashMap<>();
            for (int k = 0; k < values.length; k++) {
                row.put(output.columns().isEmpty() ? output.items().get(k).label() : output.columns().get(k), values[k]);
            }
            target.rows.put(target.keyOf(row), new Tables.Row(row, row, 0));
        }
    }

    /** A table variable filled from something the model cannot read: its content is unknown from now on. */
    static void unknownContent(Ctx ctx, Tables.Table table, Tsql.Stmt st) {
        if (!table.variable) {
            throw unsupported(st);
        }
        table.unknown = true;
        ctx.rowcount = Expressions.UNKNOWN;
    }

    static UnsupportedOperationException unsupported(Tsql.Stmt st) {
        return new UnsupportedOperationException("the model keeps this table but cannot read this statement on it: " + st.text());
    }
}
