package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statement forms the model understands, matched by pattern, and what each does to tables, locks
 * and transactions. Called with the model's monitor held.
 */
final class ModelStatements {
    private static final String T = "\"([^\"]+)\"\\.\"([^\"]+)\"";
    private static final Pattern CREATE = Pattern.compile("CREATE MULTISET TABLE " + T
            + "(, QUEUE)?, (NO )?FALLBACK \\(\\n(.*)\\n\\) (UNIQUE )?PRIMARY INDEX \\((\\w+)\\)(.*)", Pattern.DOTALL);
    private static final Pattern DROP = Pattern.compile("DROP TABLE " + T);
    private static final Pattern TABLES_V = Pattern.compile("SELECT (1|TableName) FROM DBC\\.TablesV WHERE (.+?)( ORDER BY TableName)?");
    private static final Pattern CONDITION = Pattern.compile("(UPPER\\()?(DatabaseName|TableName)\\)? (=|LIKE) (UPPER\\()?\\?\\)?( ESCAPE '\\\\')?");
    private static final Pattern ACCESS = Pattern.compile("LOCKING TABLE " + T + " FOR ACCESS (SELECT .*)", Pattern.DOTALL);
    /** LOCKING TABLE ... FOR WRITE: a table WRITE lock before the request, held to the end of the transaction. */
    private static final Pattern LOCK_WRITE = Pattern.compile("LOCKING TABLE " + T + " FOR WRITE (SELECT .*)", Pattern.DOTALL);
    private static final Pattern CONSUME = Pattern.compile("SELECT AND CONSUME TOP 1 (.+) FROM " + T);
    private static final Pattern SELECT = Pattern.compile("SELECT (TOP (\\d+) )?(.+?) FROM " + T
            + "(?: WHERE (\\w+) (= \\?|<= CURRENT_TIMESTAMP\\(6\\)))?(?: ORDER BY (.+))?");
    private static final Pattern INSERT_VALUES = Pattern.compile("INSERT INTO " + T + " \\((.+?)\\) VALUES \\((.+)\\)");
    private static final Pattern INSERT_SELECT = Pattern.compile("INSERT INTO " + T + " \\((.+?)\\) SELECT (.+) FROM " + T
            + " WHERE (\\w+) = \\?");
    private static final Pattern DELETE = Pattern.compile("DELETE FROM " + T + "(?: WHERE (\\w+) = \\?)?");
    private static final Pattern UPT = Pattern.compile("SET SESSION CHARACTER SET UNICODE PASS THROUGH (ON|OFF)");

    private ModelStatements() {
    }

