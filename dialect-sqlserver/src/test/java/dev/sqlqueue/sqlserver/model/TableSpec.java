package dev.sqlqueue.sqlserver.model;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A table the model keeps ({@link SqlServerModel#track}): its further indexes, the columns with
 * {@code DEFAULT SYSUTCDATETIME()}, and committed rows a test puts there first. Thread-safe under the
 * model's lock.
 */
public final class TableSpec {
    private final SqlServerModel model;
    private final Tables.Table table;

    TableSpec(SqlServerModel model, Tables.Table table) {
        this.model = model;
        this.table = table;
    }

    /** A nonclustered index (a seek on its leading columns reads only the rows that match them). */
    public TableSpec index(String name, String... columns) {
        synchronized (model) {
            table.indexes.put(name, List.of(columns).stream().map(c -> c.toLowerCase(Locale.ROOT)).toList());
        }
        return this;
    }

    /** A unique nonclustered index: a second row with the same values is error 2601. */
    public TableSpec uniqueIndex(String name, String... columns) {
        synchronized (model) {
            index(name, columns);
            table.uniqueIndexes.put(name, true);
        }
        return this;
    }

    /** A column with {@code DEFAULT SYSUTCDATETIME()}. */
    public TableSpec defaultNow(String column) {
        synchronized (model) {
            table.defaultNow.add(column.toLowerCase(Locale.ROOT));
        }
        return this;
    }

    /** A committed row: column, value, column, value, ... */
    public TableSpec row(Object... columnsAndValues) {
        synchronized (model) {
            Map<String, Object> values = new HashMap<>();
            for (int i = 0; i < columnsAndValues.length; i += 2) {
                values.put(((String) columnsAndValues[i]).toLowerCase(Locale.ROOT), columnsAndValues[i + 1]);
            }
            for (String c : table.defaultNow) {
                values.putIfAbsent(c, model.now());
            }
            table.rows.put(table.keyOf(values), new Tables.Row(values, values, 0));
        }
        return this;
    }
}
