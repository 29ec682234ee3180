package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Admin calls are idempotent (issue 31, point 7): {@code dropSchema()} on a database where the prefix has
 * no table at all, on a half-created schema (some tables of the prefix missing), and twice in a row,
 * ends without error and leaves no table of the prefix; {@code migrate} and {@code createQueue} twice
 * change nothing. On H2 {@code dropSchema()} on an empty database failed with
 * {@code Table "..._dedupe_key" not found}.
 */
class AdminIdempotenceOnServerTest {

    private static String prefix() {
        return "ai" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffL) + "_";
    }

    private static QueueConfig config(StatementsOnServerTest.Server s, String prefix, boolean migrate) {
        return QueueConfig.builder().url(s.url()).user(s.user()).password(s.password()).tablePrefix(prefix)
                .migrate(migrate).build();
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void dropSchemaOnADatabaseWithoutThePrefixsTables(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = prefix();
        try (SqlQueue q = SqlQueue.open(config(s, prefix, false))) {
            q.dropSchema();
            q.dropSchema();
        }
        assertEquals(List.of(), tables(s, prefix), d + ": nothing of the prefix was created");
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void dropSchemaTwiceAfterAFullSchema(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = prefix();
        QueueName jobs = QueueName.of("jobs");
        try (SqlQueue q = SqlQueue.open(config(s, prefix, true))) {
            q.migrate();
            q.createQueue(jobs);
            q.createQueue(jobs);
            q.enqueue(jobs, Message.ofText("a"));
            assertEquals(List.of(jobs), q.queues(), d + ": createQueue twice makes one queue");
            assertEquals(1, q.stats(jobs).ready());
            q.dropSchema();
            assertEquals(List.of(), tables(s, prefix), d + ": the first drop removes every table");
            q.dropSchema();
        }
        assertEquals(List.of(), tables(s, prefix), d.toString());
    }

    @ParameterizedTest
    @EnumSource(SkipLockedDialect.class)
    void dropSchemaOfAHalfCreatedSchema(SkipLockedDialect d) throws Exception {
        StatementsOnServerTest.Server s = StatementsOnServerTest.server(d);
        String prefix = prefix();
        try (SqlQueue q = SqlQueue.open(config(s, prefix, true))) {
            q.createQueue(QueueName.of("jobs"));
        }
        List<String> all = tables(s, prefix);
        assertEquals(7, all.size(), d + ": the schema's tables " + all);
        // a schema whose creation stopped half-way: the tables created last are missing
        for (String t : List.of("paused_queue", "dedupe_key", "history", "dead_letter")) {
            exec(s, "drop table " + quote(d, prefix + t));
        }
        try (SqlQueue q = SqlQueue.open(config(s, prefix, false))) {
            q.dropSchema();
            q.dropSchema();
        }
        assertEquals(List.of(), tables(s, prefix), d.toString());
    }

    private static String quote(SkipLockedDialect d, String name) {
        return d == SkipLockedDialect.MARIADB ? "`" + name + "`" : "\"" + name + "\"";
    }

    private static void exec(StatementsOnServerTest.Server s, String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(s.url(), s.user(), s.password()); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** The tables whose name starts with the prefix, in the connection's current schema or database. */
    static List<String> tables(StatementsOnServerTest.Server s, String prefix) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(s.url(), s.user(), s.password());
             ResultSet rs = c.getMetaData().getTables(c.getCatalog(), null, "%", new String[] {"TABLE"})) {
            while (rs.next()) {
                String name = rs.getString("TABLE_NAME");
                if (name.toLowerCase(Locale.ROOT).startsWith(prefix)) {
                    out.add(name);
                }
            }
        }
        return out;
    }
}
