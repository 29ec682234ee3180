package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.SqlQueueException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Which failures at open {@link H2Provider#retryOpen} takes as passing. A run of the whole suite beside other builds
 * (load average 15) saw a process of {@link H2OpenRetryTest} fail with "cannot read the H2 database's WRITE_DELAY
 * setting: Connection is closed": the process serving the file exited while this one checked it, and HikariCP 6.3.3
 * answers a call on a connection its pool closed with {@code new SQLException("Connection is closed")}, without an
 * SQLState ({@code ProxyConnection.ClosedConnection}), so the open was not retried.
 */
class H2OpenRetryClassesTest {
    private final H2Provider provider = new H2Provider();

    @Test
    void aConnectionThePoolClosedUnderTheOpenIsPassing() {
        SQLException closed = new SQLException("Connection is closed");
        assertTrue(provider.retryOpen(new SqlQueueException("cannot read the H2 database's WRITE_DELAY setting: "
                + closed.getMessage(), closed)));
    }

    @Test
    void theErrorsOfAHandOverArePassing() {
        for (int code : new int[] {90020, 8000, 90067, 90121}) {
            assertTrue(provider.retryOpen(new SqlQueueException("open", new SQLException("h2", "HY000", code))), "H2 " + code);
        }
    }

    @Test
    void otherErrorsAreNot() {
        assertFalse(provider.retryOpen(new SqlQueueException("open", new SQLException("Wrong user name or password", "28000", 28000))));
        assertFalse(provider.retryOpen(new SqlQueueException("open", new SQLException("Connection is closed, said someone", null, 0))));
    }
}
