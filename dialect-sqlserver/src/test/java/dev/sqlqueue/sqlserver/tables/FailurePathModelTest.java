package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review finding 2, on the driver and server model: mssql-jdbc's {@code setAutoCommit(true)} commits an
 * open transaction ({@code IF @@TRANCOUNT > 0 COMMIT TRAN}), so no failure path may reach it with the
 * unit of work's transaction still open; and a transactional consume that meets an Error must not keep
 * its connection and locks.
 */
class FailurePathModelTest {
    private static final QueueName Q = QueueName.of("jobs");

    private static List<Effect.State> states(ModelFixture f, String kind) {
        return f.model.effects(kind, "[dbo].[sqlq_messages]").stream().map(Effect::state).toList();
    }

    @Test
    void anErrorInTheMiddleOfEnqueueAllCommitsNothing() {
        SqlServerModel model = new SqlServerModel();
        ModelFixture f = new ModelFixture(model, new FaultyJdbc(model.dataSource()).errorAfterExecution(2).dataSource());
        f.enqueueIds(11L, 12L, 13L);
        assertThrows(OutOfMemoryError.class, () -> f.backend.enqueueAll(Q,
                List.of(Message.ofText("a"), Message.ofText("b"), Message.ofText("c"))));
        assertEquals(List.of(Effect.State.ROLLED_BACK, Effect.State.ROLLED_BACK), states(f, "INSERT"),
                "a half-done enqueueAll must not be committed");
        assertTrue(model.session(1).closed());
        assertTrue(model.session(1).autoCommit(), "the connection goes back in the mode it came in");
    }

    /**
     * The second insert of an enqueueAll fails before its batch runs (the model's scripted failure: an
     * error the driver raises before sending, so no XACT_ABORT rolls anything back and the first insert
     * stays in the open transaction), and the rollback then fails on the still-live connection:
     * restoring auto-commit would commit the first insert. The connection must be aborted instead (the
     * server rolls back when the session ends).
     */
    @Test
    void aRollbackThatFailsOnALiveConnectionDoesNotLetRestoringAutoCommitCommit() {
        SqlServerModel model = new SqlServerModel();
        ModelFixture f = new ModelFixture(model, new FaultyJdbc(model.dataSource()).rollbackFails().dataSource());
        f.enqueueIds(11L);
        model.fail(f.sql.get("enqueue"), 0, "22018");
        assertThrows(RuntimeException.class, () -> f.backend.enqueueAll(Q, List.of(Message.ofText("a"), Message.ofText("b"))));
        assertEquals(List.of(Effect.State.ROLLED_BACK), states(f, "INSERT"), "the first insert must not be committed");
        assertTrue(model.session(1).closed());
    }

    @Test
    void anErrorWhileReadingATransactionalClaimRollsItBackAndReturnsTheConnection() {
        SqlServerModel model = new SqlServerModel();
        ModelFixture f = new ModelFixture(model, new FaultyJdbc(model.dataSource()).errorAfterExecution(1).dataSource());
        f.claims(7L, 8L);
        assertThrows(OutOfMemoryError.class, () -> f.backend.consume(Q, ConsumeRequest.of(2).withMode(ClaimMode.TRANSACTIONAL)));
        assertTrue(model.session(1).closed(), "the claim's connection is not leaked");
        assertEquals(0, model.session(1).tranCount());
        assertEquals(List.of(Effect.State.ROLLED_BACK), f.model.effects("WITH", "[dbo].[sqlq_messages]").stream()
                .map(Effect::state).toList(), "the claim's row locks are released by the rollback, not held");
        assertEquals(0, f.backend.openTransactionalClaims());
    }
}
