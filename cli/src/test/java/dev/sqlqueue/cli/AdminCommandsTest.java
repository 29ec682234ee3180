package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** backends, migrate, stats and dlq purge on a real H2 database. */
class AdminCommandsTest {
    @TempDir
    Path dir;

    @Test
    void backendsListsTheProvidersAndMarksTheSelectedOne() {
        Cli.Run run = Cli.raw("backends", "--url", "jdbc:postgresql://127.0.0.1/x");
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\*\\s+postgresql\\s+.*")), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+h2\\s+.*")), run::toString);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("\\s+mariadb\\s+.*")), run::toString);
    }

    @Test
    void migrateThenStatsOfAnEmptyDatabase() {
        Cli cli = new Cli(dir);
        Cli.Run migrate = cli.run("migrate", "--table-prefix", "clitest_");
        assertEquals(0, migrate.code(), migrate::toString);
        assertTrue(migrate.out().startsWith("schema up to date: backend h2, server H2 "), migrate::toString);
        assertTrue(migrate.out().contains("table prefix clitest_"), migrate::toString);
        Cli.Run stats = cli.run("stats", "--table-prefix", "clitest_");
        assertEquals("no queues", stats.out().strip(), stats::toString);
    }

    /**
     * The command a library opened with migrate off names for an older schema (rule schema.version) is the one
     * that upgrades it: here a schema at version 2, what release 2e2e8c0 created.
     */
    @Test
    void migrateUpgradesASchemaOfAnEarlierRelease() {
        Cli cli = new Cli(dir);
        org.flywaydb.core.Flyway.configure().dataSource(cli.url(), "", "").locations("classpath:db/sqlqueue/h2")
                .table("old_schema_history").placeholders(java.util.Map.of("prefix", "old_")).baselineOnMigrate(true)
                .baselineVersion("0").target("2").load().migrate();
        dev.sqlqueue.QueueConfig off = dev.sqlqueue.QueueConfig.builder().url(cli.url()).user("").password("")
                .tablePrefix("old_").migrate(false).build();
        dev.sqlqueue.InvalidInputException refused = org.junit.jupiter.api.Assertions.assertThrows(
                dev.sqlqueue.InvalidInputException.class, () -> SqlQueue.open(off).close());
        assertTrue(refused.getMessage().contains("run 'sqlqueue migrate --url <JDBC_URL> --table-prefix old_'"), refused.getMessage());

        Cli.Run migrate = cli.run("migrate", "--table-prefix", "old_");
        assertEquals(0, migrate.code(), migrate::toString);
        try (SqlQueue q = SqlQueue.open(off)) {
            assertEquals(0, q.queues().size());
        }
    }

    @Test
    void statsCountsAndDlqPurge() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "a\nb\nc\n");
        assertEquals(0, cli.run("enqueue", "-q", "s", input.toString()).code());
        assertEquals(0, cli.run("enqueue", "-q", "d", "--delay", "1h", input.toString()).code());
        Cli.Run stats = cli.run("stats");
        assertTrue(stats.out().lines().anyMatch(l -> l.matches("d\\s+0\\s+0\\s+3\\s+0\\s+-\\s+0")), stats::toString);
        assertTrue(stats.out().lines().anyMatch(l -> l.matches("s\\s+3\\s+0\\s+0\\s+0\\s+\\S+\\s+0")), stats::toString);

        Cli.Run work = cli.run("work", "-q", "s", "--max-attempts", "1", "--drain", "--poll", "100ms",
                "--no-history", "--exec", "exit 1");
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        try (SqlQueue q = cli.client()) {
            assertEquals(3, q.stats(QueueName.of("s")).dead());
        }
        Cli.Run purge = cli.run("dlq", "purge", "-q", "s");
        assertEquals("purged 3 dead letters of 's'", purge.out().strip(), purge::toString);
        try (SqlQueue q = cli.client()) {
            assertEquals(0, q.stats(QueueName.of("s")).dead());
            assertEquals(0, q.stats(QueueName.of("s")).processed(), "--no-history");
            assertEquals(3, q.stats(QueueName.of("d")).delayed());
        }
    }
}
