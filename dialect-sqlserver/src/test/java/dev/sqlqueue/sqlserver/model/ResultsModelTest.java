package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Several results per execution, read as mssql-jdbc reads them ({@link Results}). */
class ResultsModelTest {
    private final SqlServerModel model = new SqlServerModel();
    private static final String TWO = "SELECT 1 AS a; INSERT INTO [dbo].[t] (id) VALUES (1); SELECT 2 AS b;";

    ResultsModelTest() {
        model.track("[dbo].[t]", "id").row("id", 1L);
    }

    @Test
    void anErrorOfALaterStatementIsThrownWhenTheReadingReachesIt() throws SQLException {
        Connection c = model.dataSource().getConnection();
        try (PreparedStatement ps = c.prepareStatement(TWO)) {
            assertTrue(ps.execute(), "the first result is a result set: no error yet");
            try (ResultSet rs = ps.getResultSet()) {
                assertTrue(rs.next());
                assertEquals(1, rs.getInt(1));
            }
            SQLException e = assertThrows(SQLException.class, ps::getMoreResults);
            assertEquals(2627, e.getErrorCode());
            assertTrue(ps.getMoreResults(), "the batch went on (XACT_ABORT OFF): the last SELECT's rows follow");
        }
    }

    @Test
    void closingTheStatementDiscardsAnErrorNobodyRead() throws SQLException {
        Connection c = model.dataSource().getConnection();
        try (PreparedStatement ps = c.prepareStatement(TWO); ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
        }
    }

    @Test
    void updateCountsAreResultsUnlessNocountIsOn() throws SQLException {
        Connection c = model.dataSource().getConnection();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO [dbo].[t] (id) VALUES (2); SELECT 3 AS x;")) {
            assertEquals(1, ps.executeUpdate());
        }
        try (PreparedStatement ps = c.prepareStatement("SET NOCOUNT ON; INSERT INTO [dbo].[t] (id) VALUES (4);")) {
            assertEquals(-1, ps.executeUpdate(), "a DONE without a count is skipped");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO [dbo].[t] (id) VALUES (5); SELECT 3 AS x;");
             ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next(), "executeQuery skips the update count");
        }
    }

    @Test
    void executeUpdateRefusesAResultSetAndExecuteQueryNeedsOne() throws SQLException {
        Connection c = model.dataSource().getConnection();
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 AS x")) {
            assertEquals("A result set was generated for update.", assertThrows(SQLException.class, ps::executeUpdate).getMessage());
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM [dbo].[t] WHERE id = 9")) {
            assertEquals("The statement did not return a result set.", assertThrows(SQLException.class, ps::executeQuery).getMessage());
        }
        try (PreparedStatement ps = c.prepareStatement("SET NOCOUNT ON")) {
            assertFalse(ps.execute());
            assertEquals(-1, ps.getUpdateCount());
        }
    }
}