    static TeradataModel.Answer run(TeradataModel m, ModelSession s, String sql, List<List<Object>> paramRows)
            throws SQLException {
        List<Object> p = paramRows.isEmpty() ? List.of() : paramRows.get(0);
        Matcher x;
        if (sql.equals("SELECT DATABASE")) {
            return one("Database", m.defaultDatabase);
        }
        if (sql.equals("HELP SESSION")) {
            Map<String, String> h = new LinkedHashMap<>(m.helpSession);
            if (!s.ansi && h.containsKey("Transaction Semantics")) {
                h.put("Transaction Semantics", "Teradata");
            }
            return TeradataModel.Answer.rows(List.copyOf(h.keySet()), List.<Object[]>of(h.values().toArray()));
        }
        if (sql.equals("SELECT InfoData FROM DBC.DBCInfoV WHERE InfoKey = 'VERSION'")) {
            return one("InfoData", "17.20.03.01");
        }
        if (sql.equals("SELECT LogonRedrive FROM DBC.SessionInfoV WHERE SessionNo = SESSION")) {
            return one("LogonRedrive", m.logonRedrive);
        }
        if ((x = TeradataModel.match(UPT, sql)) != null) {
            s.passThrough = x.group(1).equals("ON");
            return TeradataModel.Answer.count(0);
        }
        if ((x = TeradataModel.match(CREATE, sql)) != null) {
            return create(m, s, x);
        }
        if ((x = TeradataModel.match(DROP, sql)) != null) {
            String k = SessionRules.objectKey(x.group(1), x.group(2));
            ModelTable t = m.tables.get(k);
            if (t == null) {
                throw new SQLException("[Error 3807] Object '" + x.group(2) + "' does not exist.", "42S02", 3807);
            }
            m.tables.remove(k);
            s.requestUndo.add(() -> m.tables.put(k, t));
            return TeradataModel.Answer.count(0);
        }
        if ((x = TeradataModel.match(TABLES_V, sql)) != null) {
            return dictionary(m, x, p);
        }
        TeradataModel.Answer keyed = KeyStatements.run(m, s, sql, p);
        if (keyed != null) {
            return keyed;
        }
        if ((x = TeradataModel.match(CONSUME, sql)) != null) {
            return consume(m, s, m.table(x.group(2), x.group(3)), x.group(1));
        }
        if ((x = TeradataModel.match(INSERT_VALUES, sql)) != null) {
            return insertValues(m, s, m.table(x.group(1), x.group(2)), x.group(3), x.group(4), paramRows);
        }
        if ((x = TeradataModel.match(INSERT_SELECT, sql)) != null) {
            return insertSelect(m, s, x, p);
        }
        if ((x = TeradataModel.match(DELETE, sql)) != null) {
            return delete(m, s, m.table(x.group(1), x.group(2)), x.group(3), p);
        }
        if ((x = TeradataModel.match(ACCESS, sql)) != null) {
            ModelTable locked = m.table(x.group(1), x.group(2));
            Matcher sel = TeradataModel.match(SELECT, x.group(3));
            if (sel == null || !locked.equals(m.table(sel.group(4), sel.group(5)))) {
                throw new ModelViolation("unknown statement: " + sql);
            }
            return select(m, s, sel, p, true);
        }
        if ((x = TeradataModel.match(LOCK_WRITE, sql)) != null) {
            ModelTable locked = m.table(x.group(1), x.group(2));
            Matcher sel = TeradataModel.match(SELECT, x.group(3));
            if (sel == null || !locked.equals(m.table(sel.group(4), sel.group(5)))) {
                throw new ModelViolation("unknown statement: " + sql);
            }
            m.lock(s, locked, null, true);
            return select(m, s, sel, p, false);
        }
        if ((x = TeradataModel.match(SELECT, sql)) != null) {
            return select(m, s, x, p, false);
        }
        throw new ModelViolation("unknown statement: " + sql);
    }

    private static TeradataModel.Answer one(String label, Object value) {
        return TeradataModel.Answer.rows(List.of(label), List.<Object[]>of(new Object[] {value}));
    }

    private static TeradataModel.Answer create(TeradataModel m, ModelSession s, Matcher x) throws SQLException {
        String k = SessionRules.objectKey(x.group(1), x.group(2));
        if (m.tables.containsKey(k)) {
            throw new SQLException("[Error 3803] Table '" + x.group(2) + "' already exists.", "42S01", 3803);
        }
        Map<String, String> types = new LinkedHashMap<>();
        for (String line : x.group(5).split(",\\n")) {
            String l = line.trim();
            int sp = l.indexOf(' ');
            types.put(l.substring(0, sp), l.substring(sp + 1));
        }
        boolean queue = x.group(3) != null;
        if (queue && !types.keySet().iterator().next().equals("qits")) {
            throw new ModelViolation("a queue table's first column must be its QITS");
        }
        ModelTable t = new ModelTable(m.database(x.group(1)), x.group(2), queue, x.group(7), x.group(6) != null, x.group(4) == null, types);
        m.tables.put(k, t);
        s.requestUndo.add(() -> m.tables.remove(k));
        return TeradataModel.Answer.count(0);
    }

