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
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The broker rules of the model. */
class BrokerModelTest {
    private static final String Q = "[dbo].[q]";
    private static final String RECEIVE = "RECEIVE TOP (?) conversation_group_id, conversation_handle, message_type_name FROM " + Q;
    private final SqlServerModel model = new SqlServerModel();
    private final BrokerModel broker = BrokerModel.on(model);
    private final UUID h1 = UUID.randomUUID();
    private final UUID h2 = UUID.randomUUID();

    private static List<String> receive(Connection c, int top) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(RECEIVE)) {
            ps.setObject(1, top);
            List<String> handles = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    handles.add(rs.getString(2));
                }
            }
            return handles;
        }
    }

    @Test
    void oneReceiveReturnsOneConversationGroup() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        broker.arrive(Q, h2, "m", null);
        broker.arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        c.setSavepoint("s");
        assertEquals(List.of(h1.toString(), h1.toString()), receive(c, 100));
        assertEquals(List.of(h2.toString()), receive(c, 100));
        assertEquals(List.of(), receive(c, 100));
    }

    @Test
    void aGroupLockedByAnotherTransactionIsSkippedUntilItEnds() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        broker.arrive(Q, h1, "m", null);
        broker.arrive(Q, h2, "m", null);
        Connection a = model.dataSource().getConnection();
        a.setAutoCommit(false);
        a.setSavepoint("s");
        assertEquals(List.of(h1.toString()), receive(a, 1));
        Connection b = model.dataSource().getConnection();
        b.setAutoCommit(false);
        b.setSavepoint("s");
        assertEquals(List.of(h2.toString()), receive(b, 10), "h1's group is locked by a");
        assertEquals(List.of(), receive(b, 10));
        a.commit();
        assertEquals(List.of(h1.toString()), receive(b, 10));
    }

    @Test
    void aReceiveOutsideATransactionIsGoneForGood() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        assertEquals(1, receive(c, 10).size());
        c.rollback();
        assertTrue(broker.messages(Q).isEmpty(), "RECEIVE is not on the implicit-transaction list: it autocommitted");
        assertFalse(broker.locked(h1));
    }

    @Test
    void rollbackToASavepointReturnsTheMessagesAndUnlocksTheGroup() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        Savepoint sp = c.setSavepoint("s");
        receive(c, 10);
        assertTrue(broker.locked(h1));
        c.rollback(sp);
        assertFalse(broker.locked(h1));
        assertEquals(1, broker.messages(Q).size());
        c.commit();
        assertEquals(1, broker.messages(Q).size());
    }

    @Test
    void fiveConsecutiveRollbacksDisableTheQueue() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        for (int i = 0; i < 5; i++) {
            c.setSavepoint("s");
            assertEquals(1, receive(c, 10).size());
            c.rollback();
        }
        assertFalse(broker.enabled(Q));
        c.setSavepoint("s");
        assertEquals(9617, assertThrows(SQLException.class, () -> receive(c, 10)).getErrorCode());
    }

    @Test
    void poisonHandlingOffNeverDisables() throws SQLException {
        broker.poisonHandling(Q, false).arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        for (int i = 0; i < 6; i++) {
            c.setSavepoint("s");
            receive(c, 10);
            c.rollback();
        }
        assertTrue(broker.enabled(Q));
    }

    @Test
    void scriptingAReceiveResultIsRejected() {
        assertThrows(ImpossibleResultException.class, () -> model.rows(RECEIVE, new Object[] {h1, h1, "m"}, new Object[] {h2, h2, "m"}));
    }

    @Test
    void endConversationRemovesItsMessagesUnlessRolledBack() throws SQLException {
        broker.arrive(Q, h1, "m", null);
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        c.setSavepoint("s");
        try (PreparedStatement ps = c.prepareStatement("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;")) {
            ps.setObject(1, h1.toString());
            ps.execute();
        }
        assertTrue(broker.messages(Q).isEmpty());
        c.rollback();
        assertEquals(1, broker.messages(Q).size());
    }

    @Test
    void anAlterQueueRolledBackWithItsTransactionPutsTheOldSettingsBack() throws SQLException {
        Connection c = model.dataSource().getConnection();
        c.setAutoCommit(false);
        c.setSavepoint("s");
        try (PreparedStatement ps = c.prepareStatement("ALTER QUEUE " + Q + " WITH POISON_MESSAGE_HANDLING (STATUS = OFF)")) {
            ps.execute();
        }
        assertFalse(broker.poisonHandling(Q));
        c.rollback();
        assertTrue(broker.poisonHandling(Q), "DDL is undone with its transaction");
    }
}
