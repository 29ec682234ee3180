package dev.sqlqueue.sqlserver.model;

import static dev.sqlqueue.sqlserver.model.ModelCalls.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** IF and WHILE where the model can decide them, table variables, and what it does where it cannot ({@link Batch}). */
class ControlFlowModelTest {
    private final SqlServerModel model = new SqlServerModel();

    @Test
    void aDecidableLoopRunsOverATableVariable() throws SQLException {
        model.track("[dbo].[d]", "h").row("h", "a", "s", 1L).row("h", "b", "s", 0L).row("h", "c", "s", 1L);
        Connection c = model.dataSource().getConnection();
        List<Object> n = column(c, "DECLARE @s nvarchar(10), @n int = 0; DECLARE @batch TABLE (h nvarchar(10) NOT NULL PRIMARY KEY);"
                + " INSERT INTO @batch (h) SELECT TOP (?) h FROM [dbo].[d] WHERE s = 1;"
                + " WHILE 1 = 1 BEGIN SET @s = NULL; SELECT TOP (1) @s = h FROM @batch; IF @s IS NULL BREAK;"
                + " DELETE FROM [dbo].[d] WHERE h = @s; DELETE FROM @batch WHERE h = @s; SET @n += 1; END; SELECT @n AS ended;", 10);
        assertEquals(List.of(2L), n);
        assertEquals(List.of("b"), model.committedRows("[dbo].[d]").stream().map(r -> r.get("h")).toList());
    }

    @Test
    void aLoopOverSomethingTheModelCannotReadEndsAndForgetsItsVariables() throws SQLException {
        Connection c = model.dataSource().getConnection();
        model.rows("DECLARE @s int, @n int = 0; WHILE 1 = 1 BEGIN SET @s = NULL; SELECT TOP (1) @s = id FROM [dbo].[untracked];"
                + " IF @s IS NULL BREAK; SET @n += 1; END; SELECT @n AS n;", new Object[] {7});
        assertEquals(List.of(7), column(c, "DECLARE @s int, @n int = 0; WHILE 1 = 1 BEGIN SET @s = NULL; SELECT TOP (1) @s = id FROM"
                + " [dbo].[untracked]; IF @s IS NULL BREAK; SET @n += 1; END; SELECT @n AS n;"), "@n is unknown: the test may say");
        assertTrue(model.trace().stream().anyMatch(x -> x.contains("loop ends at a condition it cannot decide")));
    }

    @Test
    void anIfOnAVariableTakesItsBranch() throws SQLException {
        Connection c = model.dataSource().getConnection();
        assertEquals(List.of("b"), column(c, "DECLARE @x int = ?; IF @x % 2 = 0 SELECT 'a' AS r ELSE SELECT 'b' AS r;", 3));
        assertEquals(List.of(5L), column(c, "DECLARE @i int = 1, @n int = 0; WHILE @i <= ? * ? BEGIN SET @n += 1; SET @i += 1; END;"
                + " SELECT @n AS n;", 1, 5));
    }
}
