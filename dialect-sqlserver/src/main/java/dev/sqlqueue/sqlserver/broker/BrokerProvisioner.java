package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Creates and drops the backend's objects. Every operation runs in one transaction, begun explicitly
 * ({@link Sql#begin}: {@code setAutoCommit(false)} alone opens none), that first takes
 * an exclusive application lock ({@code sp_getapplock}, owner Transaction) on the prefix's resource, and
 * every CREATE is guarded by an existence check, so provisioning is idempotent and two processes
 * running it at once serialise instead of failing on "already exists". Before anything else it checks
 * {@code sys.databases.is_broker_enabled} and fails with a message that says how to enable the broker.
 *
 * <p>Thread-safe (stateless besides its statements). Callers pass a connection they own; it is left in
 * auto-commit mode as it was found.
 */
public final class BrokerProvisioner {
    /** How long provisioning waits for another process's provisioning, in ms. */
    public static final int LOCK_TIMEOUT_MILLIS = 60_000;
    /** sp_getapplock's answer when a transaction-owned lock is asked for outside a transaction ("sp_getapplock (Transact-SQL)"). */
    static final int NO_TRANSACTION = -999;

    private final BrokerStatements sql;
    private final BrokerOptions options;

    /**
     * A provisioner for one prefix.
     *
     * @param sql the statement texts of this prefix
     * @param options the backend's options (activation procedure and readers)
     */
    public BrokerProvisioner(BrokerStatements sql, BrokerOptions options) {
        this.sql = sql;
        this.options = options;
    }

    /**
     * @param c an open connection, in auto-commit mode unless said otherwise
     * @throws SqlQueueException if the broker is disabled in the database (is_broker_enabled = 0), if
     *     the lock is refused, or a statement fails
     * @throws SQLException if a statement fails in a way not mapped above
     */
    public void migrate(Connection c) throws SQLException {
        inLockedTransaction(c, () -> {
            Sql.update(c, sql.schema().createQueuesTable());
            Sql.update(c, sql.schema().createDialogsTable());
            Sql.update(c, sql.schema().createDialogsFillIndex());
            Sql.update(c, sql.schema().createFillsTable());
            Sql.update(c, sql.schema().createAttemptsTable());
            Sql.update(c, sql.schema().createDeadTable());
            Sql.update(c, sql.schema().createGroupsTable());
            Sql.update(c, sql.schema().createGroupsHandleIndex());
            Sql.update(c, sql.schema().createGroupPendingTable());
            Sql.update(c, sql.schema().createGroupPendingIndex());
            Sql.update(c, sql.schema().createHistoryTable());
            Sql.update(c, sql.schema().createHistoryIndex());
            Sql.update(c, sql.schema().createHistoryFinishedIndex());
            Sql.update(c, sql.schema().createKeysTable());
            Sql.update(c, sql.schema().createKeysExpiryIndex());
            Sql.update(c, sql.schema().createIdSequence());
        });
    }

    /**
     * Creates the queue's message types, contract, queues and services, and registers it.
     *
     * @param c an open connection, in auto-commit mode unless said otherwise
     * @param q the queue whose broker objects are created or dropped
     * @throws dev.sqlqueue.InvalidInputException (rule {@code queue.name}) if a registered queue's name
     *     equals this one under the database's collation but differs in letter case
     * @throws SQLException if a statement fails
     */
    public void createQueue(Connection c, QueueName q) throws SQLException {
        inLockedTransaction(c, () -> {
            List<Object[]> clash = Sql.query(c, sql.provisioning().conflictingQueueName(), q.value(), q.value());
            if (!clash.isEmpty()) {
                throw new dev.sqlqueue.InvalidInputException("queue.name", "queue name '" + q.value() + "' equals existing queue '"
                        + clash.get(0)[0] + "' under the database's collation (Service Broker object names follow it);"
                        + " choose a name that differs by more than letter case");
            }
            Sql.update(c, sql.provisioning().createMessageType(q));
            Sql.update(c, sql.provisioning().createEndOfStreamType(q));
            Sql.update(c, sql.provisioning().createContract(q));
            Sql.update(c, sql.provisioning().createQueue(q));
            Sql.update(c, sql.provisioning().createInitiatorQueue(q));
            Sql.update(c, sql.provisioning().createService(q));
            Sql.update(c, sql.provisioning().createInitiatorService(q));
            Sql.update(c, sql.provisioning().enforceQueueSettings(q));
            if (options.activationProcedure() != null) {
                Sql.update(c, sql.provisioning().attachActivation(q, options.activationProcedure(), options.maxQueueReaders(),
                        options.activationExecuteAs()));
            }
            Sql.update(c, sql.provisioning().registerQueue(), q.value(), q.value());
        });
    }

    /**
     * Drops the queue's services, queues, contract and message types, and deletes its rows.
     *
     * @param c an open connection, in auto-commit mode unless said otherwise
     * @param q the queue whose broker objects are created or dropped
     * @throws SQLException if a statement fails
     */
    public void dropQueue(Connection c, QueueName q) throws SQLException {
        inLockedTransaction(c, () -> {
            for (String s : sql.provisioning().dropQueueObjects(q)) {
                Sql.update(c, s);
            }
            Sql.update(c, sql.provisioning().deleteQueueRows(), q.value());
        });
    }

    /**
     * Fails unless the broker is enabled in the connection's database.
     *
     * @param c an open connection, in auto-commit mode unless said otherwise
     * @throws SQLException if the check itself fails
     */
    public void requireBrokerEnabled(Connection c) throws SQLException {
        List<Object[]> rows = Sql.query(c, sql.provisioning().brokerEnabled());
        if (rows.isEmpty()) {
            throw new SqlQueueException("cannot read sys.databases for the current database");
        }
        Object enabled = rows.get(0)[1];
        boolean on = enabled instanceof Boolean b ? b : Sql.asLong(enabled) != 0;
        if (!on) {
            String db = String.valueOf(rows.get(0)[0]);
            throw new SqlQueueException("Service Broker is disabled in database '" + db
                    + "' (sys.databases.is_broker_enabled = 0). Enable it with ALTER DATABASE "
                    + BrokerNames.quote(db) + " SET ENABLE_BROKER (it needs exclusive access to the database;"
                    + " WITH ROLLBACK IMMEDIATE ends other sessions), or SET NEW_BROKER on a restored copy (which ends every"
                    + " existing conversation and drops its messages).");
        }
    }

    private interface Work {
        void run() throws SQLException;
    }

    private void inLockedTransaction(Connection c, Work work) throws SQLException {
        requireBrokerEnabled(c);
        boolean auto = c.getAutoCommit();
        try {
            // sp_getapplock with owner Transaction needs an open transaction (B1): open it explicitly
            Sql.begin(c);
            List<Object[]> r = Sql.query(c, sql.provisioning().provisioningLock(), LOCK_TIMEOUT_MILLIS);
            long result = r.isEmpty() ? NO_TRANSACTION : Sql.asLong(r.get(0)[0]);
            if (result == NO_TRANSACTION) {
                throw new SqlQueueException("could not take the provisioning lock '" + sql.names().provisioningLock()
                        + "': sp_getapplock returned -999 (a lock owned by the transaction was asked for outside a transaction)");
            }
            if (result < 0) {
                throw new SqlQueueException("could not take the provisioning lock '" + sql.names().provisioningLock()
                        + "' within " + LOCK_TIMEOUT_MILLIS + " ms (sp_getapplock returned " + result + ")");
            }
            work.run();
            c.commit();
        } catch (SQLException | RuntimeException e) {
            BrokerConnections.rollback(c, e); // aborts the connection if the rollback failed (m2)
            throw e;
        } finally {
            BrokerConnections.restore(c, auto);
        }
    }
}
