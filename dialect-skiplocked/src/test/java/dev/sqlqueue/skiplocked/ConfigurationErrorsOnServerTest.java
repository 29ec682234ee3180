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

    /**
     * A PostgreSQL role that may not create tables in its schema: the migration failed after Flyway's ten
     * one-second retries of its history table (about 10 s, for every open) with "Run Flyway with -X option to
     * see the actual statement". The error now names the schema, the role and what to do.
     */
    @Test
    void aPostgresRoleThatCannotCreateTablesIsToldWhatItLacksWhere() throws Exception {
        String role = "sq_nocreate_" + Long.toString(System.nanoTime(), 36);
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             java.sql.Statement st = c.createStatement()) {
            st.execute("CREATE ROLE " + role + " LOGIN");
            st.execute("GRANT USAGE ON SCHEMA public TO " + role);
        }
        try {
            SqlQueueException e = refused(QueueConfig.builder().url("jdbc:postgresql://127.0.0.1:5432/test")
                    .user(role).password("").tablePrefix("nc_").build());
            assertTrue(e.getMessage().contains("may not create tables in schema \"public\""), e.getMessage());
            assertTrue(e.getMessage().contains(role), e.getMessage());
            assertFalse(e.getMessage().contains("Run Flyway"), e.getMessage());
        } finally {
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
                 java.sql.Statement st = c.createStatement()) {
                st.execute("REVOKE USAGE ON SCHEMA public FROM " + role);
                st.execute("DROP ROLE " + role);
            }
        }
    }

    @Test
    void anUnreachableServerStaysTransient() {
        assertThrows(TransientBackendException.class, () -> SqlQueue.open(QueueConfig.builder()
                .url("jdbc:postgresql://127.0.0.1:1/test").user("postgres").password("").build()).close());
    }
}