    private static TeradataModel.Answer dictionary(TeradataModel m, Matcher x, List<Object> p) {
        String[] conds = x.group(2).split(" AND ");
        List<Object[]> out = new ArrayList<>();
        List<ModelTable> sorted = new ArrayList<>(m.tables.values());
        sorted.sort(Comparator.comparing(t -> t.name));
        for (ModelTable t : sorted) {
            boolean ok = true;
            for (int i = 0; i < conds.length; i++) {
                Matcher c = TeradataModel.match(CONDITION, conds[i]);
                if (c == null) {
                    throw new ModelViolation("unknown dictionary condition: " + conds[i]);
                }
                boolean upper = c.group(1) != null && c.group(4) != null;
                if (c.group(1) != null ^ c.group(4) != null) {
                    throw new ModelViolation("UPPER on one side only: " + conds[i]);
                }
                String value = c.group(2).equals("DatabaseName") ? t.database : t.name;
                String param = (String) p.get(i);
                ok &= c.group(3).equals("=") ? SessionRules.equalsParameter(value, param, upper)
                        : SessionRules.like(value, param, '\\', upper);
            }
            if (ok) {
                out.add(new Object[] {x.group(1).equals("1") ? (Object) 1 : t.name});
            }
        }
        return TeradataModel.Answer.rows(List.of(x.group(1)), out);
    }

    private static TeradataModel.Answer consume(TeradataModel m, ModelSession s, ModelTable t, String columns)
            throws SQLException {
        if (!t.queue) {
            throw new SQLException("[Error 5826] SELECT AND CONSUME needs a queue table", "HY000", 5826);
        }
        long since = System.currentTimeMillis();
        while (true) {
            TeradataModel.checkOpen(s); // a dropped connection ends the waiting request
            ModelTable.Row oldest = null;
            for (ModelTable.Row r : t.rows) {
                boolean visible = r.deletedBy == null && (r.insertedBy == null || r.insertedBy == s || m.cacheListsUncommitted);
                if (visible && (oldest == null || TeradataModel.FIFO.compare(r, oldest) < 0)) {
                    oldest = r;
                }
            }
            boolean tableLocked = m.locks.stream().anyMatch(l -> l.owner() != s && l.row() == null
                    && l.table().equals(TeradataModel.key(t)));
            if (oldest != null && (oldest.insertedBy == null || oldest.insertedBy == s) && !tableLocked) {
                s.consumes++;
                SessionRules.checkConsumeCount(s.consumes);
                m.locks.add(new TeradataModel.Lock(s, TeradataModel.key(t), oldest.get("seq"), true));
                ModelTable.Row taken = oldest;
                taken.deletedBy = s;
                s.requestUndo.add(() -> taken.deletedBy = null);
                return project(m, t, List.of(taken), columns.split(", "), null);
            }
            if (oldest == null && !s.delayed) {
                long waiting = m.blockedSessions();
                if (waiting >= m.delayLimit) {
                    throw m.abortWith(s, 3128, "Transaction exceeds max. number of Row Hash locks / delayed consumes.");
                }
                s.delayed = true;
            }
            if (oldest != null && oldest.insertedBy != null && oldest.insertedBy != s) {
                m.waitFor(s, oldest.insertedBy, Deadlocks.amp(TeradataModel.key(t), oldest.get("seq"), m.amps), since);
            }
            m.block(s, since, oldest == null ? "SELECT AND CONSUME in the delay state (queue table empty)"
                    : tableLocked ? "SELECT AND CONSUME waits for a table lock"
                    : "SELECT AND CONSUME waits for the row-hash lock of an uncommitted insert by " + oldest.insertedBy);
        }
    }

    private static TeradataModel.Answer insertValues(TeradataModel m, ModelSession s, ModelTable t, String cols, String values,
                                                     List<List<Object>> paramRows) throws SQLException {
        String[] c = cols.split(", ");
        String[] v = values.split(", ");
        if (c.length != v.length) {
            throw new ModelViolation("unknown INSERT form: " + cols + " / " + values);
        }
        LocalDateTime requestTime = m.now();
        List<ModelTable.Row> inserted = new ArrayList<>();
        for (List<Object> params : paramRows) {
            Map<String, Object> given = new LinkedHashMap<>();
            java.util.Iterator<Object> next = params.iterator();
            for (int i = 0; i < c.length; i++) {
                given.put(c[i], ModelExpressions.value(v[i], next, requestTime));
            }
            inserted.add(insertRow(m, s, t, given, requestTime));
        }
        List<Object[]> keys = new ArrayList<>();
        for (ModelTable.Row r : inserted) {
            keys.add(m.keys == TeradataModel.Keys.WHOLE_ROWS ? r.values.values().toArray() : new Object[] {r.get(t.columns.get(1))});
        }
        if (m.keys == TeradataModel.Keys.FIRST_OF_BATCH_ONLY && keys.size() > 1) {
            keys = keys.subList(0, 1);
        }
        if (m.keys == TeradataModel.Keys.BATCH_REVERSED) {
            java.util.Collections.reverse(keys);
        }
        List<String> keyLabels = m.keys == TeradataModel.Keys.WHOLE_ROWS ? t.columns : List.of(t.columns.get(1));
        return new TeradataModel.Answer(null, null, inserted.size(), keys, keyLabels);
    }

