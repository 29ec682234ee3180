package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Flyway migration script against the statements: every placeholder is supplied, and the claim
 * index has exactly the claim's equality column and ORDER BY key. Text only; Flyway itself is not run
 * here (there is no SQL Server).
 */
class MigrationScriptTest {
    private static final String[] SCRIPTS = {"V1__queue_tables.sql", "V2__queue_dropping.sql", "V3__deduplication_keys.sql",
        "V4__queue_pausing.sql", "V5__history_payload_preview.sql"};

    /** Every migration script, in version order, joined. */
    private static String script() throws IOException {
        StringBuilder all = new StringBuilder();
        for (String name : SCRIPTS) {
            try (InputStream in = MigrationScriptTest.class.getResourceAsStream("/db/sqlqueue/sqlserver-tables/" + name)) {
                assertNotNull(in, name + " on the class path");
                all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            }
        }
        return all.toString();
    }

    /** Review finding 4: the queue row carries a dropping flag, off by default, that enqueue filters on. */
    @Test
    void queuesHaveADroppingFlagOffByDefault() throws IOException {
        String ddl = fill(script(), new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO).placeholders(Layout.CLUSTERED));
        assertTrue(ddl.contains("ALTER TABLE [dbo].[sqlq_queues] ADD [dropping] bit NOT NULL CONSTRAINT "
                + "[sqlq_queues_dropping_default] DEFAULT (0);"), ddl);
    }

    private static String fill(String text, Map<String, String> p) {
        for (Map.Entry<String, String> e : p.entrySet()) {
            text = text.replace("${" + e.getKey() + "}", e.getValue());
        }
        return text;
    }

    @Test
    void placeholdersUsedAndSuppliedAreTheSame() throws IOException {
        Set<String> used = new TreeSet<>();
        Matcher m = Pattern.compile("\\$\\{([a-z_]+)}").matcher(script());
        while (m.find()) {
            used.add(m.group(1));
        }
        Map<String, String> supplied = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO).placeholders(Layout.CLUSTERED);
        assertEquals(new TreeSet<>(supplied.keySet()), used);
    }

    @Test
    void claimIndexMatchesTheClaimForEveryOrdering() throws IOException {
        for (ClaimOrder order : ClaimOrder.values()) {
            SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", order);
            String ddl = fill(script(), sql.placeholders(Layout.CLUSTERED));
            Matcher idx = Pattern.compile("CREATE NONCLUSTERED INDEX \\[sqlq_messages_claim] ON \\[dbo]\\.\\[sqlq_messages] \\((.*)\\);")
                    .matcher(ddl);
            assertTrue(idx.find(), order + ": claim index present");
            Matcher claim = Pattern.compile("WHERE \\[queue_name] = \\? AND \\[visible_at] <= SYSUTCDATETIME\\(\\)"
                    + " AND NOT EXISTS \\(SELECT 1 FROM \\[dbo]\\.\\[sqlq_queues] AS \\[p] WHERE \\[p]\\.\\[paused] = 1"
                    + " AND \\[p]\\.\\[name] = \\[queue_name]\\) ORDER BY (.*)\\) UPDATE")
                    .matcher(sql.get("claim"));
            assertTrue(claim.find());
            assertEquals("[queue_name], " + claim.group(1), idx.group(1), order + ": index = equality column + ORDER BY");
            assertTrue(ddl.contains("(N'ordering', N'" + order.key() + "')"), "ordering recorded in the settings table");
        }
    }

    @Test
    void layoutDecidesTheKindOfPrimaryKey() throws IOException {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        String heap = fill(script(), sql.placeholders(Layout.HEAP));
        String clustered = fill(script(), sql.placeholders(Layout.CLUSTERED));
        assertTrue(heap.contains("CONSTRAINT [sqlq_messages_pk] PRIMARY KEY NONCLUSTERED ([id])"));
        assertTrue(clustered.contains("CONSTRAINT [sqlq_messages_pk] PRIMARY KEY CLUSTERED ([id])"));
        assertFalse(heap.contains("${"));
    }

    @Test
    void columnTypesFollowTheNotes() throws IOException {
        String s = script();
        assertTrue(s.contains("[id]          bigint IDENTITY(1,1) NOT NULL"));
        assertTrue(s.contains("[payload]     varbinary(max) NOT NULL"));
        assertTrue(s.contains("[headers]     nvarchar(max) NOT NULL"));
        assertTrue(s.contains("[duration_ms] AS DATEDIFF_BIG(millisecond, [started_at], [finished_at])"));
        assertFalse(s.matches("(?s).*\\bdatetime\\b[^2].*"), "no datetime columns, only datetime2");
    }
}
