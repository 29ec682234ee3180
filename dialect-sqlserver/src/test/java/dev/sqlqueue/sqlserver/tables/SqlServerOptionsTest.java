package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import org.junit.jupiter.api.Test;

class SqlServerOptionsTest {
    private static QueueConfig.Builder cfg() {
        return QueueConfig.builder().url("jdbc:sqlserver://localhost");
    }

    @Test
    void defaults() {
        assertEquals(SqlServerOptions.defaults(), SqlServerOptions.from(cfg().build()));
    }

    @Test
    void everyValueIsRead() {
        SqlServerOptions o = SqlServerOptions.from(cfg().option("ordering", "priority-first").option("layout", "heap")
                .option("schema", "queues").option("deadlock-retries", "0").build());
        assertEquals(new SqlServerOptions(ClaimOrder.PRIORITY_FIRST, Layout.HEAP, "queues", 0), o);
        assertEquals(ClaimOrder.LIFO, SqlServerOptions.from(cfg().option("ordering", "lifo").build()).ordering());
    }

    @Test
    void badValuesNameTheirRule() {
        assertRule("option.ordering", cfg().option("ordering", "FIFO"));
        assertRule("option.layout", cfg().option("layout", "columnstore"));
        assertRule("option.schema", cfg().option("schema", "dbo]; DROP"));
        assertRule("option.deadlock-retries", cfg().option("deadlock-retries", "21"));
        assertRule("option.deadlock-retries", cfg().option("deadlock-retries", "x"));
        assertRule("option.unknown", cfg().option("orderin", "fifo"));
    }

    private static void assertRule(String rule, QueueConfig.Builder b) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlServerOptions.from(b.build()));
        assertEquals(rule, e.rule());
        assertTrue(e.getMessage().contains(rule));
    }
}
