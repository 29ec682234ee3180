package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.Session;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import dev.sqlqueue.sqlserver.model.SqlServerModel.PrepareMethod;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review finding 1, on the driver and server model: with mssql-jdbc {@code prepareMethod=none} a
 * prepared statement is a plain batch, and a SET in a plain batch stays on the session ("SET Statements
 * (Transact-SQL)", Considerations). No session the backend touches may keep NOCOUNT or XACT_ABORT.
 */
class SessionOptionsModelTest {
    private static final QueueName Q = QueueName.of("jobs");

    /** A pool shared with the application hands the same session on: it must come back without the options. */
    @Test
    void backendConnectionsComeBackWithoutNocountOrXactAbortUnderPrepareMethodNone() {
        ModelFixture f = new ModelFixture(new SqlServerModel().prepareMethod(PrepareMethod.NONE));
        f.enqueueIds(11L).claims(11L);
        f.backend.enqueue(Q, Message.ofText("a"));
        f.backend.consume(Q, ConsumeRequest.of(1));
        assertEquals(2, f.model.sessionsOpened());
        for (int id = 1; id <= 2; id++) {
            Session s = f.model.session(id);
            assertFalse(s.nocount(), s + " keeps NOCOUNT ON");
            assertFalse(s.xactAbort(), s + " keeps XACT_ABORT ON");
            assertEquals(PrepareMethod.NONE, s.prepareMethod(), "the connection's own prepareMethod is given back");
        }
        assertEquals(Effect.State.COMMITTED, f.model.effects("INSERT", "[dbo].[sqlq_messages]").get(0).state());
    }

    /** The outbox path: the caller's connection and transaction keep their options and stay open. */
    @Test
    void enqueueInTheCallersTransactionLeavesItsSessionOptionsAlone() throws SQLException {
        ModelFixture f = new ModelFixture(new SqlServerModel().prepareMethod(PrepareMethod.NONE));
        f.enqueueIds(5L);
        try (Connection c = f.model.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertEquals(5L, f.backend.enqueue(c, Q, Message.ofText("a")));
            Session s = f.model.session(1);
            assertFalse(s.nocount(), "the caller's executeUpdate() row counts would vanish: " + s);
            assertFalse(s.xactAbort(), s.toString());
            assertEquals(1, s.tranCount(), "the insert is in the caller's open transaction");
            List<Effect> inserts = f.model.effects("INSERT", "[dbo].[sqlq_messages]");
            assertEquals(Effect.State.PENDING, inserts.get(0).state());
            c.rollback();
        }
    }

    /** With the default prepareMethod the backend changes nothing on the connection. */
    @Test
    void defaultPrepareMethodIsLeftAsItIs() {
        ModelFixture f = new ModelFixture(new SqlServerModel());
        f.claims(7L);
        f.backend.consume(Q, ConsumeRequest.of(1));
        Session s = f.model.session(1);
        assertFalse(s.nocount() || s.xactAbort(), s.toString());
        assertEquals(List.of(), f.model.logContaining("prepareMethod="), "no switch when already prepexec");
    }
}
