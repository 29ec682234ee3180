package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import org.junit.jupiter.api.Test;

/**
 * A URL whose JDBC driver is not on the class path is refused before any pool is built, with rule
 * {@code backend.driver} and the Maven coordinates to add. Nothing connects anywhere.
 */
class MissingDriverTest {
    /** The Teradata driver is never on this module's class path (its licence). */
    private static final String TERADATA = "jdbc:teradata://td.invalid/DATABASE=q";

    @Test
    void theApiNamesTheRuleAndTheMavenCoordinates() {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlQueue.open(QueueConfig.ofUrl(TERADATA)));
        assertEquals("backend.driver", e.rule());
        assertTrue(e.getMessage().contains("no JDBC driver for backend 'teradata'"), e.getMessage());
        assertTrue(e.getMessage().contains("add the Maven dependency com.teradata.jdbc:terajdbc"), e.getMessage());
    }

    @Test
    void theCommandSaysTheSameInOneLine() {
        Cli.Run run = Cli.raw("stats", "--url", TERADATA);
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertEquals(1, run.errLines().size(), run::toString);
        assertTrue(run.err().contains("com.teradata.jdbc:terajdbc"), run::toString);
        assertTrue(run.err().contains("rule: backend.driver"), run::toString);
    }

    /**
     * PgJDBC hidden from the context class loader (the one sqlqueue finds providers and drivers with): the
     * PostgreSQL backend is found, its driver is not. Before the check, the pool's "No suitable driver" came out.
     */
    @Test
    void aHiddenPostgresDriverIsNamedByItsCoordinates() {
        ClassLoader app = Thread.currentThread().getContextClassLoader();
        ClassLoader hiding = new ClassLoader(app) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith("org.postgresql.")) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        Thread.currentThread().setContextClassLoader(hiding);
        try {
            InvalidInputException e = assertThrows(InvalidInputException.class,
                    () -> SqlQueue.open(QueueConfig.ofUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres")));
            assertEquals("backend.driver", e.rule());
            assertTrue(e.getMessage().contains("org.postgresql:postgresql"), e.getMessage());
        } finally {
            Thread.currentThread().setContextClassLoader(app);
        }
    }
}
