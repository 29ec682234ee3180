package dev.sqlqueue.teradata.model;

import static dev.sqlqueue.teradata.model.ModelTables.depth;
import static dev.sqlqueue.teradata.model.ModelTables.insert;
import static dev.sqlqueue.teradata.model.ModelTables.withQueue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.teradata.TeradataNames;
import dev.sqlqueue.teradata.TeradataStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The model's rules, one test each, exercised through plain JDBC with the backend's own statement texts. */
class SessionRulesTest {
    private static final TeradataNames N = ModelTables.N;




    @Test
    void ansiModeKeepsEveryRequestInOneTransactionAndAFailedRequestDoesNotEndIt() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Connection other = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            insert(c, "a");
            SQLException e = assertThrows(SQLException.class, () -> insert(c, "\uD834\uDD1E"));
            assertEquals(6706, e.getErrorCode());
            insert(c, "b");
            assertEquals(0, m.committedRows(N.queueTableName()).size(), "nothing committed before COMMIT");
            c.commit();
            assertEquals(2, m.committedRows(N.queueTableName()).size(), "the requests around the failed one committed");
            insert(c, "c");
            c.rollback();
            assertEquals(2, depth(other));
        }
    }

    @Test
    void unicodeColumnsRefuseWhatUnicode60BmpLacksUnlessPassThroughIsOn() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection()) {
            insert(c, "日本語 ✓ € ü");
            for (String bad : new String[] {"\uD834\uDD1E", "\u20BD", "x\uD800", "\uDC00"}) {
                assertEquals(6706, assertThrows(SQLException.class, () -> insert(c, bad)).getErrorCode(), bad);
            }
            try (Statement st = c.createStatement()) {
                st.execute("SET SESSION CHARACTER SET UNICODE PASS THROUGH ON");
            }
            insert(c, "\uD834\uDD1E \u20BD");
            assertEquals(6706, assertThrows(SQLException.class, () -> insert(c, "x\uD800")).getErrorCode(),
                    "an unpaired surrogate is never a character");
        }
    }

    @Test
    void aConsumeOnAnEmptyQueueWaitsUntilARowIsCommittedOrTheRequestIsCancelled() throws Exception {
        TeradataModel m = withQueue();
        try (Connection consumer = m.dataSource().getConnection(); Connection producer = m.dataSource().getConnection()) {
            consumer.setAutoCommit(false);
            Statement st = consumer.createStatement();
            CompletableFuture<Long> got = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = st.executeQuery(TeradataStatements.consume(N))) {
                    rs.next();
                    return rs.getLong(2);
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            waitUntil(() -> m.blockedSessions() == 1);
            producer.setAutoCommit(false);
            insert(producer, "");
            Thread.sleep(50);
            assertEquals(1, m.blockedSessions(), "an uncommitted row does not end the wait");
            producer.commit();
            assertEquals(1L, got.get(5, TimeUnit.SECONDS));

            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    st.executeQuery(TeradataStatements.consume(N));
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            waitUntil(() -> m.blockedSessions() == 1);
            st.cancel();
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
            assertEquals(Terajdbc.CANCELLED, ((SQLException) e.getCause().getCause()).getErrorCode(),
                    "the database's 3110, as terajdbc reports it (ErrorAnalyzer.analyzeError)");
            assertEquals(1, depth(producer), "the abort rolled the whole transaction back: the first row is back");
        }
    }

    @Test
    void anAbortTheServerIgnoresLeavesTheConsumeWaitingUntilTheDriverClosesTheConnectionAtItsQueryTimeout() throws Exception {
        TeradataModel m = withQueue();
        m.abortHonoured = false;
        try (Connection consumer = m.dataSource().getConnection(); Connection other = m.dataSource().getConnection()) {
            insert(other, "");
            consumer.setAutoCommit(false);
            Statement st = consumer.createStatement();
            st.executeQuery(TeradataStatements.consume(N)).close(); // the transaction holds a consumed row
            st.setQueryTimeout(1);
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                try {
                    st.executeQuery(TeradataStatements.consume(N));
                } catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            waitUntil(() -> m.blockedSessions() == 1);
            st.cancel();
            consumer.abort(Runnable::run);
            Thread.sleep(100);
            assertEquals(1, m.blockedSessions(), "neither the ignored Abort nor Connection.abort (a no-op) ends it");
            assertEquals(0, depth(other), "the consumed row is still held");
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
            SQLException cause = (SQLException) e.getCause().getCause();
            assertEquals(Terajdbc.CANCEL_ABORT_UNANSWERED, cause.getErrorCode(), "TJ783: the driver closed the socket");
            assertEquals("08S01", cause.getSQLState());
            assertTrue(consumer.isClosed());
            assertEquals(1, depth(other), "the session ended, so its transaction was rolled back: the row is back");
        }
    }

    @Test
    void moreThan2210ConsumesInOneTransactionIsAViolation() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(N))) {
                for (int i = 0; i < 2211; i++) {
                    ps.setString(1, "");
                    ps.setBytes(2, new byte[0]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            for (int i = 0; i < 2210; i++) {
                st.executeQuery(TeradataStatements.consume(N)).close();
            }
            assertThrows(ModelViolation.class, () -> st.executeQuery(TeradataStatements.consume(N)));
        }
    }

    @Test
    void parametersCompareCaseSpecificallyInAnsiModeUnlessBothSidesAreUpperCased() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection()) {
            String exact = "SELECT 1 FROM DBC.TablesV WHERE DatabaseName = ? AND TableName = ?";
            String blind = "SELECT 1 FROM DBC.TablesV WHERE UPPER(DatabaseName) = UPPER(?) AND UPPER(TableName) = UPPER(?)";
            assertTrue(found(c, exact, "qdb", "sqlq_jobs"));
            assertTrue(!found(c, exact, "QDB", "sqlq_jobs"), "ANSI mode: case specific");
            assertTrue(found(c, blind, "QDB", "SQLQ_JOBS"));
        }
    }

    @Test
    void aStatementTheModelDoesNotKnowFailsTheTest() throws Exception {
        TeradataModel m = withQueue();
        try (Connection c = m.dataSource().getConnection(); Statement st = c.createStatement()) {
            assertThrows(ModelViolation.class, () -> st.executeQuery("SELECT * FROM somewhere"));
        }
    }

    @Test
    void aScriptedAnswerARealSystemCouldNotGiveIsRejected() {
        String caseSpecific = "SELECT TableName FROM DBC.TablesV WHERE DatabaseName = ? AND TableName LIKE ? ESCAPE '\\'"
                + " ORDER BY TableName";
        java.util.List<Object> params = java.util.List.of("qdb", "sqlq\\_%");
        java.util.List<Object[]> upperCaseName = java.util.List.<Object[]>of(new Object[] {"SQLQ_a"});
        assertThrows(ModelViolation.class, () -> ScriptedAnswers.check(caseSpecific, params, upperCaseName));
        ScriptedAnswers.check(TeradataStatements.listTables(), params, upperCaseName);
        java.util.List<Object[]> clef = java.util.List.<Object[]>of(new Object[] {null, 1L, null, 0, null, null, "k=\uD834\uDD1E", null});
        assertThrows(ModelViolation.class, () -> ScriptedAnswers.check(TeradataStatements.consume(N), java.util.List.of(), clef));
    }

    private static boolean found(Connection c, String sql, String db, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, db);
            ps.setString(2, table);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    static void waitUntil(java.util.function.BooleanSupplier cond) {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            while (!cond.getAsBoolean()) {
                Thread.sleep(5);
            }
        });
    }
}
