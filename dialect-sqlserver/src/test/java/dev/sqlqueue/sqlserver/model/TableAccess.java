package dev.sqlqueue.sqlserver.model;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * One statement's access to one kept table: which rows it reads, which locks it takes on them and for how
 * long, and what it sees. Sources ("Table hints (Transact-SQL)"; "Transaction locking and row versioning
 * guide"; "SET TRANSACTION ISOLATION LEVEL (Transact-SQL)"):
 * <ul>
 *   <li>READ COMMITTED reads take S locks and release them when the read is done; REPEATABLE READ keeps
 *       them; SERIALIZABLE (or HOLDLOCK) also takes key-range locks: on each key read and on the next entry
 *       after the range, or, for a key that does not exist, on the next entry ("Singleton fetch of
 *       nonexistent data"). UPDLOCK takes U locks (RangeS-U when serializable) "held until the transaction
 *       completes"; XLOCK takes X.</li>
 *   <li>READPAST skips rows locked by another transaction (row locks only); NOLOCK / READ UNCOMMITTED take no
 *       locks and read uncommitted values; NOWAIT ends the statement with error 1222 at the first lock it
 *       would wait for (as {@code SET LOCK_TIMEOUT 0}).</li>
 *   <li>Under READ_COMMITTED_SNAPSHOT, a READ COMMITTED read without READCOMMITTEDLOCK (or a locking hint)
 *       takes no locks and reads the last committed values; so does every read at SNAPSHOT.</li>
 *   <li>UPDATE and DELETE read rows with U locks (released for rows that do not qualify) and hold X locks on
 *       the rows they change ("Lock modes": update locks). An INSERT tests the range of its key with RangeI-N
 *       on the next entry (not held) and holds X on the new key ("Insert operation"); a key that exists is
 *       error 2627 (2601 for a unique index), and a key another transaction inserted or deleted waits for
 *       that transaction's X lock.</li>
 * </ul>
 * Which rows a statement reads: when its WHERE fixes the leading columns of the clustered key or of a
 * declared index with {@code column = value}, only the rows that match (a seek); otherwise every row (a
 * scan). A row whose own columns do not match is released at once; a row rejected only by an EXISTS
 * subquery (evaluated above the scan) keeps its lock. Not thread-safe; used under the model's lock.
 */
final class TableAccess {
    private final Ctx ctx;
    private final List<String> t;
    private final List<Integer> markers;
    private final Tables.Table table;
    private final Clauses.Source src;
    private final Ctx.Scope outer;

    TableAccess(Ctx ctx, List<String> t, List<Integer> markers, Tables.Table table, Clauses.Source src, Ctx.Scope outer) {
        this.ctx = ctx;
        this.t = t;
        this.markers = markers;
        this.table = table;
        this.src = src;
        this.outer = outer;
    }

    // ---- how this statement reads --------------------------------------------------------------------

    private int isolation() {
        return ctx.session.isolation;
    }

    private boolean dirty() {
        return src.hint("NOLOCK") || src.hint("READUNCOMMITTED") || isolation() == Connection.TRANSACTION_READ_UNCOMMITTED;
    }

    private boolean lockingHint() {
        return src.hint("UPDLOCK") || src.hint("XLOCK") || src.hint("HOLDLOCK") || src.hint("SERIALIZABLE")
                || src.hint("REPEATABLEREAD");
    }

    /**
     * A row-versioning read: SNAPSHOT, or READ COMMITTED under READ_COMMITTED_SNAPSHOT, unless a table hint asks
     * for locks ("SET TRANSACTION ISOLATION LEVEL (Transact-SQL)": the level holds for every read "unless a
     * table hint in the FROM clause of a statement specifies different locking or versioning behavior";
     * READCOMMITTEDLOCK reads with locks "regardless of the setting of READ_COMMITTED_SNAPSHOT").
     */
    private boolean versioned() {
        if (lockingHint() || src.hint("READCOMMITTEDLOCK")) {
            return false;
        }
        if (isolation() == SqlServerModel.TRANSACTION_SNAPSHOT) {
            return true;
        }
        return ctx.model.readCommittedSnapshot() && isolation() == Connection.TRANSACTION_READ_COMMITTED;
    }

    private boolean serializable() {
        return src.hint("HOLDLOCK") || src.hint("SERIALIZABLE") || isolation() == Connection.TRANSACTION_SERIALIZABLE;
    }

    private Locks.Mode readMode() {
        boolean range = serializable();
        if (src.hint("XLOCK")) {
            return range ? Locks.Mode.RANGE_X_X : Locks.Mode.X;
        }
        if (src.hint("UPDLOCK")) {
            return range ? Locks.Mode.RANGE_S_U : Locks.Mode.U;
        }
        return range ? Locks.Mode.RANGE_S_S : Locks.Mode.S;
    }

    private boolean readHeld() {
        return src.hint("UPDLOCK") || src.hint("XLOCK") || serializable() || src.hint("REPEATABLEREAD")
                || isolation() == Connection.TRANSACTION_REPEATABLE_READ;
    }

    private boolean lock(List<Object> key, Locks.Mode mode, boolean held) throws SQLException {
        if (table.variable) {
            return true;
        }
        return ctx.model.waits.lock(ctx, new Locks.Resource(table.name, key == null ? Locks.Resource.END : Tables.Table.render(key)), mode,
                held, src.hint("READPAST") && mode.ordinal() <= Locks.Mode.X.ordinal(), src.hint("NOWAIT"));
    }

    // ---- WHERE ------------------------------------------------------------------------------------------

    private record Conditions(List<int[]> scan, List<int[]> above, Map<String, Object> fixed) {
    }

    private Conditions conditions(int[] where) {
        List<int[]> scan = new ArrayList<>();
        List<int[]> above = new ArrayList<>();
        Map<String, Object> fixed = new HashMap<>();
        if (where == null) {
            return new Conditions(scan, above, fixed);
        }
        List<int[]> parts = Clauses.find(t, "OR", where[0], where[1]) >= 0 ? List.of(where) : Clauses.split(t, where[0], where[1], "AND");
        for (int[] p : parts) {
            boolean sub = false;
            for (int i = p[0]; i < p[1]; i++) {
                sub |= t.get(i).equalsIgnoreCase("EXISTS") || t.get(i).equalsIgnoreCase("SELECT");
            }
            (sub ? above : scan).add(p);
            if (!sub && p[1] - p[0] >= 3 && t.get(p[0] + 1).equals("=") && own(t.get(p[0]))) {
                Object v = Expressions.value(ctx.env(t, markers, outer), t, p[0] + 2, p[1]);
                if (v != Expressions.UNKNOWN && v != null) {
                    fixed.put(Clauses.column(t.get(p[0])), v);
                }
            }
        }
        return new Conditions(scan, above, fixed);
    }

    /** Whether a column token names this table's column (qualified by its alias, or unqualified: the innermost table). */
    private boolean own(String token) {
        if (!Character.isLetter(token.charAt(0)) && !token.startsWith("[")) {
            return false;
        }
        int dot = token.lastIndexOf('.');
        return dot < 0 || token.substring(0, dot).toLowerCase(Locale.ROOT).equals(src.alias());
    }

    private Object test(List<int[]> conditions, Map<String, Object> row) {
        Object all = Boolean.TRUE;
        for (int[] c : conditions) {
            Object v;
            try {
                v = Expressions.value(ctx.env(t, markers, TableStatements.scope(src.alias(), row, outer)), t, c[0], c[1]);
            } catch (TableStatements.Raised e) {
                throw e;
            }
            Boolean b = Expressions.truth(v);
            if (b == null) {
                all = Expressions.UNKNOWN;
            } else if (!b) {
                return Boolean.FALSE;
            }
        }
        return all;
    }

    // ---- which rows -----------------------------------------------------------------------------------

    /** The index that the fixed columns seek on: its columns, or null for a scan. */
    private List<String> seekIndex(Map<String, Object> fixed) {
        List<String> best = null;
        int bestLength = 0;
        List<List<String>> all = new ArrayList<>();
        all.add(table.key);
        all.addAll(table.indexes.values());
        for (List<String> idx : all) {
            int n = 0;
            while (n < idx.size() && fixed.containsKey(idx.get(n))) {
                n++;
            }
            if (n > bestLength) {
                best = idx;
                bestLength = n;
            }
        }
        return best;
    }

    private List<List<Object>> candidates(Map<String, Object> fixed, List<String> index) {
        List<List<Object>> out = new ArrayList<>();
        for (Map.Entry<List<Object>, Tables.Row> e : table.rows.entrySet()) {
            if (index == null || matches(e.getValue().current, fixed, index) || matches(e.getValue().committed, fixed, index)) {
                out.add(e.getKey());
            }
        }
        if (index != null && index != table.key) {
            out.sort((a, b) -> {
                int c = Tables.KEY_ORDER.compare(project(table.rows.get(a), index), project(table.rows.get(b), index));
                return c != 0 ? c : Tables.KEY_ORDER.compare(a, b);
            });
        }
        return out;
    }

    private static boolean matches(Map<String, Object> values, Map<String, Object> fixed, List<String> index) {
        if (values == null) {
            return false;
        }
        for (String c : index) {
            if (!fixed.containsKey(c)) {
                break;
            }
            if (!Boolean.TRUE.equals(Expressions.equal(values.get(c), fixed.get(c)))) {
                return false;
            }
        }
        return true;
    }

    private static List<Object> project(Tables.Row r, List<String> index) {
        Map<String, Object> v = r.current != null ? r.current : r.committed;
        List<Object> out = new ArrayList<>();
        for (String c : index) {
            out.add(v == null ? null : v.get(c));
        }
        return out;
    }

    /** What this statement sees of a row it may read, or null (invisible). */
    private Map<String, Object> visible(Tables.Row r, boolean locked) {
        if (table.variable || dirty() || locked || r.writer == ctx.session.id) {
            return r.current;
        }
        return versioned() ? r.committed : r.current;
    }

    // ---- SELECT -----------------------------------------------------------------------------------------

    /** The rows a read returns (up to {@code top}), taking its locks; null when the model cannot decide the WHERE. */
    List<Map<String, Object>> read(int[] where, Long top) throws SQLException {
        Conditions c = conditions(where);
        List<String> index = seekIndex(c.fixed());
        boolean locking = !table.variable && !dirty() && !versioned();
        Locks.Mode mode = readMode();
        boolean held = readHeld();
        List<Map<String, Object>> out = new ArrayList<>();
        List<List<Object>> keys = candidates(c.fixed(), index);
        boolean cut = false;
        for (List<Object> key : keys) {
            if (top != null && out.size() >= top) {
                cut = true;
                break;
            }
            Tables.Row r = table.rows.get(key);
            if (r == null) {
                continue;
            }
            if (locking && !lock(key, mode, held)) {
                continue; // READPAST
            }
            Map<String, Object> values = visible(r, locking);
            if (values == null) {
                continue;
            }
            Object scan = test(c.scan(), values);
            if (scan == Expressions.UNKNOWN) {
                return null;
            }
            if (!(Boolean) scan) {
                if (locking && !serializable()) {
                    ctx.model.waits.unlock(ctx, new Locks.Resource(table.name, Tables.Table.render(key)), mode);
                }
                continue;
            }
            Object above = test(c.above(), values);
            if (above == Expressions.UNKNOWN) {
                return null;
            }
            if ((Boolean) above) {
                out.add(values);
            }
        }
        if (locking && serializable() && !cut && (index == null || index == table.key)) {
            rangeEnd(c.fixed(), keys, mode);
        }
        return out;
    }

    /** The key-range lock on the entry after what a serializable read covered (a missing key's next entry). */
    private void rangeEnd(Map<String, Object> fixed, List<List<Object>> keys, Locks.Mode mode) throws SQLException {
        List<Object> after;
        if (keys.isEmpty()) {
            List<Object> sought = new ArrayList<>();
            for (String k : table.key) {
                sought.add(fixed.get(k));
            }
            boolean full = fixed.keySet().containsAll(table.key);
            after = full ? table.rows.higherKey(sought) : prefixNext(fixed);
        } else {
            after = table.rows.higherKey(keys.get(keys.size() - 1));
        }
        lock(after, mode, true);
    }

    private List<Object> prefixNext(Map<String, Object> fixed) {
        for (List<Object> k : table.rows.keySet()) {
            int c = 0;
            for (int i = 0; i < table.key.size() && c == 0 && fixed.containsKey(table.key.get(i)); i++) {
                Integer x = Expressions.compare(k.get(i), fixed.get(table.key.get(i)));
                c = x == null ? 0 : x;
            }
            if (c > 0) {
                return k;
            }
        }
        return null;
    }

    // ---- UPDATE and DELETE -------------------------------------------------------------------------------

    /**
     * Changes the rows the WHERE selects (up to {@code top}): {@code change} gives a row's new values, or null
     * to delete it. Returns [old, new] per changed row, or null when the model cannot decide the WHERE.
     */
    List<Map<String, Object>[]> update(int[] where, Long top, UnaryOperator<Map<String, Object>> change) throws SQLException {
        Conditions c = conditions(where);
        List<String> index = seekIndex(c.fixed());
        List<Map<String, Object>[]> out = new ArrayList<>();
        for (List<Object> key : candidates(c.fixed(), index)) {
            if (top != null && out.size() >= top) {
                break;
            }
            Tables.Row r = table.rows.get(key);
            if (r == null || !lock(key, Locks.Mode.U, true)) {
                continue;
            }
            Map<String, Object> values = r.current;
            Object ok = values == null ? Boolean.FALSE : test(c.scan(), values);
            Object above = Boolean.TRUE.equals(ok) ? test(c.above(), values) : ok;
            if (ok == Expressions.UNKNOWN || above == Expressions.UNKNOWN) {
                return null;
            }
            if (!(Boolean) above) {
                ctx.model.waits.unlock(ctx, new Locks.Resource(table.name, Tables.Table.render(key)), Locks.Mode.U);
                continue;
            }
            Map<String, Object> next = change.apply(values);
            if (next != null && next.containsValue(Expressions.UNKNOWN) && !table.variable) {
                return null;
            }
            lock(key, Locks.Mode.X, true);
            write(key, r, next);
            @SuppressWarnings("unchecked")
            Map<String, Object>[] pair = new Map[] {values, next};
            out.add(pair);
        }
        return out;
    }

    private void write(List<Object> key, Tables.Row r, Map<String, Object> next) {
        if (table.variable) {
            if (next == null) {
                table.rows.remove(key);
            } else {
                r.current = next;
                r.committed = next;
            }
            return;
        }
        Map<String, Object> before = r.current;
        int writerBefore = r.writer;
        r.current = next;
        r.writer = ctx.session.id;
        ctx.change(next == null ? "DELETE" : "UPDATE", table.name + " " + key, () -> {
            r.current = before;
            r.writer = writerBefore;
        }, () -> commit(key, r));
    }

    private void commit(List<Object> key, Tables.Row r) {
        r.writer = 0;
        r.committed = r.current;
        if (r.current == null && table.rows.get(key) == r) {
            table.rows.remove(key);
        }
    }

    // ---- INSERT ---------------------------------------------------------------------------------------------

    /** Inserts one row (defaults filled in); returns the values inserted. */
    Map<String, Object> insert(Map<String, Object> given) throws SQLException {
        Map<String, Object> values = new HashMap<>(given);
        for (String c : table.defaultNow) {
            values.putIfAbsent(c, ctx.model.now());
        }
        List<Object> key = table.keyOf(values);
        while (true) {
            Tables.Row existing = table.rows.get(key);
            if (existing != null && !table.variable && !lock(key, Locks.Mode.X, true)) {
                continue;
            }
            if (existing != null && existing.current != null) {
                throw new SQLException("Violation of PRIMARY KEY constraint 'PK_" + table.name + "'. Cannot insert duplicate key in object '"
                        + table.name + "'. The duplicate key value is " + key + ".", "23000", 2627);
            }
            break;
        }
        for (Map.Entry<String, List<String>> idx : table.indexes.entrySet()) {
            if (Boolean.TRUE.equals(table.uniqueIndexes.get(idx.getKey()))) {
                unique(idx.getKey(), idx.getValue(), values);
            }
        }
        if (!table.variable) {
            lock(table.rows.higherKey(key), Locks.Mode.RANGE_I_N, false);
            lock(key, Locks.Mode.X, true);
        }
        Tables.Row before = table.rows.get(key);
        Tables.Row row = new Tables.Row(table.variable ? values : null, values, table.variable ? 0 : ctx.session.id);
        table.rows.put(key, row);
        if (!table.variable) {
            ctx.change("INSERT", table.name + " " + key, () -> {
                if (before == null) {
                    table.rows.remove(key);
                } else {
                    table.rows.put(key, before);
                }
            }, () -> commit(key, row));
        }
        return values;
    }

    private void unique(String name, List<String> columns, Map<String, Object> values) throws SQLException {
        for (Map.Entry<List<Object>, Tables.Row> e : table.rows.entrySet()) {
            Map<String, Object> other = e.getValue().current;
            boolean same = other != null;
            for (String c : columns) {
                same &= other != null && Boolean.TRUE.equals(Expressions.equal(other.get(c), values.get(c)));
            }
            if (same) {
                lock(e.getKey(), Locks.Mode.S, false);
                throw new SQLException("Cannot insert duplicate key row in object '" + table.name + "' with unique index '" + name
                        + "'.", "23000", 2601);
            }
        }
    }
}
