package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The model's rules, one documented behaviour per test. */
class SqlServerModelTest {
    private final SqlServerModel model = new SqlServerModel();

    private static int query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : Integer.MIN_VALUE;
            }
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }

    @Test
    void autoCommitFalseTurnsImplicitTransactionsOnAndOpensNothing() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        Session s = model.session(1);
        assertTrue(s.implicitTransactions());
        assertEquals(0, s.tranCount());
    }

    @Test
    void onlyListedStatementsOpenTheImplicitTransaction() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "SET NOCOUNT ON; DECLARE @x int = 1; SELECT @x AS x; EXEC dbo.p; SEND ON CONVERSATION (@h) MESSAGE TYPE [m];"
                + " END CONVERSATION @h; ALTER QUEUE [q] WITH STATUS = ON;");
        assertEquals(0, model.session(1).tranCount(), "SET, DECLARE, SELECT without FROM, EXEC, SEND, END CONVERSATION, ALTER QUEUE");
        exec(c, "SELECT name FROM sys.databases WHERE database_id = DB_ID()");
        assertEquals(1, model.session(1).tranCount(), "SELECT from a table opens it");
    }

    @Test
    void aChangeOutsideATransactionAutocommitsAndAFollowingCommitIsANoOp() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "SEND ON CONVERSATION (@h) MESSAGE TYPE [m] (@b);");
        Effect send = model.effects("SEND", "").get(0);
        assertFalse(send.inTransaction());
        assertEquals(Effect.State.COMMITTED, send.state());
        c.commit();
        assertEquals(List.of("c1 commit (no-op: @@TRANCOUNT = 0, nothing was open)"), model.logContaining("commit"));
        c.rollback();
        assertEquals(Effect.State.COMMITTED, send.state(), "a rollback cannot take it back");
    }

    @Test
    void setSavepointOpensATransactionAtLevelOne() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        c.setSavepoint("sp");
        assertEquals(1, model.session(1).tranCount());
        exec(c, "INSERT INTO t VALUES (1)");
        c.commit();
        assertEquals(Effect.State.COMMITTED, model.effects("INSERT", "t").get(0).state());
        assertEquals(0, model.session(1).tranCount());
    }

    @Test
    void savepointsThrowInAutoCommitMode() throws SQLException {
        Connection c = model.dataSource().getConnection();
        assertThrows(SQLException.class, () -> c.setSavepoint("x"));
        assertThrows(SQLException.class, c::rollback);
    }

    @Test
    void rollbackToASavepointUndoesWhatFollowedAndKeepsTheTransaction() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "INSERT INTO a VALUES (1)");
        Savepoint sp = c.setSavepoint("sp");
        exec(c, "INSERT INTO b VALUES (1)");
        c.rollback(sp);
        assertEquals(1, model.session(1).tranCount());
        c.commit();
        assertEquals(Effect.State.COMMITTED, model.effects("INSERT", "a").get(0).state());
        assertEquals(Effect.State.ROLLED_BACK, model.effects("INSERT", "b").get(0).state());
    }

    @Test
    void saveTransactionAndCommitFailWithoutATransaction() throws SQLException {
        Connection c = model.dataSource().getConnection();
        assertEquals(628, assertThrows(SQLException.class, () -> exec(c, "SAVE TRANSACTION x")).getErrorCode());
        assertEquals(3902, assertThrows(SQLException.class, () -> exec(c, "COMMIT TRANSACTION")).getErrorCode());
        c.setAutoCommit(false);
        exec(c, "INSERT INTO a VALUES (1)");
        assertEquals(6401, assertThrows(SQLException.class, () -> exec(c, "ROLLBACK TRANSACTION nope")).getErrorCode());
    }

    @Test
    void beginTranInImplicitModeCountsTwo() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "BEGIN TRANSACTION");
        assertEquals(2, model.session(1).tranCount());
        c.commit();
        assertEquals(1, model.session(1).tranCount(), "the driver's commit commits one level");
    }

    @Test
    void setAutoCommitTrueCommitsTheOpenTransaction() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "UPDATE t SET x = 1");
        c.setAutoCommit(true);
        assertEquals(Effect.State.COMMITTED, model.effects("UPDATE", "t").get(0).state());
        assertFalse(model.session(1).implicitTransactions());
    }

    @Test
    void closingRollsBackAnOpenTransaction() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "DELETE FROM t");
        c.close();
        assertEquals(Effect.State.ROLLED_BACK, model.effects("DELETE", "t").get(0).state());
    }

    @Test
    void transactionOwnedApplockOutsideATransactionReturnsMinus999() throws SQLException {
        String lock = "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'r', @LockMode = N'Exclusive',"
                + " @LockOwner = N'Transaction', @LockTimeout = ?; SELECT @r AS result;";
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        assertEquals(-999, query(c, lock, 100));
        c.setSavepoint("open");
        assertEquals(0, query(c, lock, 100));
        Connection other = model.dataSource().getConnection();
        other.setAutoCommit(false);
        other.setSavepoint("open");
        assertEquals(-1, query(other, lock, 100), "held by c1's transaction");
        c.commit();
        assertEquals(0, query(other, lock, 100), "released when c1's transaction ended");
    }

    @Test
    void scriptingAnApplockResultIsRejected() {
        assertThrows(ImpossibleResultException.class, () -> model.rows("EXEC @r = sp_getapplock @Resource = N'x'; SELECT @r",
                new Object[] {0}));
    }

    @Test
    void setOptionsPersistAfterAPlainBatchButNotAfterSpExecuteSql() throws SQLException {
        Connection c = model.dataSource().getConnection();
        exec(c, "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT 1");
        assertFalse(model.session(1).nocount(), "prepared statement: sp_prepexec restores them");
        try (Statement st = c.createStatement()) {
            st.execute("SET NOCOUNT ON; SET XACT_ABORT ON;");
        }
        assertTrue(model.session(1).nocount() && model.session(1).xactAbort(), "a plain batch keeps them");
    }

    @Test
    void prepareMethodNoneSendsPreparedStatementsAsPlainBatches() throws SQLException {
        model.prepareMethod(SqlServerModel.PrepareMethod.NONE);
        Connection c = model.dataSource().getConnection();
        exec(c, "SET NOCOUNT ON; SET XACT_ABORT ON; SELECT 1");
        assertTrue(model.session(1).nocount() && model.session(1).xactAbort());
    }

    @Test
    void xactAbortRollsBackTheTransactionOnAnError() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute("SET XACT_ABORT ON;");
        }
        exec(c, "INSERT INTO t VALUES (1)");
        model.fail("INSERT INTO t VALUES (2)", 2627, "23000");
        assertThrows(SQLException.class, () -> exec(c, "INSERT INTO t VALUES (2)"));
        assertEquals(0, model.session(1).tranCount());
        assertEquals(Effect.State.ROLLED_BACK, model.effects("INSERT", "t").get(0).state());
    }

    @Test
    void guardThrowsOnlyWithoutATransaction() throws SQLException {
        String guard = "IF @@TRANCOUNT = 0 THROW 51000, N'no open transaction', 1;";
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        assertEquals(51000, assertThrows(SQLException.class, () -> exec(c, guard)).getErrorCode());
        c.setSavepoint("x");
        exec(c, guard);
    }

    @Test
    void conditionsTheModelCannotDecideRunNeitherBranch() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "IF OBJECT_ID(N'x', N'U') IS NULL CREATE TABLE x (a int)");
        assertEquals(0, model.session(1).tranCount());
        assertTrue(model.effects("CREATE", "").isEmpty());
    }
}