    private static ModelTable.Row insertRow(TeradataModel m, ModelSession s, ModelTable t, Map<String, Object> given,
                                            LocalDateTime requestTime) throws SQLException {
        ModelTable.Row r = new ModelTable.Row();
        for (String col : t.columns) {
            Object v;
            if (t.identityColumn(col)) {
                if (given.containsKey(col)) {
                    throw new SQLException("[Error 5788] cannot insert into an identity column GENERATED ALWAYS", "HY000", 5788);
                }
                v = ++t.identity;
            } else if (given.containsKey(col)) {
                v = given.get(col);
            } else if (t.hasDefault(col)) {
                v = t.types.get(col).contains("CURRENT_TIMESTAMP") ? requestTime : 0;
            } else {
                v = null;
            }
            t.checkValue(col, v, s.passThrough);
            r.values.put(col, v instanceof byte[] b ? b.clone() : v);
        }
        m.lock(s, t, r.get(t.primaryIndex), true);
        if (t.uniquePrimaryIndex && !t.identityColumn(t.primaryIndex)) {
            for (ModelTable.Row other : t.visibleTo(s, false)) {
                if (TeradataModel.sameRow(other.get(t.primaryIndex), r.get(t.primaryIndex))) {
                    // a UPI duplicate; in ANSI mode it undoes the request only ("ANSI Mode Transactions")
                    throw new SQLException("[Teradata Database] [Error 2801] Duplicate unique prime key error in "
                            + t.database + "." + t.name + ".", "23000", 2801);
                }
            }
        }
        r.insertedBy = s;
        t.rows.add(r);
        s.requestUndo.add(() -> t.rows.remove(r));
        m.monitor.notifyAll();
        return r;
    }

    private static TeradataModel.Answer insertSelect(TeradataModel m, ModelSession s, Matcher x, List<Object> p)
            throws SQLException {
        ModelTable target = m.table(x.group(1), x.group(2));
        ModelTable source = m.table(x.group(5), x.group(6));
        m.lock(s, source, null, false);
        m.lock(s, target, null, true);
        String[] cols = x.group(3).split(", ");
        String[] exprs = x.group(4).split(", ");
        LocalDateTime requestTime = m.now();
        int n = 0;
        for (ModelTable.Row r : source.visibleTo(s, false)) {
            if (r.get(x.group(7)).equals(p.get(0))) {
                Map<String, Object> given = new LinkedHashMap<>();
                for (int i = 0; i < cols.length; i++) {
                    given.put(cols[i], exprs[i].matches("\\d+") ? Integer.parseInt(exprs[i]) : r.get(exprs[i]));
                }
                insertRow(m, s, target, given, requestTime);
                n++;
            }
        }
        return TeradataModel.Answer.count(n);
    }

    private static TeradataModel.Answer delete(TeradataModel m, ModelSession s, ModelTable t, String column, List<Object> p)
            throws SQLException {
        boolean byPrimaryIndex = column != null && column.equals(t.primaryIndex);
        m.lock(s, t, byPrimaryIndex ? p.get(0) : null, true);
        int n = 0;
        for (ModelTable.Row r : t.visibleTo(s, false)) {
            if (column == null || (r.get(column) != null && TeradataModel.sameRow(r.get(column), p.get(0)))) {
                r.deletedBy = s;
                s.requestUndo.add(() -> r.deletedBy = null);
                n++;
            }
        }
        return TeradataModel.Answer.count(n);
    }

