package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A password never reaches an error message: not from the URL's user-info ({@code //user:password@host}), not
 * from a {@code password=} parameter, not from {@code --password}, and not through the driver's own message,
 * which may quote the URL it could not parse (MariaDB Connector/J: "Incorrect port value : hunter2@...").
 */
class SecretsInErrorsTest {
    @ParameterizedTest
    @ValueSource(strings = {
            "jdbc:mariadb://root:hunter2secret@127.0.0.1:3307/test",
            "jdbc:postgresql://postgres:hunter2secret@127.0.0.1:1/test",
            "jdbc:postgresql://127.0.0.1:1/test?user=postgres&password=hunter2secret",
            "jdbc:mariadb://127.0.0.1:1/test?user=root&password=hunter2secret"})
    void theUrlsPasswordIsMaskedInTheError(String url) {
        Cli.Run run = Cli.raw("stats", "--url", url);
        assertEquals(ExitCodes.FAILURE, run.code(), run::toString);
        assertFalse(run.err().contains("hunter2secret") || run.out().contains("hunter2secret"), run::toString);
        assertTrue(run.err().contains("***"), "the URL is shown with its password masked: " + run);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql://127.0.0.1:1/test?user=postgres", "jdbc:mariadb://127.0.0.1:1/test?user=root"})
    void thePasswordOptionNeverShows(String url) {
        Cli.Run run = Cli.raw("stats", "--url", url, "--password", "hunter2secret");
        assertFalse(run.err().contains("hunter2secret") || run.out().contains("hunter2secret"), run::toString);
    }
}
