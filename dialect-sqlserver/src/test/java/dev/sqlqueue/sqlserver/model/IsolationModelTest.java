package dev.sqlqueue.sqlserver.model;

import static dev.sqlqueue.sqlserver.model.ModelCalls.column;
import static dev.sqlqueue.sqlserver.model.ModelCalls.exec;
import static dev.sqlqueue.sqlserver.model.ModelCalls.plain;
import static dev.sqlqueue.sqlserver.model.ModelCalls.tx;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** READPAST and the isolation level (error 650), and row versioning reads ({@link StatementRules}, {@link TableAccess}). */
class IsolationModelTest {
    private static final String DELETE = "DELETE TOP (?) FROM [dbo].[k] WITH (ROWLOCK, READPAST) WHERE id > 0";
    private final SqlServerModel model = new SqlServerModel();

    IsolationModelTest() {
        model.track("[dbo].[k]", "id").row("id", 1L).row("id", 2L);
    }

    @Test
    void readpastOutsideReadCommittedOrRepeatableReadIsError650() throws SQLException {
        for (int level : new int[] {SqlServerModel.TRANSACTION_SNAPSHOT, Connection.TRANSACTION_SERIALIZABLE,
                Connection.TRANSACTION_READ_UNCOMMITTED}) {
            Connection c = tx(model);
            c.setTransactionIsolation(level);
            SQLException e = assertThrows(SQLException.class, () -> exec(c, DELETE, 10));
            assertEquals(650, e.getErrorCode(), "level " + level);
            c.rollback();
        }
        assertEquals(2, model.committedRows("[dbo].[k]").size());
    }

    @Test
    void readpastRunsAtReadCommittedAndRepeatableRead() throws SQLException {
        Connection c = tx(model);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        exec(c, DELETE, 1);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        exec(c, DELETE, 1);
        c.commit();
        assertEquals(List.of(), model.committedRows("[dbo].[k]"));
    }

    @Test
    void aSetTransactionIsolationLevelInAPlainBatchCountsForLaterStatements() throws SQLException {
        Connection c = tx(model);
        plain(c, "SET TRANSACTION ISOLATION LEVEL SNAPSHOT");
        assertEquals(650, assertThrows(SQLException.class, () -> exec(c, DELETE, 1)).getErrorCode());
        exec(c, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        assertEquals(SqlServerModel.TRANSACTION_SNAPSHOT, model.session(1).isolation(), "restored after the RPC");
    }

    @Test
    void underReadCommittedSnapshotAPlainReadSeesTheLastCommittedRowWithoutLocks() throws SQLException {
        model.readCommittedSnapshot(true);
        Connection writer = tx(model);
        exec(writer, "DELETE FROM [dbo].[k] WHERE id = 1");
        Connection reader = tx(model);
        assertEquals(List.of(1L, 2L), column(reader, "SELECT id FROM [dbo].[k]"), "the version before the uncommitted delete");
        assertEquals(List.of(), model.locksHeld(2));
        plain(reader, "SET LOCK_TIMEOUT 0");
        assertEquals(1222, assertThrows(SQLException.class, () -> column(reader, "SELECT id FROM [dbo].[k] WITH (READCOMMITTEDLOCK)"))
                .getErrorCode(), "READCOMMITTEDLOCK reads with locks, and waits for the writer");
        assertEquals(List.of(2L), column(reader, "SELECT id FROM [dbo].[k] WITH (READCOMMITTEDLOCK, READPAST)"));
    }
}
