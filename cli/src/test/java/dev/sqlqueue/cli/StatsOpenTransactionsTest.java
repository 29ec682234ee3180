package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 31, point 1: {@code sqlqueue stats} lists the oldest open transactions of the database (PostgreSQL, MariaDB),
 * so a session holding a snapshot that slows every claim can be found from the command line.
 */
class StatsOpenTransactionsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"postgresql", "mariadb"})
    void statsListsASessionHoldingASnapshot(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        QueueName queue = QueueName.of(Cli.uniqueQueue("held"));
        try (SqlQueue q = cli.client()) {
            q.createQueue(queue);
            q.enqueue(queue, Message.ofText("x"));
        }
        try (Connection holder = DriverManager.getConnection(cli.url())) {
            holder.setAutoCommit(false);
            holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            String id;
            String table = db.equals("mariadb") ? "`sqlq_message`" : "\"sqlq_message\"";
            try (Statement st = holder.createStatement();
                 ResultSet rs = st.executeQuery("select count(*), " + (db.equals("mariadb") ? "connection_id()" : "pg_backend_pid()")
                         + " from " + table)) {
                rs.next();
                id = rs.getString(2);
            }
            Cli.Run stats = cli.run("stats", "-q", queue.value());
            assertEquals(0, stats.code(), stats::toString);
            assertTrue(stats.out().contains("open transactions of the database, oldest first"), stats::toString);
            String user = db.equals("mariadb") ? "root" : "postgres";
            assertTrue(stats.out().lines().anyMatch(l -> l.matches(id + "\\s+" + user + "\\s+.*")), stats::toString);
            holder.rollback();
        } finally {
            try (SqlQueue q = cli.client()) {
                q.dropQueue(queue);
            }
        }
    }

    @Test
    void h2StatsShowNoTransactions() throws Exception {
        Cli cli = new Cli(dir);
        try (SqlQueue q = cli.client()) {
            q.createQueue(QueueName.of("jobs"));
        }
        Cli.Run stats = cli.run("stats");
        assertEquals(0, stats.code(), stats::toString);
        assertFalse(stats.out().contains("open transactions"), stats::toString);
    }
}
