package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.conformance.ConformanceTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 31 point 3: a library opened with migrate off on a schema of an earlier release (here: migrated to
 * version 2, what release 2e2e8c0 created) is refused at open, naming the rule, the versions and the command
 * to run, instead of opening and failing later ({@code enqueueDeduplicated} met "..._dedupe_key does not
 * exist"); a schema of a later release is accepted.
 */
class SchemaVersionOnServerTest {
    static Stream<SkipLockedTarget> backends() {
        return Stream.of((SkipLockedTarget) H2ConformanceTest.TARGET, (SkipLockedTarget) PostgresConformanceTest.TARGET,
                (SkipLockedTarget) MariaDbConformanceTest.TARGET);
    }

    static String newPrefix(String stem) {
        return stem + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
    }

    /** Migrates {@code prefix} to {@code version} only, the way an earlier release left it. */
    static void migrateTo(SkipLockedTarget target, String prefix, String version) {
        Flyway.configure()
                .dataSource(target.url, target.user, target.password)
                .locations(target.dialect.migrations())
                .table(SkipLockedStatements.flywayTable(prefix))
                .placeholders(Map.of("prefix", prefix))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .target(version)
                .load()
                .migrate();
    }

    static Message keyed() {
        return Message.builder("x".getBytes(java.nio.charset.StandardCharsets.UTF_8)).deduplicationKey("k").build();
    }

    /** The version a dialect declares it needs is its highest migration script: adding one without it fails here. */
    @org.junit.jupiter.api.Test
    void theRequiredVersionIsTheHighestMigration() throws Exception {
        for (SkipLockedDialect d : SkipLockedDialect.values()) {
            java.net.URL folder = getClass().getClassLoader().getResource(d.migrations().substring("classpath:".length()));
            int highest = 0;
            try (Stream<java.nio.file.Path> files = java.nio.file.Files.list(java.nio.file.Path.of(folder.toURI()))) {
                for (java.nio.file.Path p : (Iterable<java.nio.file.Path>) files::iterator) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("V(\\d+)__.*\\.sql").matcher(p.getFileName().toString());
                    if (m.matches()) {
                        highest = Math.max(highest, Integer.parseInt(m.group(1)));
                    }
                }
            }
            assertEquals(highest, d.schemaVersion(), d.name());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void anOlderSchemaIsRefusedAtOpenWithTheCommandToRun(SkipLockedTarget target) throws Exception {
        String prefix = newPrefix("sv");
        try {
            migrateTo(target, prefix, "2");
            // a history row an earlier release wrote, before history rows had a payload preview (issue 34)
            String history = target.dialect == SkipLockedDialect.MARIADB ? "`" + prefix + "history`" : "\"" + prefix + "history\"";
            try (Connection c = DriverManager.getConnection(target.url, target.user, target.password); Statement st = c.createStatement()) {
                c.setAutoCommit(true);
                st.executeUpdate("INSERT INTO " + history + " (id, queue, enqueued_at, started_at, finished_at, attempts, outcome, detail)"
                        + " VALUES (7, 'jobs', 1, 2, 3, 1, 'acked', 'old')");
            }
            QueueConfig config = target.config(prefix).toBuilder().migrate(false).poolSize(2).build();
            InvalidInputException refused = assertThrows(InvalidInputException.class, () -> {
                try (SqlQueue q = SqlQueue.open(config)) {
                    q.enqueueDeduplicated(QueueName.of("jobs"), keyed());
                }
            });
            assertEquals("schema.version", refused.rule(), refused.getMessage());
            String m = refused.getMessage();
            assertTrue(m.contains("version 2"), m);
            assertTrue(m.contains("needs version " + target.dialect.schemaVersion()), m);
            assertTrue(m.contains("sqlqueue migrate"), m);
            assertTrue(m.contains(prefix), m);

            // after the migration the command names, the same config opens and the feature works
            try (SqlQueue q = SqlQueue.open(config.toBuilder().migrate(true).build())) {
                q.createQueue(QueueName.of("jobs"));
            }
            try (SqlQueue q = SqlQueue.open(config)) {
                EnqueueResult first = q.enqueueDeduplicated(QueueName.of("jobs"), keyed());
                EnqueueResult again = q.enqueueDeduplicated(QueueName.of("jobs"), keyed());
                assertFalse(first.duplicate());
                assertTrue(again.duplicate());
                java.util.List<dev.sqlqueue.HistoryEntry> rows = q.history(QueueName.of("jobs"), 10);
                assertEquals(1, rows.size(), rows::toString);
                assertEquals(7, rows.get(0).messageId());
                assertNull(rows.get(0).payloadPreview(), "a row written before the preview column reads as null");
            }
        } finally {
            target.cleanUp(prefix);
        }
    }

    /** A later release's migration (a version this release does not know) leaves the schema usable by this one. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void aNewerSchemaIsAccepted(SkipLockedTarget target) throws Exception {
        String prefix = newPrefix("sn");
        try {
            QueueConfig config = target.config(prefix).toBuilder().poolSize(2).build();
            try (SqlQueue q = SqlQueue.open(config)) {
                q.createQueue(QueueName.of("jobs"));
            }
            String table = target.dialect == SkipLockedDialect.MARIADB ? "`" + prefix + "schema_history`" : "\"" + prefix + "schema_history\"";
            try (Connection c = DriverManager.getConnection(target.url, target.user, target.password); Statement st = c.createStatement()) {
                c.setAutoCommit(true);
                String q = target.dialect == SkipLockedDialect.MARIADB ? "`" : "\"";
                String columns = Stream.of("installed_rank", "version", "description", "type", "script", "checksum",
                        "installed_by", "execution_time", "success").map(n -> q + n + q).collect(java.util.stream.Collectors.joining(", "));
                st.executeUpdate("INSERT INTO " + table + " (" + columns + ") VALUES (99, '99', 'a later release', 'SQL', 'V99__later.sql',"
                        + " 0, 'test', 1, " + (target.dialect == SkipLockedDialect.MARIADB ? "1" : "TRUE") + ")");
            }
            try (SqlQueue q = SqlQueue.open(config.toBuilder().migrate(false).build())) {
                assertFalse(q.enqueueDeduplicated(QueueName.of("jobs"), keyed()).duplicate());
            }
        } finally {
            target.cleanUp(prefix);
        }
    }
}
