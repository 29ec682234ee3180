package dev.sqlqueue.teradata.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One table of the model: its DDL facts and its rows. Guarded by the model's monitor. */
final class ModelTable {
    /** One row; {@code insertedBy}/{@code deletedBy} name the open transaction that wrote it, or null once committed. */
    static final class Row {
        final Map<String, Object> values = new LinkedHashMap<>();
        ModelSession insertedBy;
        ModelSession deletedBy;

        Object get(String column) {
            return values.get(column);
        }
    }

    final String database;
    final String name;
    final boolean queue;
    final String primaryIndex;
    final boolean uniquePrimaryIndex;
    final boolean fallback;
    final List<String> columns;
    final Map<String, String> types;
    final List<Row> rows = new ArrayList<>();
    long identity;

    ModelTable(String database, String name, boolean queue, String primaryIndex, boolean uniquePrimaryIndex,
               boolean fallback, Map<String, String> types) {
        this.database = database;
        this.name = name;
        this.queue = queue;
        this.primaryIndex = primaryIndex;
        this.uniquePrimaryIndex = uniquePrimaryIndex;
        this.fallback = fallback;
        this.types = types;
        this.columns = List.copyOf(types.keySet());
    }

    boolean unicode(String column) {
        return types.getOrDefault(column, "").contains("CHARACTER SET UNICODE");
    }

    /** The declared length of a VARCHAR or VARBYTE column, or -1. */
    int length(String column) {
        String t = types.getOrDefault(column, "");
        int open = t.indexOf('(');
        if ((t.startsWith("VARCHAR") || t.startsWith("VARBYTE")) && open > 0) {
            return Integer.parseInt(t.substring(open + 1, t.indexOf(')')));
        }
        return -1;
    }

    /**
     * Checks a value for a column as an INSERT does: NOT NULL (3604), rule U for UNICODE columns (6706),
     * the declared length (3996, ANSI mode refuses a longer string).
     */
    void checkValue(String column, Object v, boolean passThrough) throws java.sql.SQLException {
        if (v == null && notNull(column)) {
            throw new java.sql.SQLException("[Error 3604] Cannot place a null value in a NOT NULL field (" + column + ").",
                    "23000", 3604);
        }
        if (v instanceof String str) {
            if (unicode(column)) {
                SessionRules.checkUnicodeColumn(column, str, passThrough);
            }
            if (str.length() > length(column)) {
                throw new java.sql.SQLException("[Error 3996] Right truncation of string data (" + column + ").", "22001", 3996);
            }
        }
        if (v instanceof byte[] b && b.length > length(column)) {
            throw new java.sql.SQLException("[Error 3996] Right truncation of string data (" + column + ").", "22001", 3996);
        }
    }

    boolean identityColumn(String column) {
        return types.getOrDefault(column, "").contains("GENERATED ALWAYS AS IDENTITY");
    }

    boolean notNull(String column) {
        return types.getOrDefault(column, "").contains("NOT NULL");
    }

    boolean hasDefault(String column) {
        return types.getOrDefault(column, "").contains("DEFAULT");
    }

    /** Rows that a transaction's own view holds: committed ones plus its own inserts, minus deletes it or others made visible to it. */
    List<Row> visibleTo(ModelSession s, boolean dirty) {
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            boolean insertedOk = r.insertedBy == null || r.insertedBy == s || dirty;
            boolean deleted = r.deletedBy != null && (r.deletedBy == s || dirty);
            if (insertedOk && !deleted) {
                out.add(r);
            }
        }
        return out;
    }
}
