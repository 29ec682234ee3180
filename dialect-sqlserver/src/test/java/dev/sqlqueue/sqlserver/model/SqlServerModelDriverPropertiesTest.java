package dev.sqlqueue.sqlserver.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** The model's per-connection driver properties (prepareMethod) and Connection.abort. */
class SqlServerModelDriverPropertiesTest {
    private final SqlServerModel model = new SqlServerModel().prepareMethod(SqlServerModel.PrepareMethod.NONE);

    private static void exec(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }

    @Test
    void prepareMethodIsPerConnectionAndReadWhenAStatementIsPrepared() throws SQLException {
        Connection c = model.dataSource().getConnection();
        Connection other = model.dataSource().getConnection();
        ISQLServerConnection driver = c.unwrap(ISQLServerConnection.class);
        assertEquals("none", driver.getPrepareMethod());
        PreparedStatement before = c.prepareStatement("SET NOCOUNT ON; SELECT 1");
        driver.setPrepareMethod("prepexec");
        exec(c, "SET XACT_ABORT ON; SELECT 1");
        assertFalse(model.session(1).xactAbort(), "prepared after the switch: sp_prepexec restores the option");
        before.execute();
        assertTrue(model.session(1).nocount(), "prepared before the switch: still a plain batch");
        exec(other, "SET XACT_ABORT ON; SELECT 1");
        assertTrue(model.session(2).xactAbort(), "the other connection keeps prepareMethod=none");
    }

    @Test
    void abortEndsTheSessionAndTheServerRollsBack() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        exec(c, "INSERT INTO t VALUES (1)");
        c.abort(Runnable::run);
        assertTrue(model.session(1).closed());
        assertEquals(Effect.State.ROLLED_BACK, model.effects("INSERT", "t").get(0).state());
    }
}
