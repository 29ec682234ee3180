package dev.sqlqueue.skiplocked;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.containers.MariaDBContainer;
import org.testcontainers.containers.PostgreSQLContainer;

/**
 * Where the PostgreSQL and MariaDB of the tests are: the environment variable when set; else the
 * server on this machine (127.0.0.1) when it listens; else, where a Docker engine exists, a
 * Testcontainers container started once for the whole run. With none of these the default local URL
 * is returned and the cases fail: an unreachable backend is a failure, never a skip.
 */
final class ServerLocator {
    record Server(String url, String user, String password, boolean container) {
    }

    private static JdbcDatabaseContainer<?> postgres;
    private static JdbcDatabaseContainer<?> mariadb;

    private ServerLocator() {
    }

    static String env(String name, String def) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? def : v;
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    static synchronized Server postgres() {
        String url = System.getenv("SQLQUEUE_PG_URL");
        if (url != null && !url.isBlank()) {
            return new Server(url, env("SQLQUEUE_PG_USER", "postgres"), env("SQLQUEUE_PG_PASSWORD", ""), false);
        }
        if (!LocalServer.accepts(5432) && dockerAvailable()) {
            if (postgres == null) {
                postgres = new PostgreSQLContainer<>("postgres:15");
                postgres.start();
            }
            return new Server(postgres.getJdbcUrl(), postgres.getUsername(), postgres.getPassword(), true);
        }
        return new Server("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "", false);
    }

    static synchronized Server mariadb() {
        String url = System.getenv("SQLQUEUE_MARIADB_URL");
        if (url != null && !url.isBlank()) {
            return new Server(url, env("SQLQUEUE_MARIADB_USER", "root"), env("SQLQUEUE_MARIADB_PASSWORD", ""), false);
        }
        if (!LocalServer.accepts(3306) && dockerAvailable()) {
            if (mariadb == null) {
                mariadb = new MariaDBContainer<>("mariadb:10.11");
                mariadb.start();
            }
            return new Server(mariadb.getJdbcUrl(), mariadb.getUsername(), mariadb.getPassword(), true);
        }
        return new Server("jdbc:mariadb://127.0.0.1:3306/test", "root", "", false);
    }
}
