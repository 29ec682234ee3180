package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerProvider;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Probe V5 (review, "joined enqueue into a missing queue from a caller in SNAPSHOT isolation"): the
 * joined enqueue misses the queue, the backend creates it on its own connection and commits, then the
 * insert is repeated on the caller's connection, whose snapshot began before the queue row existed.
 * Does the repeated insert's {@code REPEATABLEREAD} read of the queue row see it? Needs
 * {@code ALLOW_SNAPSHOT_ISOLATION ON} (inconclusive otherwise). The caller's transaction is rolled back;
 * one table set is created and dropped; not thread-safe.
 */
final class SnapshotJoinedEnqueueProbe implements Probe {
    /** mssql-jdbc's SNAPSHOT isolation constant ({@code ISQLServerConnection.TRANSACTION_SNAPSHOT}). */
    static final int SNAPSHOT = 4096;
    private final ProbeTables.Migration migration;

    SnapshotJoinedEnqueueProbe() {
        this(SqlServerMigrator::migrate);
    }

    SnapshotJoinedEnqueueProbe(ProbeTables.Migration migration) {
        this.migration = migration;
    }

    @Override
    public String id() {
        return "V5";
    }

    @Override
    public String question() {
        return "Does an enqueue in a SNAPSHOT caller's transaction into a queue that does not exist yet succeed?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'Every statement' (enqueueJoined): a missing queue is created in the backend's own"
                + " transaction first and the insert then succeeds (unverified for SNAPSHOT callers)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        try (ProbeTables t = ProbeTables.create(context, "sj_", ClaimOrder.FIFO, Layout.CLUSTERED, migration)) {
            try (Connection c = context.connect();
                 PreparedStatement ps = c.prepareStatement(t.sql.probe("probeDatabaseVersioning")); ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getInt("snapshot_isolation_state") != 1) {
                    return ProbeResult.inconclusive("ALLOW_SNAPSHOT_ISOLATION is not ON in this database; nothing measured");
                }
            } catch (SQLException e) {
                return ProbeResult.inconclusive("could not read whether ALLOW_SNAPSHOT_ISOLATION is ON (sys.databases): "
                        + ProbeObservations.describe(e) + "; nothing measured");
            }
            QueueConfig config = context.config().toBuilder().backend("sqlserver").tablePrefix(t.prefix).migrate(false)
                    .poolSize(2).build();
            try (QueueBackend backend = new SqlServerProvider().open(config); Connection caller = context.connect()) {
                caller.setAutoCommit(false);
                caller.setTransactionIsolation(SNAPSHOT);
                try {
                    try (PreparedStatement ps = caller.prepareStatement(t.sql.probe("probeTouchQueues"));
                         ResultSet rs = ps.executeQuery()) {
                        rs.next(); // the snapshot begins at the first read
                    }
                    try {
                        long id = backend.enqueue(caller, QueueName.of("probe_missing"), Message.ofText("x"));
                        return ProbeResult.asDocumented("the enqueue returned id " + id + " (queue created by the backend,"
                                + " insert repeated in the caller's SNAPSHOT transaction; rolled back afterwards)");
                    } catch (SqlQueueException e) {
                        return ProbeResult.differs("the enqueue failed: " + e.getMessage());
                    }
                } finally {
                    caller.rollback();
                }
            }
        }
    }
}
