package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import org.junit.jupiter.api.Test;

/**
 * A configuration the server refuses (a role or user it does not know, a database that does not exist) is
 * no passing failure: retrying cannot succeed, so {@code SqlQueue.open} throws {@link SqlQueueException}, not
 * {@link TransientBackendException} ("retrying may succeed"), which it threw for both. An unreachable server
 * stays transient.
 */
class ConfigurationErrorsOnServerTest {
    private static SqlQueueException refused(QueueConfig config) {
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> SqlQueue.open(config).close());
        assertFalse(e instanceof TransientBackendException, () -> "not transient: " + e);
        return e;
    }

    @Test
    void aPostgresRoleThatDoesNotExistIsAConfigurationError() {
        SqlQueueException e = refused(QueueConfig.builder().url("jdbc:postgresql://127.0.0.1:5432/test")
                .user("no_such_role_sq").password("").build());
        assertTrue(e.getMessage().contains("no_such_role_sq"), e.getMessage());
    }

    @Test
    void aPostgresDatabaseThatDoesNotExistIsAConfigurationError() {
        refused(QueueConfig.builder().url("jdbc:postgresql://127.0.0.1:5432/no_such_db_sq").user("postgres").password("").build());
    }

    @Test
    void aMariaDbDatabaseThatDoesNotExistIsAConfigurationError() {
        refused(QueueConfig.builder().url("jdbc:mariadb://127.0.0.1:3306/no_such_db_sq").user("root").password("").build());
    }

    @Test
    void aMariaDbUserThatDoesNotExistIsAConfigurationError() {
        refused(QueueConfig.builder().url("jdbc:mariadb://127.0.0.1:3306/test").user("no_such_user_sq").password("x").build());
    }

    @Test
    void anUnreachableServerStaysTransient() {
        assertThrows(TransientBackendException.class, () -> SqlQueue.open(QueueConfig.builder()
                .url("jdbc:postgresql://127.0.0.1:1/test").user("postgres").password("").build()).close());
    }
}