    private static TeradataModel.Answer select(TeradataModel m, ModelSession s, Matcher x, List<Object> p, boolean access)
            throws SQLException {
        ModelTable t = m.table(x.group(4), x.group(5));
        String where = x.group(6);
        boolean equality = where != null && x.group(7).equals("= ?");
        if (!access) {
            boolean byPrimaryIndex = equality && where.equals(t.primaryIndex);
            m.lock(s, t, byPrimaryIndex ? p.get(0) : null, false);
        }
        LocalDateTime now = m.now();
        List<ModelTable.Row> rows = new ArrayList<>();
        for (ModelTable.Row r : t.visibleTo(s, access)) {
            Object v = where == null ? null : r.get(where);
            if (where == null || (equality ? v != null && TeradataModel.sameRow(v, p.get(0))
                    : ((LocalDateTime) v).compareTo(now) <= 0)) {
                rows.add(r);
            }
        }
        String order = x.group(8);
        if (order != null) {
            Comparator<ModelTable.Row> cmp = null;
            for (String col : order.split(", ")) {
                @SuppressWarnings({"unchecked", "rawtypes"})
                Comparator<ModelTable.Row> c = Comparator.comparing(r -> (Comparable) r.get(col));
                cmp = cmp == null ? c : cmp.thenComparing(c);
            }
            rows.sort(cmp);
        }
        Integer top = x.group(2) == null ? null : Integer.parseInt(x.group(2));
        return project(m, t, rows, x.group(3).split(", "), top);
    }

    private static TeradataModel.Answer project(TeradataModel m, ModelTable t, List<ModelTable.Row> rows, String[] exprs,
                                                Integer top) {
        boolean aggregate = Arrays.stream(exprs).anyMatch(e -> e.startsWith("COUNT(") || e.contains("MIN("));
        List<Object[]> out = new ArrayList<>();
        LocalDateTime now = m.now();
        if (aggregate) {
            Object[] row = new Object[exprs.length];
            for (int i = 0; i < exprs.length; i++) {
                row[i] = eval(m, t, exprs[i], rows, null, now);
            }
            out.add(row);
        } else {
            for (ModelTable.Row r : rows) {
                if (top != null && out.size() >= top) {
                    break;
                }
                Object[] row = new Object[exprs.length];
                for (int i = 0; i < exprs.length; i++) {
                    row[i] = eval(m, t, exprs[i], rows, r, now);
                }
                out.add(row);
            }
        }
        return TeradataModel.Answer.rows(List.of(exprs), out);
    }

    private static Object eval(TeradataModel m, ModelTable t, String e, List<ModelTable.Row> rows, ModelTable.Row r,
                               LocalDateTime now) {
        switch (e) {
            case "COUNT(*)":
                return (long) rows.size();
            case "CURRENT_TIMESTAMP(6)":
                return m.nowWithZone(now);
            case "CAST(CURRENT_TIMESTAMP(6) AS TIMESTAMP(6))":
                return now;
            default:
                break;
        }
        Matcher text = ModelExpressions.TIMESTAMP_TEXT.matcher(e);
        if (text.matches()) {
            Object v = eval(m, t, text.group(1), rows, r, now);
            if (v instanceof OffsetDateTime) {
                throw new ModelViolation("how a FORMAT without a time zone renders a TIMESTAMP WITH TIME ZONE is not in"
                        + " the pages the model follows: " + e);
            }
            return ModelExpressions.text((LocalDateTime) v);
        }
        if (e.startsWith("MIN(")) {
            String col = e.substring(4, e.length() - 1);
            return rows.stream().map(x -> (LocalDateTime) x.get(col)).min(Comparator.naturalOrder()).orElse(null);
        }
        if (!t.columns.contains(e)) {
            throw new ModelViolation("unknown column or expression " + e + " in " + t.name);
        }
        Object v = r.get(e);
        return v instanceof byte[] b ? b.clone() : v;
    }
}
