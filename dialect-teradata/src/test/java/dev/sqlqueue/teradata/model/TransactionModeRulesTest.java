package dev.sqlqueue.teradata.model;

import static dev.sqlqueue.teradata.model.SessionRulesTest.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.teradata.TeradataNames;
import dev.sqlqueue.teradata.TeradataStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Teradata (BTET) sessions, deadlocks and the keys-table statements of the model, through plain JDBC. */
class TransactionModeRulesTest {
    private static final TeradataNames N = TeradataNames.of("sqlq_", "qdb", QueueName.of("jobs"));

    private static TeradataModel withTables() throws SQLException {
        TeradataModel m = new TeradataModel("qdb");
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createQueueTable(N));
            st.execute(TeradataStatements.createKeysTable(N, false));
        }
        return m;
    }

    private static void insertMessage(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(N))) {
            ps.setString(1, "");
            ps.setBytes(2, new byte[] {1});
            ps.executeUpdate();
        }
    }

    private static int merge(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TeradataStatements.mergeKey(N))) {
            ps.setString(1, key);
            ps.setLong(2, 0);
            ps.setLong(3, 5);
            ps.setLong(4, 0);
            return ps.executeUpdate();
        }
    }

    /** The INSERT of a key an earlier version used: error 2801 when the key is there. */
    private static void insertKey(Connection c, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + N.keysTable() + " (dedupe_key, expires_at) VALUES (?,"
                + " CURRENT_TIMESTAMP(6) + CAST(? AS INTERVAL DAY(4)) + CAST(? AS INTERVAL MINUTE(4)) + CAST(? AS INTERVAL SECOND(4)))")) {
            ps.setString(1, key);
            ps.setLong(2, 0);
            ps.setLong(3, 5);
            ps.setLong(4, 0);
            ps.executeUpdate();
        }
    }

    private static int rows(TeradataModel m, String table) {
        return m.committedRows(table).size();
    }

    @Test
    void inAnsiMode2801UndoesTheRequestOnlyInTeradataModeTheWholeTransaction() throws Exception {
        TeradataModel m = withTables();
        try (Connection c = m.dataSource().getConnection()) {
            insertKey(c, "k.");
        }
        try (Connection ansi = m.dataSource().getConnection()) {
            ansi.setAutoCommit(false);
            insertMessage(ansi);
            assertEquals(2801, assertThrows(SQLException.class, () -> insertKey(ansi, "k.")).getErrorCode());
            ansi.commit();
        }
        assertEquals(1, rows(m, N.queueTableName()), "ANSI: the message inserted before the 2801 committed");
        m.ansiSessions = false;
        try (Connection tera = m.dataSource().getConnection()) {
            tera.setAutoCommit(false);
            m.log.clear();
            insertMessage(tera);
            assertEquals(2801, assertThrows(SQLException.class, () -> insertKey(tera, "k.")).getErrorCode());
            insertMessage(tera);
            tera.commit();
            assertEquals(2, m.log.stream().filter(s -> s.endsWith(" BT")).count(), "the driver opened a second transaction: " + m.log);
        }
        assertEquals(2, rows(m, N.queueTableName()), "Teradata mode: the 2801 aborted the transaction and its first insert");
    }

    @Test
    void mergeTakesAFreeKeyAndReportsATakenOneWithoutAnError() throws Exception {
        TeradataModel m = withTables();
        try (Connection a = m.dataSource().getConnection(); Connection b = m.dataSource().getConnection()) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            assertEquals(1, merge(a, "k."));
            assertEquals(0, merge(a, "k."), "taken earlier in the same transaction");
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(() -> {
                try {
                    return merge(b, "k.  ");
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            waitUntil(() -> m.blockedSessions() == 1);
            a.rollback();
            assertEquals(1, second.get(5, TimeUnit.SECONDS), "the first rolled back: free (trailing blanks do not count)");
            b.commit();
            assertEquals(0, merge(a, "k."), "committed: taken");
            a.commit();
        }
        assertEquals(1, rows(m, N.keysTableName()));
    }

    @Test
    void aDeadlockOnOneAmpIsFoundAtOnceAndAbortsTheYoungerTransaction() throws Exception {
        TeradataModel m = withTables();
        m.amps = 1;
        deadlock(m, 2631);
    }

    @Test
    void aDeadlockAcrossAmpsIsFoundOnlyAfterDeadLockTimeout() throws Exception {
        TeradataModel m = withTables();
        m.amps = 64;
        String[] keys = keysOnTwoAmps(m);
        m.deadlockTimeoutMillis = 60_000;
        m.maxBlockMillis = 1_500;
        CompletableFuture<Void>[] sides = start(m, keys);
        // whichever side's wait reaches maxBlockMillis first gives up (its connection closes and the other goes on):
        // which one that is depends on the threads' timing, so the verdict takes either
        List<Throwable> failed = new ArrayList<>();
        for (CompletableFuture<Void> side : sides) {
            try {
                side.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failed.add(e.getCause());
            }
        }
        assertTrue(!failed.isEmpty() && failed.stream().allMatch(
                        t -> t instanceof ModelViolation || t.getCause() instanceof ModelViolation),
                "not found within DeadLockTimeout: still blocked when the model gave up, no deadlock error: " + failed);
        m.deadlockTimeoutMillis = 200;
        m.maxBlockMillis = 5_000;
        deadlock(m, 2631);
    }

    private static String[] keysOnTwoAmps(TeradataModel m) {
        for (int i = 1; ; i++) {
            if (m.amp(N.keysTableName(), "a.") != m.amp(N.keysTableName(), "b" + i + ".")) {
                return new String[] {"a.", "b" + i + "."};
            }
        }
    }

    private static void deadlock(TeradataModel m, int code) throws Exception {
        String[] keys = m.amps == 1 ? new String[] {"x.", "y."} : keysOnTwoAmps(m);
        CompletableFuture<Void>[] sides = start(m, keys);
        ExecutionException e = assertThrows(ExecutionException.class, () -> sides[1].get(5, TimeUnit.SECONDS));
        assertEquals(code, ((SQLException) e.getCause().getCause()).getErrorCode(), "the younger session is the victim");
        sides[0].get(5, TimeUnit.SECONDS);
    }

    /** Two sessions take two keys in opposite orders; the first waits in its second MERGE before the second starts. */
    @SuppressWarnings("unchecked")
    private static CompletableFuture<Void>[] start(TeradataModel m, String[] keys) throws Exception {
        Connection a = m.dataSource().getConnection();
        Connection b = m.dataSource().getConnection();
        a.setAutoCommit(false);
        b.setAutoCommit(false);
        merge(a, keys[0]);
        merge(b, keys[1]);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> takeThenCommit(a, keys[1]));
        waitUntil(() -> m.blockedSessions() == 1);
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> takeThenCommit(b, keys[0]));
        return new CompletableFuture[] {first, second};
    }

    private static void takeThenCommit(Connection c, String key) {
        try (c) {
            merge(c, key);
            c.commit();
        } catch (SQLException e) {
            throw new RuntimeException(e);
        }
    }

    @Test
    void helpSessionReportsTheModeOfTheSession() throws Exception {
        TeradataModel m = withTables();
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("HELP SESSION")) {
            rs.next();
            assertEquals("ANSI", rs.getString(2));
        }
        m.ansiSessions = false;
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("HELP SESSION")) {
            rs.next();
            assertEquals("Teradata", rs.getString(2), "HELP SESSION reports the session's mode");
        }
    }
}
