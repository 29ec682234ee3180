package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.sqlqueue.Message;
import dev.sqlqueue.sqlserver.model.Session;
import dev.sqlqueue.sqlserver.model.SqlServerModel.PrepareMethod;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Re-review N7, on the driver and server model: with mssql-jdbc {@code prepareMethod=none} a prepared
 * statement is a plain batch, and a SET in a plain batch stays on the session ("SET Statements
 * (Transact-SQL)", Considerations). The Broker statements that begin with {@code SET NOCOUNT ON} (the
 * provisioning lock, the pool fill, the pooled SEND) must not leave it on a connection a pool shared with
 * the application hands out again.
 */
class BrokerSessionOptionsTest {
    @Test
    void backendConnectionsComeBackWithoutNocountUnderPrepareMethodNone() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.jdbc.prepareMethod(PrepareMethod.NONE);
        f.jdbc.rows(f.sql.provisioning().brokerEnabled(), new Object[] {"appdb", true});
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L});
        f.backend().migrate();
        f.backend().enqueue(Q, Message.ofText("a"));
        f.backend().close();
        for (int id = 1; id <= f.jdbc.sessionsOpened(); id++) {
            Session s = f.jdbc.session(id);
            assertFalse(s.nocount(), s + " keeps NOCOUNT ON");
            assertEquals(PrepareMethod.NONE, s.prepareMethod(), "the connection's own prepareMethod is given back: " + s);
        }
    }

    @Test
    void theDefaultPrepareMethodIsLeftAsItIs() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        f.broker.nextDialogs(H1);
        f.jdbc.rows(f.sql.sending().send(Q), new Object[] {41L});
        f.backend().enqueue(Q, Message.ofText("a"));
        assertEquals(List.of(), f.jdbc.logContaining("prepareMethod="), "no switch when already prepexec");
    }
}
