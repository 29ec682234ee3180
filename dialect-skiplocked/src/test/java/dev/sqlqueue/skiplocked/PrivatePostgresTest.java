package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The test's own PostgreSQL server: after a crash, {@link PrivatePostgres#startServer()} returns only once
 * the server takes connections, not merely once its port is open. PostgreSQL listens before its WAL
 * recovery ends and refuses connections meanwhile with SQLSTATE 57P03 ("the database system is starting
 * up"); a test that connected in that window failed (CI, C17 database outage).
 */
class PrivatePostgresTest {
    @Test
    void afterACrashTheServerTakesConnectionsOnceStartServerReturns() throws Exception {
        Optional<String> why = PrivatePostgres.unavailable();
        assumeTrue(why.isEmpty(), () -> "no private PostgreSQL can be started: " + why.orElse(""));
        try (PrivatePostgres server = PrivatePostgres.start()) {
            try (Connection c = DriverManager.getConnection(server.url(), "postgres", "");
                    Statement s = c.createStatement()) {
                // enough WAL after the last checkpoint that recovery takes a while
                s.execute("create table t (id bigint, pad text)");
                s.execute("insert into t select g, repeat('x', 200) from generate_series(1, 600000) g");
            }
            server.crash();
            server.startServer();
            try (Connection c = DriverManager.getConnection(server.url(), "postgres", "");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("select count(*) from t")) {
                rs.next();
                assertEquals(600000, rs.getLong(1), "the committed rows are back after recovery");
            }
        }
    }
}
