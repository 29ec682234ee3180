package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One error style (issue 34): one line, durations echoed as typed, a rule on every refusal, connection errors with
 * their root cause. In-process; the connection cases reach no server (an unresolvable host, a closed port) or the
 * project's PostgreSQL with a role that does not exist.
 */
class ErrorStyleTest {
    @TempDir
    Path dir;

    Cli cli;
    Path file;

    @BeforeEach
    void setUp() throws Exception {
        cli = new Cli(dir);
        file = dir.resolve("f.txt");
        Files.writeString(file, "a\n");
    }

    private static String oneLine(Cli.Run run, int code) {
        assertEquals(code, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        return run.errLines().get(0);
    }

    private static void contains(String line, String... parts) {
        for (String p : parts) {
            assertTrue(line.contains(p), () -> "'" + p + "' missing in: " + line);
        }
    }

    @Test
    void durationsAreEchoedAsTyped() {
        contains(oneLine(cli.run("enqueue", "-q", "jobs", "--delay", "-5s", file.toString()), ExitCodes.USAGE),
                "was -5s", "rule: delay.negative");
        contains(oneLine(cli.run("enqueue", "-q", "jobs", "--delay", "400d", file.toString()), ExitCodes.USAGE),
                "was 400d", "rule: delay.max");
        contains(oneLine(cli.run("history", "prune", "-q", "jobs", "--max-age", "-24h"), ExitCodes.USAGE),
                "was -24h", "rule: history-retention.age");
        contains(oneLine(cli.run("work", "-q", "jobs", "--timeout", "-1s", "--exec", "true"), ExitCodes.USAGE),
                "--timeout must be positive, was -1s", "rule: timeout.positive");
    }

    @Test
    void everyRefusalNamesARule() {
        contains(oneLine(cli.run("work", "-q", "jobs", "--exec", ""), ExitCodes.USAGE),
                "--exec must not be empty", "rule: exec.empty");
        contains(oneLine(cli.run("history", "prune", "-q", "jobs"), ExitCodes.USAGE),
                "give --max-age, --max-rows or both", "rule: prune.limit");
        contains(oneLine(Cli.raw("demo", "--messages", "0"), ExitCodes.USAGE),
                "--messages must be 1..10000000, was 0", "rule: messages.range");
        contains(oneLine(Cli.raw("stats", "--queu", "x"), ExitCodes.USAGE), "'--queu'", "rule: option.unknown");
        contains(oneLine(Cli.raw("frob"), ExitCodes.USAGE), "unknown command 'frob'", "rule: command.unknown");
        contains(oneLine(Cli.raw("enqueue"), ExitCodes.USAGE), "--queue", "rule: option.required");
    }

    @Test
    void connectionErrorsKeepTheirRootCause() {
        contains(oneLine(Cli.raw("stats", "--url", "jdbc:postgresql://nc-no-such-host.invalid:5432/test"), ExitCodes.FAILURE),
                "unknown host nc-no-such-host.invalid");
        contains(oneLine(Cli.raw("stats", "--url", "jdbc:postgresql://127.0.0.1:1/test"), ExitCodes.FAILURE),
                "Connection refused");
        contains(oneLine(Cli.raw("stats", "--url", "jdbc:postgresql://127.0.0.1:5432/test?user=sqlqueue_no_such_role"),
                ExitCodes.FAILURE), "role \"sqlqueue_no_such_role\" does not exist");
        contains(oneLine(Cli.raw("stats", "--url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&sslmode=require"),
                ExitCodes.FAILURE), "SSL");
    }
}
