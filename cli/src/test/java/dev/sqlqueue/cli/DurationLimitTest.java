package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A duration too long to be counted in milliseconds is a usage error naming its rule, before anything runs:
 * {@code work --timeout 9999999999999d} dead-lettered every message ("ArithmeticException: long overflow")
 * and {@code --grace} or {@code --history-max-age} of that size ended the command with an unexpected error.
 */
class DurationLimitTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"--timeout", "--grace", "--history-max-age", "--lease", "--poll", "--backoff", "--max-backoff"})
    void aDurationBeyondTheLimitIsAUsageError(String option) {
        Cli cli = new Cli(dir);
        Cli.Run r = cli.run("work", "-q", "jobs", "--drain", "--exec", "true", option, "9999999999999d");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertTrue(r.err().contains("[rule: duration.max]"), r::toString);
        assertEquals(1, r.errLines().size(), r::toString);
    }
}
