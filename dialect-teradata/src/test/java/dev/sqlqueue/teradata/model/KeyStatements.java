package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statement forms of the deduplication keys table that {@link ModelStatements} does not read: a
 * DELETE by key and expiry, an UPDATE by key, a DELETE of every expired key, and a MERGE that inserts a
 * key unless it is there. Locks as SQL Request and Transaction Processing, "DML Requests and Locks"
 * gives them: a condition on the unique primary index locks a row hash (WRITE for DELETE, UPDATE and
 * MERGE: "the default lock severity for these statements is WRITE", SQL DML, "LOCKING Request Modifier Use
 * With DML Statements"); any other condition locks the table. MERGE follows SQL DML, "MERGE": the ON
 * clause names the target's primary index; a source row that matches a target row is not inserted
 * (activity count 0), one that does not is inserted (count 1), so a taken key raises no error.
 * Character keys compare without trailing blanks (Rule K). Called with the model's monitor held.
 */
final class KeyStatements {
    private static final String T = "\"([^\"]+)\"\\.\"([^\"]+)\"";
    private static final Pattern DELETE_BY_KEY_AND_EXPIRY = Pattern.compile("DELETE FROM " + T
            + " WHERE (\\w+) = \\? AND (\\w+) <= CURRENT_TIMESTAMP\\(6\\)");
    private static final Pattern DELETE_EXPIRED = Pattern.compile("DELETE FROM " + T + " WHERE (\\w+) <= CURRENT_TIMESTAMP\\(6\\)");
    private static final Pattern UPDATE_BY_KEY = Pattern.compile("UPDATE " + T + " SET (\\w+) = \\? WHERE (\\w+) = \\?");
    private static final Pattern MERGE = Pattern.compile("MERGE INTO " + T + " AS t USING VALUES \\((.+)\\) AS s \\((\\w+), (\\w+)\\)"
            + " ON t\\.(\\w+) = s\\.(\\w+) WHEN NOT MATCHED THEN INSERT \\((\\w+), (\\w+)\\) VALUES \\(s\\.(\\w+), s\\.(\\w+)\\)");

    private KeyStatements() {
    }

    /** The answer, or null when {@code sql} is none of these forms. */
    static TeradataModel.Answer run(TeradataModel m, ModelSession s, String sql, List<Object> p) throws SQLException {
        Matcher x;
        if ((x = TeradataModel.match(DELETE_BY_KEY_AND_EXPIRY, sql)) != null) {
            ModelTable t = m.table(x.group(1), x.group(2));
            return delete(m, s, t, x.group(3), p.get(0), x.group(4));
        }
        if ((x = TeradataModel.match(DELETE_EXPIRED, sql)) != null) {
            ModelTable t = m.table(x.group(1), x.group(2));
            return delete(m, s, t, null, null, x.group(3));
        }
        if ((x = TeradataModel.match(UPDATE_BY_KEY, sql)) != null) {
            return update(m, s, m.table(x.group(1), x.group(2)), x.group(3), p.get(0), x.group(4), p.get(1));
        }
        if ((x = TeradataModel.match(MERGE, sql)) != null) {
            return merge(m, s, m.table(x.group(1), x.group(2)), x, p);
        }
        return null;
    }

    private static TeradataModel.Answer delete(TeradataModel m, ModelSession s, ModelTable t, String keyColumn, Object key,
                                               String expiryColumn) throws SQLException {
        boolean byPrimaryIndex = keyColumn != null && keyColumn.equals(t.primaryIndex);
        m.lock(s, t, byPrimaryIndex ? key : null, true);
        LocalDateTime now = m.now();
        int n = 0;
        for (ModelTable.Row r : t.visibleTo(s, false)) {
            boolean keyMatches = keyColumn == null || TeradataModel.sameRow(r.get(keyColumn), key);
            if (keyMatches && ((LocalDateTime) r.get(expiryColumn)).compareTo(now) <= 0) {
                r.deletedBy = s;
                s.requestUndo.add(() -> r.deletedBy = null);
                n++;
            }
        }
        return TeradataModel.Answer.count(n);
    }

    private static TeradataModel.Answer update(TeradataModel m, ModelSession s, ModelTable t, String column, Object value,
                                               String keyColumn, Object key) throws SQLException {
        m.lock(s, t, keyColumn.equals(t.primaryIndex) ? key : null, true);
        int n = 0;
        for (ModelTable.Row r : t.visibleTo(s, false)) {
            if (TeradataModel.sameRow(r.get(keyColumn), key)) {
                Object before = r.values.get(column);
                r.values.put(column, value);
                s.requestUndo.add(() -> r.values.put(column, before));
                n++;
            }
        }
        return TeradataModel.Answer.count(n);
    }

    private static TeradataModel.Answer merge(TeradataModel m, ModelSession s, ModelTable t, Matcher x, List<Object> p)
            throws SQLException {
        String[] sourceColumns = {x.group(4), x.group(5)};
        String[] values = splitTopLevel(x.group(3));
        boolean consistent = values.length == 2 && x.group(6).equals(t.primaryIndex) && x.group(7).equals(sourceColumns[0])
                && x.group(8).equals(sourceColumns[0]) && x.group(9).equals(sourceColumns[1])
                && x.group(10).equals(sourceColumns[0]) && x.group(11).equals(sourceColumns[1]);
        if (!consistent) {
            throw new ModelViolation("unknown MERGE form (the ON clause must name the target's primary index): " + x.group());
        }
        LocalDateTime requestTime = m.now();
        Iterator<Object> params = p.iterator();
        Object key = ModelExpressions.value(values[0], params, requestTime);
        Object expiry = ModelExpressions.value(values[1], params, requestTime);
        m.lock(s, t, key, true);
        for (ModelTable.Row r : t.visibleTo(s, false)) {
            if (TeradataModel.sameRow(r.get(t.primaryIndex), key)) {
                return TeradataModel.Answer.count(0);
            }
        }
        Map<String, Object> given = new java.util.LinkedHashMap<>();
        given.put(x.group(8), key);
        given.put(x.group(9), expiry);
        ModelTable.Row r = new ModelTable.Row();
        for (String col : t.columns) {
            Object v = given.get(col);
            t.checkValue(col, v, s.passThrough);
            r.values.put(col, v);
        }
        r.insertedBy = s;
        t.rows.add(r);
        s.requestUndo.add(() -> t.rows.remove(r));
        return TeradataModel.Answer.count(1);
    }

    /** Splits a value list at its top-level commas (not those inside parentheses). */
    private static String[] splitTopLevel(String list) {
        List<String> out = new java.util.ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < list.length(); i++) {
            char c = list.charAt(i);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            if (c == ',' && depth == 0) {
                out.add(list.substring(from, i).trim());
                from = i + 1;
            }
        }
        out.add(list.substring(from).trim());
        return out.toArray(new String[0]);
    }
}
