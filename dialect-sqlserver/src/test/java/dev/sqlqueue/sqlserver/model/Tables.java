package dev.sqlqueue.sqlserver.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rows of the tables a test asks the model to keep ({@link SqlServerModel#track}) and of table
 * variables. A kept table has a clustered key (its PRIMARY KEY) and may have more indexes; each row has
 * its committed values and, while a transaction changes it, that transaction's values ("Transaction
 * locking and row versioning guide": a writer holds an X lock on the row until its transaction ends; a
 * row-versioning read sees the last committed values). A table variable is not part of any transaction
 * ("DECLARE @local_variable (Transact-SQL)": table variables are not affected by a rollback) and takes no
 * locks. Not thread-safe; the model guards it.
 */
final class Tables {
    /** Orders clustered keys as {@link Expressions#compare} orders values; NULL first. */
    static final Comparator<List<Object>> KEY_ORDER = (a, b) -> {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            Object x = a.get(i);
            Object y = b.get(i);
            if (x == null || y == null) {
                if (x != y) {
                    return x == null ? -1 : 1;
                }
                continue;
            }
            Integer c = Expressions.compare(x, y);
            if (c == null) {
                c = String.valueOf(x).compareTo(String.valueOf(y));
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    };

    /** One row: committed values (null while its insert is uncommitted) and current ones (null once deleted). */
    static final class Row {
        Map<String, Object> committed;
        Map<String, Object> current;
        /** The session with an uncommitted change of this row, or 0. */
        int writer;

        Row(Map<String, Object> committed, Map<String, Object> current, int writer) {
            this.committed = committed;
            this.current = current;
            this.writer = writer;
        }
    }

    /** A kept table or a table variable. */
    static final class Table {
        final String name;
        final List<String> key;
        final Map<String, List<String>> indexes = new LinkedHashMap<>();
        final Map<String, Boolean> uniqueIndexes = new HashMap<>();
        final List<String> defaultNow = new ArrayList<>();
        final boolean variable;
        /** A table variable filled by something the model cannot read: what it holds is unknown. */
        boolean unknown;
        final TreeMap<List<Object>, Row> rows = new TreeMap<>(KEY_ORDER);
        private long counter;

        Table(String name, List<String> key, boolean variable) {
            this.name = name;
            this.key = List.copyOf(key);
            this.variable = variable;
        }

        /** The clustered key of a row's values (a counter for a table without a primary key). */
        List<Object> keyOf(Map<String, Object> values) {
            if (key.isEmpty()) {
                return List.of(++counter);
            }
            List<Object> k = new ArrayList<>();
            for (String c : key) {
                k.add(values.get(c));
            }
            return k;
        }

        /** The clustered key as the model prints it in lock resources: {@code [jobs, a.]}. */
        static String render(List<Object> key) {
            return key.toString();
        }

        /** The first entry after {@code key} in the clustered index, or null for the end of the index. */
        List<Object> next(List<Object> key) {
            return rows.higherKey(key);
        }
    }

    private final Map<String, Table> tables = new LinkedHashMap<>();

    /** A table's name as the model keys it: lower case, without brackets, schema dbo when none is given. */
    static String canonical(String name) {
        String n = name.replace("[", "").replace("]", "").toLowerCase(Locale.ROOT);
        if (n.startsWith("@")) {
            return n;
        }
        return n.contains(".") ? n : "dbo." + n;
    }

    /** A table variable ({@code DECLARE @t TABLE (...)}). */
    static Table variable(String name, List<String> key) {
        return new Table(name.toLowerCase(Locale.ROOT), key.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList(), true);
    }

    Table track(String name, List<String> key) {
        Table t = new Table(canonical(name), key.stream().map(c -> c.toLowerCase(Locale.ROOT)).toList(), false);
        tables.put(t.name, t);
        return t;
    }

    /** The kept table of that name, or null. */
    Table get(String name) {
        return tables.get(canonical(name));
    }
}
