package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.SqlQueueException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Call sequences of provisioning on the {@link dev.sqlqueue.sqlserver.model.SqlServerModel}. */
class BrokerProvisionerTest {
    private static Fixture enabled(String... options) {
        Fixture f = new Fixture(options);
        f.jdbc.rows(f.sql.provisioning().brokerEnabled(), new Object[] {"appdb", true});
        return f;
    }

    @Test
    void migrateTakesTheLockThenCreatesEveryTableInOneTransaction() {
        Fixture f = enabled();
        f.backend().migrate();
        BrokerStatements s = f.sql;
        assertEquals(List.of(
                "c1 exec " + s.provisioning().brokerEnabled() + " <-- []",
                "c1 autoCommit=false",
                "c1 savepoint sqlq_begin (opened the transaction)",
                "c1 exec " + s.provisioning().provisioningLock() + " <-- [60000]",
                "c1 exec " + s.schema().createQueuesTable() + " <-- []",
                "c1 exec " + s.schema().createDialogsTable() + " <-- []",
                "c1 exec " + s.schema().createDialogsFillIndex() + " <-- []",
                "c1 exec " + s.schema().createFillsTable() + " <-- []",
                "c1 exec " + s.schema().createAttemptsTable() + " <-- []",
                "c1 exec " + s.schema().createDeadTable() + " <-- []",
                "c1 exec " + s.schema().createGroupsTable() + " <-- []",
                "c1 exec " + s.schema().createGroupsHandleIndex() + " <-- []",
                "c1 exec " + s.schema().createGroupPendingTable() + " <-- []",
                "c1 exec " + s.schema().createGroupPendingIndex() + " <-- []",
                "c1 exec " + s.schema().createHistoryTable() + " <-- []",
                "c1 exec " + s.schema().createHistoryIndex() + " <-- []",
                "c1 exec " + s.schema().createHistoryFinishedIndex() + " <-- []",
                "c1 exec " + s.schema().createKeysTable() + " <-- []",
                "c1 exec " + s.schema().createKeysExpiryIndex() + " <-- []",
                "c1 exec " + s.schema().createIdSequence() + " <-- []",
                "c1 commit",
                "c1 autoCommit=true",
                "c1 close"), f.jdbc.log());
    }

    @Test
    void provisioningOnAnAutoCommitConnectionTakesTheLockInsideATransactionAndCommitsEveryTableWithIt() {
        // B1: setAutoCommit(false) opens no transaction and sp_getapplock (owner Transaction) then returns
        // -999; the model answers as the server would, so this failed before the explicit begin
        Fixture f = enabled();
        f.backend().migrate();
        assertTrue(f.jdbc.trace().stream().noneMatch(x -> x.contains("-999")), f.jdbc.trace().toString());
        List<dev.sqlqueue.sqlserver.model.Effect> creates = f.jdbc.effects("CREATE", "");
        assertTrue(creates.isEmpty(), "the model cannot decide IF OBJECT_ID(...) IS NULL, so it claims no CREATE ran");
        assertEquals(0, f.jdbc.session(1).tranCount(), "committed");
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"), "a real commit, not a no-op");
    }

    @Test
    void aLockAskedForOutsideATransactionIsReportedAsSuch() {
        Fixture f = enabled();
        // the batch's own guard: without an open transaction it throws before sp_getapplock could return -999
        java.sql.SQLException e = assertThrows(java.sql.SQLException.class, () -> {
            try (java.sql.Connection c = f.jdbc.dataSource().getConnection()) {
                c.setAutoCommit(false);
                Sql.query(c, f.sql.provisioning().provisioningLock(), 1000);
            }
        });
        assertEquals(51000, e.getErrorCode());
    }

    @Test
    void createQueueTurnsPoisonHandlingOffOnAQueueThatAlreadyExisted() {
        // m4: CREATE QUEUE is skipped for an existing queue, which kept POISON_MESSAGE_HANDLING ON (the default)
        Fixture f = enabled();
        assertTrue(f.broker.poisonHandling(f.targetQueue()));
        f.backend().createQueue(Q);
        assertFalse(f.broker.poisonHandling(f.targetQueue()));
        assertFalse(f.broker.poisonHandling(f.initiatorQueue()));
        assertTrue(f.broker.enabled(f.targetQueue()));
    }

