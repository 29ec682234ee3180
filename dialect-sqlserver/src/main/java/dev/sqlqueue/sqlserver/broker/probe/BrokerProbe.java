package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.BrokerNames;
import dev.sqlqueue.sqlserver.broker.BrokerOptions;
import dev.sqlqueue.sqlserver.broker.BrokerProvisioner;
import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * Base of the Service Broker probes (review questions V1..V8; re-review P2..P7 as V9..V14): provisions
 * the backend's objects under the probe's prefix with the backend's own statements (one queue,
 * {@value #QUEUE}), runs the experiment, and always drops what it created: it ends the probe services'
 * conversations WITH CLEANUP, drops the queue's objects and the prefix's tables. All SQL is in the role
 * classes of {@link BrokerStatements}. Not thread-safe (the runner calls one probe at a time).
 */
public abstract class BrokerProbe implements Probe {
    static final String QUEUE = "probe";
    private final String id;
    private final String question;
    private final String documented;

    BrokerProbe(String id, String question, String documented) {
        this.id = id;
        this.question = question;
        this.documented = documented;
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final String question() {
        return question;
    }

    @Override
    public final String documented() {
        return documented;
    }

    /** The objects of one run, and helpers for experiments on them. */
    static final class Setup {
        final ProbeContext context;
        final BrokerStatements sql;
        final QueueName q = QueueName.of(QUEUE);

        Setup(ProbeContext context) {
            this.context = context;
            this.sql = new BrokerStatements(new BrokerNames(context.prefix()));
        }

        Connection connect() throws SQLException {
            return context.connect();
        }

        /** Begins a dialog to the probe queue on {@code c} (in its current mode) and returns its handle. */
        UUID begin(Connection c, int lifetimeSeconds) throws SQLException {
            return Sql.asUuid(Sql.query(c, sql.probes().probeBeginDialog(q, lifetimeSeconds)).get(0)[0]);
        }

        void send(Connection c, UUID h, int marker) throws SQLException {
            Sql.update(c, sql.probes().probeSend(q), h.toString(), new byte[] {(byte) marker});
        }

        /** Begins a dialog and sends {@code count} messages on it, committed. */
        UUID sendCommitted(int count) throws SQLException {
            try (Connection c = connect()) {
                Sql.begin(c);
                UUID h = begin(c, BrokerStatements.LONGEST_LIFETIME_SECONDS);
                for (int i = 1; i <= count; i++) {
                    send(c, h, i);
                }
                c.commit();
                c.setAutoCommit(true);
                return h;
            }
        }

        /** Messages on the probe queue and the lowest queuing_order. */
        long[] queueCount(Connection c) throws SQLException {
            Object[] r = Sql.query(c, sql.probes().probeQueueCount(q)).get(0);
            return new long[] {Sql.asLong(r[0]), Sql.asLong(r[1])};
        }

        /** Runs {@code sql} as a plain batch ({@link java.sql.Statement}): a SET in it stays on the session. */
        void plain(Connection c, String sql) throws SQLException {
            try (java.sql.Statement st = c.createStatement()) {
                st.execute(sql);
            }
        }

        long tranCount(Connection c) throws SQLException {
            return Sql.asLong(Sql.query(c, ProbeStatements.probeTranCount()).get(0)[0]);
        }
    }

    @Override
    public final ProbeResult run(ProbeContext context) throws Exception {
        Setup s = new Setup(context);
        BrokerProvisioner provisioner = new BrokerProvisioner(s.sql, BrokerOptions.from(context.config()));
        ProbeResult result;
        try {
            try (Connection c = context.connect()) {
                provisioner.migrate(c);
                provisioner.createQueue(c, s.q);
            }
            result = experiment(s);
        } catch (Exception | Error e) {
            try {
                cleanUp(s, provisioner);
            } catch (Exception cleanUpFailure) {
                e.addSuppressed(cleanUpFailure); // the experiment's failure is the one to report
            }
            throw e;
        }
        cleanUp(s, provisioner);
        return result;
    }

    private static void cleanUp(Setup s, BrokerProvisioner provisioner) throws SQLException {
        try (Connection c = s.connect()) {
            Sql.update(c, s.sql.probes().probeCleanup(s.q));
            provisioner.dropQueue(c, s.q);
            for (String drop : s.sql.schema().dropPrefixObjects()) {
                Sql.update(c, drop);
            }
        }
    }

    /** The experiment proper, on provisioned objects; the caller cleans up. */
    abstract ProbeResult experiment(Setup s) throws Exception;

    /**
     * The probes of the sqlserver-broker backend, V1 to V14, in order.
     *
     * @return the probes of the sqlserver-broker backend, V1 to V14, in order
     */
    public static List<Probe> all() {
        return List.of(new ProbeSavepointRollback(), new ProbeLockedTargetSend(), new ProbeImplicitTransactions(),
                new ProbeSpacerEnd(), new ProbeEnqueueTime(), new ProbeStatistics(), new ProbeSpreadFactor(), new ProbePermissions(),
                new ProbeLifetimeInTransit(), new ProbeDedupRanges(), new ProbeReadpastIsolation(), new ProbeReadpastRcsi(),
                new ProbeNocount(), new ProbeSpacerLocks());
    }

    static void sleep(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }
}
