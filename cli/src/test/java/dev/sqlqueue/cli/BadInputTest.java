package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input: one error line, a non-zero exit code, no stack trace and an unchanged store. */
class BadInputTest {
    @TempDir
    Path dir;

    Cli cli;
    Path good;

    @BeforeEach
    void oneQueueWithThreeMessages() throws Exception {
        cli = new Cli(dir);
        good = dir.resolve("good.txt");
        Files.writeString(good, "a\nb\nc\n");
        assertEquals(0, cli.run("enqueue", "-q", "jobs", good.toString()).code());
    }

    private void assertOneLineError(Cli.Run run, int code, String... mustContain) {
        assertEquals(code, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        String line = run.errLines().get(0);
        assertTrue(line.startsWith("sqlqueue: error: "), line);
        for (String s : mustContain) {
            assertTrue(line.contains(s), "'" + s + "' missing in: " + line);
        }
        assertEquals("", run.out(), run::toString);
    }

    private void assertStoreUnchanged() {
        try (SqlQueue q = cli.client()) {
            assertEquals(List.of(QueueName.of("jobs")), q.queues());
            QueueStats s = q.stats(QueueName.of("jobs"));
            assertEquals(3, s.ready());
            assertEquals(0, s.delayed() + s.inFlight() + s.dead());
        }
    }

    @Test
    void anUnknownCommandIsNamedAndTheCommandsListed() {
        Cli.Run run = Cli.raw("frob");
        assertOneLineError(run, ExitCodes.USAGE, "unknown command 'frob'", "enqueue", "work", "stats");
        Cli.Run option = Cli.raw("enqueue", "-q", "jobs", "--frob");
        assertOneLineError(option, ExitCodes.USAGE, "'--frob'");
        assertStoreUnchanged();
    }

    @Test
    void anOverSizeLine5000WritesNothing() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 1; i < 5000; i++) {
            lines.add("line " + i);
        }
        lines.add("x".repeat(1_048_577));
        lines.add("after");
        Path big = dir.resolve("big.txt");
        Files.write(big, lines, StandardCharsets.UTF_8);
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--file", big.toString()), ExitCodes.USAGE,
                "line 5000", "1048577 bytes", "rule: payload.max-size");
        assertOneLineError(cli.run("enqueue", "-q", "other", big.toString()), ExitCodes.USAGE, "payload.max-size");
        assertStoreUnchanged();
    }

    @Test
    void invalidQueueNamesAreRejectedWithTheRule() {
        assertOneLineError(cli.run("enqueue", "-q", "jobs; DROP TABLE x", good.toString()), ExitCodes.USAGE,
                "queue-name.pattern");
        assertOneLineError(cli.run("enqueue", "-q", "j".repeat(49), good.toString()), ExitCodes.USAGE,
                "queue-name.max-length");
        assertOneLineError(cli.run("work", "-q", "jobs\u0430", "--exec", "true"), ExitCodes.USAGE, "queue-name.pattern");
        assertStoreUnchanged();
    }

    @Test
    void badOptionValuesAreRejected() {
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--delay=-5s", good.toString()), ExitCodes.USAGE,
                "delay.negative");
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--delay", "5", good.toString()), ExitCodes.USAGE,
                "'5' is not a duration");
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--priority", "5000", good.toString()), ExitCodes.USAGE,
                "priority.range");
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--header", "novalue", good.toString()), ExitCodes.USAGE,
                "--header");
        assertOneLineError(cli.run("work", "-q", "jobs", "--exec", "true", "--workers", "0"), ExitCodes.USAGE,
                "workers.range");
        assertOneLineError(cli.run("work", "-q", "jobs", "--exec", "true", "--mode", "sometimes"), ExitCodes.USAGE,
                "--mode");
        assertOneLineError(cli.run("enqueue", "-q", "jobs", "--table-prefix", "Bad-Prefix", good.toString()),
                ExitCodes.USAGE, "table-prefix.pattern");
        assertOneLineError(cli.run("enqueue", "--file", good.toString()), ExitCodes.USAGE, "--queue");
        assertOneLineError(cli.run("frobnicate"), ExitCodes.USAGE, "frobnicate");
        assertStoreUnchanged();
    }

    @Test
    void aMissingFileIsOneLine() {
        assertOneLineError(cli.run("enqueue", "-q", "jobs", dir.resolve("nope.txt").toString()), ExitCodes.FAILURE,
                "nope.txt", "no such file");
        assertStoreUnchanged();
    }

    @Test
    void unknownBackendsAndUnreachableDatabasesAreOneLine() {
        assertOneLineError(cli.run("stats", "--backend", "oracle"), ExitCodes.USAGE, "unknown backend 'oracle'",
                "backend.unknown");
        assertOneLineError(Cli.raw("stats", "--url", "jdbc:nosuchdb://x"), ExitCodes.USAGE, "backend.url");
        assertOneLineError(Cli.raw("stats", "--url", "jdbc:postgresql://127.0.0.1:1/test", "--user", "x",
                "--password", "y"), ExitCodes.FAILURE, "database unavailable");
        assertStoreUnchanged();
    }
}