    @Test
    void aQueueNameThatDiffersOnlyByCaseFromARegisteredOneIsRefused() {
        // m3: object names follow the database collation, so 'jobs' would bind to 'Jobs'' objects
        Fixture f = enabled();
        f.jdbc.rows(f.sql.provisioning().conflictingQueueName(), new Object[] {"Jobs"});
        dev.sqlqueue.InvalidInputException e = assertThrows(dev.sqlqueue.InvalidInputException.class, () -> f.backend().createQueue(Q));
        assertEquals("queue.name", e.rule());
        assertTrue(e.getMessage().contains("existing queue 'Jobs'"), e.getMessage());
        assertFalse(f.jdbc.executedSql().contains(f.sql.provisioning().createMessageType(Q)), "nothing is created");
        assertEquals(List.of("c1 exec " + f.sql.provisioning().conflictingQueueName() + " <-- [jobs, jobs]"), f.jdbc.logContaining("Latin1_General_100_BIN2"));
    }

    @Test
    void disabledBrokerFailsClearlyAndCreatesNothing() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.provisioning().brokerEnabled(), new Object[] {"appdb", false});
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend().createQueue(Q));
        assertTrue(e.getMessage().contains("Service Broker is disabled in database 'appdb'"), e.getMessage());
        assertTrue(e.getMessage().contains("is_broker_enabled = 0"), e.getMessage());
        assertTrue(e.getMessage().contains("ALTER DATABASE [appdb] SET ENABLE_BROKER"), e.getMessage());
        assertTrue(e.getMessage().contains("NEW_BROKER on a restored copy (which ends every existing conversation and drops its"
                + " messages)"), e.getMessage());
        assertEquals(List.of(f.sql.provisioning().brokerEnabled()), f.jdbc.executedSql());
    }

    @Test
    void refusedLockRollsBackWithoutCreating() {
        Fixture f = new Fixture();
        f.jdbc.rows(f.sql.provisioning().brokerEnabled(), new Object[] {"appdb", 1});
        f.jdbc.refuseApplocks(-1);
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.backend().migrate());
        assertTrue(e.getMessage().contains("sp_getapplock returned -1"), e.getMessage());
        assertEquals(List.of(f.sql.provisioning().brokerEnabled(), f.sql.provisioning().provisioningLock()), f.jdbc.executedSql());
        assertEquals(List.of("c1 rollback"), f.jdbc.logContaining("rollback"), "a real rollback of the open transaction");
        assertTrue(f.jdbc.logContaining("commit").isEmpty());
    }

    @Test
    void createQueueCreatesEveryObjectThenRegistersIt() {
        Fixture f = enabled("broker.activationProcedure", "ops.run_task", "broker.maxQueueReaders", "5");
        f.backend().createQueue(Q);
        BrokerStatements s = f.sql;
        assertEquals(List.of(s.provisioning().brokerEnabled(), s.provisioning().provisioningLock(), s.provisioning().conflictingQueueName(), s.provisioning().createMessageType(Q), s.provisioning().createEndOfStreamType(Q),
                s.provisioning().createContract(Q), s.provisioning().createQueue(Q), s.provisioning().createInitiatorQueue(Q), s.provisioning().createService(Q),
                s.provisioning().createInitiatorService(Q), s.provisioning().enforceQueueSettings(Q), s.provisioning().attachActivation(Q, "ops.run_task", 5, "OWNER"),
                s.provisioning().registerQueue()),
                f.jdbc.executedSql());
        assertEquals(List.of("c1 exec " + s.provisioning().registerQueue() + " <-- [jobs, jobs]"), f.jdbc.logContaining(s.provisioning().registerQueue()));
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
    }

    @Test
    void noActivationUnlessConfigured() {
        Fixture f = enabled();
        f.backend().createQueue(Q);
        assertFalse(f.jdbc.executedSql().stream().anyMatch(x -> x.contains("ACTIVATION")));
    }

    @Test
    void failingStatementRollsBackEverything() {
        Fixture f = enabled();
        f.jdbc.fail(f.sql.provisioning().createContract(Q), 15151, "S0001");
        assertThrows(SqlQueueException.class, () -> f.backend().createQueue(Q));
        assertTrue(f.jdbc.logContaining("commit").isEmpty());
        assertEquals(List.of("c1 rollback"), f.jdbc.logContaining("rollback"));
        assertFalse(f.jdbc.executedSql().contains(f.sql.provisioning().createQueue(Q)), "nothing after the failure runs");
    }

    @Test
    void dropRemovesObjectsThenRows() {
        Fixture f = enabled();
        f.backend().dropQueue(Q);
        List<String> ran = f.jdbc.executedSql();
        assertEquals(f.sql.provisioning().dropQueueObjects(Q), ran.subList(2, 9));
        assertEquals(f.sql.provisioning().deleteQueueRows(), ran.get(9));
        assertEquals(List.of("c1 commit"), f.jdbc.logContaining("commit"));
    }
}
