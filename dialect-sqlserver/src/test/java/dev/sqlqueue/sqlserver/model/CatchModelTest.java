package dev.sqlqueue.sqlserver.model;

import static dev.sqlqueue.sqlserver.model.ModelCalls.column;
import static dev.sqlqueue.sqlserver.model.ModelCalls.exec;
import static dev.sqlqueue.sqlserver.model.ModelCalls.plain;
import static dev.sqlqueue.sqlserver.model.ModelCalls.tx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TRY...CATCH, XACT_STATE and uncommittable transactions ({@link Batch}). */
class CatchModelTest {
    private final SqlServerModel model = new SqlServerModel();
    private static final String DUPLICATE = "BEGIN TRY INSERT INTO [dbo].[t] (id) VALUES (1); END TRY"
            + " BEGIN CATCH SELECT ERROR_NUMBER() AS n, XACT_STATE() AS s; END CATCH";

    CatchModelTest() {
        model.track("[dbo].[t]", "id").row("id", 1L);
    }

    @Test
    void aCatchBlockRunsWithTheErrorAndWithXactAbortOffTheTransactionStaysCommittable() throws SQLException {
        Connection c = tx(model);
        exec(c, "INSERT INTO [dbo].[t] (id) VALUES (2)");
        assertEquals(List.of(2627L), column(c, DUPLICATE));
        assertEquals(List.of(1L), column(c, "SELECT XACT_STATE() AS s"));
        c.commit();
        assertEquals(2, model.committedRows("[dbo].[t]").size());
    }

    @Test
    void withXactAbortOnTheCatchSeesAnUncommittableTransactionThatAcceptsNoWriteAndNoCommit() throws SQLException {
        Connection c = tx(model);
        plain(c, "SET XACT_ABORT ON");
        exec(c, "INSERT INTO [dbo].[t] (id) VALUES (2)");
        String batch = "BEGIN TRY INSERT INTO [dbo].[t] (id) VALUES (1); END TRY BEGIN CATCH SELECT XACT_STATE() AS s;"
                + " INSERT INTO [dbo].[t] (id) VALUES (3); END CATCH";
        try (java.sql.PreparedStatement ps = c.prepareStatement(batch)) {
            assertTrue(ps.execute());
            try (java.sql.ResultSet rs = ps.getResultSet()) {
                assertTrue(rs.next());
                assertEquals(-1, rs.getInt(1));
            }
            assertEquals(3930, assertThrows(SQLException.class, ps::getMoreResults).getErrorCode(), "a write");
        }
        assertEquals(0, model.session(1).tranCount(), "rolled back: XACT_ABORT ON and an error outside TRY");
        exec(c, "INSERT INTO [dbo].[t] (id) VALUES (2)");
        SQLException commit = assertThrows(SQLException.class,
                () -> exec(c, "BEGIN TRY INSERT INTO [dbo].[t] (id) VALUES (1); END TRY BEGIN CATCH COMMIT; END CATCH"));
        assertEquals(3930, commit.getErrorCode(), "COMMIT of an uncommittable transaction");
        assertFalse(model.session(1).doomed());
        assertEquals(1, model.committedRows("[dbo].[t]").size(), "nothing of it was committed");
    }

    @Test
    void anUncommittableTransactionStillOpenWhenTheBatchEndsIsRolledBackWith3998() throws SQLException {
        Connection c = tx(model);
        plain(c, "SET XACT_ABORT ON");
        exec(c, "INSERT INTO [dbo].[t] (id) VALUES (2)");
        SQLException e = assertThrows(SQLException.class,
                () -> exec(c, "BEGIN TRY INSERT INTO [dbo].[t] (id) VALUES (1); END TRY BEGIN CATCH PRINT 'caught'; END CATCH"));
        assertEquals(3998, e.getErrorCode());
        assertEquals(0, model.session(1).tranCount());
        assertEquals(1, model.committedRows("[dbo].[t]").size());
    }

    @Test
    void throwWithoutArgumentsRaisesTheCaughtErrorAgainAndEndsTheBatch() throws SQLException {
        Connection c = tx(model);
        SQLException e = assertThrows(SQLException.class, () -> exec(c, "BEGIN TRY INSERT INTO [dbo].[t] (id) VALUES (1); END TRY"
                + " BEGIN CATCH IF ERROR_NUMBER() <> 1222 THROW; END CATCH; INSERT INTO [dbo].[t] (id) VALUES (5);"));
        assertEquals(2627, e.getErrorCode());
        c.commit();
        assertEquals(1, model.committedRows("[dbo].[t]").size(), "nothing after the THROW ran");
    }

    @Test
    void withoutTryAStatementErrorEndsOnlyItsStatement() throws SQLException {
        Connection c = tx(model);
        SQLException e = assertThrows(SQLException.class,
                () -> exec(c, "INSERT INTO [dbo].[t] (id) VALUES (1); INSERT INTO [dbo].[t] (id) VALUES (6);"));
        assertEquals(2627, e.getErrorCode());
        c.commit();
        assertEquals(List.of(1L, 6L), model.committedRows("[dbo].[t]").stream().map(r -> r.get("id")).toList(),
                "XACT_ABORT OFF: the batch went on after the failed statement");
    }
}
