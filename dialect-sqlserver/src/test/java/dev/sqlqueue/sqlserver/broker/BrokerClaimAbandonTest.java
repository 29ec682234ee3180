package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static dev.sqlqueue.sqlserver.broker.Fixture.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.sqlserver.model.Effect;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Re-review m2, kept as a regression test (the review's {@code round3-evidence/ReviewDemoAbandonTest}): a
 * claim whose rollback fails on a live session must not turn auto-commit back on, because mssql-jdbc's
 * {@code setAutoCommit(true)} sends {@code IF @@TRANCOUNT > 0 COMMIT TRAN} and would commit the RECEIVE; the
 * message would then be neither delivered nor dead-lettered.
 */
class BrokerClaimAbandonTest {
    private static final ConsumeRequest ONE = new ConsumeRequest(1, Duration.ofSeconds(30), Duration.ZERO, ClaimMode.TRANSACTIONAL);

    @Test
    void aFailedRollbackInAbandonMustNotCommitTheReceive() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        Delivery d = f.backend().consume(Q, ONE).get(0);
        f.jdbc.fail(f.sql.deadLetters().insertDeadLetter(), 1105, "S0001"); // e.g. filegroup full: statement error, transaction stays open
        f.jdbc.failNextRollback(0);                             // the rollback request fails, the session is alive
        assertThrows(RuntimeException.class, () -> f.backend().deadLetter(d.receipt(), "bad"));
        List<Effect.State> receive = f.jdbc.effects("RECEIVE", "").stream().map(Effect::state).toList();
        assertEquals(List.of(Effect.State.ROLLED_BACK), receive, "the RECEIVE must not be committed: the message would be lost");
        assertTrue(f.jdbc.logContaining("c1 autoCommit=true").isEmpty(), "auto-commit is not turned back on: " + f.jdbc.log());
        assertTrue(f.jdbc.log().contains("c1 abort"), "the session is aborted: " + f.jdbc.log());
        assertEquals(1, f.broker.messages(f.targetQueue()).size(), "the message is back on the queue");
    }

    @Test
    void closingTheBackendWithAClaimWhoseRollbackFailsAbortsItsSession() {
        Fixture f = new Fixture();
        f.arrive(data(H1, 1, 5L, "x", Map.of()));
        f.backend().consume(Q, ONE);
        f.jdbc.failNextRollback(0);
        f.backend().close();
        assertEquals(List.of(Effect.State.ROLLED_BACK), f.jdbc.effects("RECEIVE", "").stream().map(Effect::state).toList());
        assertTrue(f.jdbc.logContaining("c1 autoCommit=true").isEmpty(), f.jdbc.log().toString());
    }
}
