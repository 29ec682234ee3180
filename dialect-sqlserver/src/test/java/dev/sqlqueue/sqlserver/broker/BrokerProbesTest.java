package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import dev.sqlqueue.sqlserver.model.BrokerModel;
import dev.sqlqueue.sqlserver.model.SqlServerModel;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The probes' call sequences on the {@link SqlServerModel}: what the model answers is what the
 * documentation says, so a probe run on it reports AS_DOCUMENTED where the model decides, and every
 * probe cleans up whatever happens. Nothing here says how a real server answers: that is the probes' job.
 */
class BrokerProbesTest {
    private static final String PREFIX = "sqlqprobe_ab12_";
    private final SqlServerModel model = new SqlServerModel();
    private final BrokerModel broker = BrokerModel.on(model);
    private final BrokerStatements sql = new BrokerStatements(new BrokerNames(PREFIX));
    private final QueueName q = QueueName.of(BrokerProbe.QUEUE);

    private final ProbeContext context = new ProbeContext() {
        @Override
        public Connection connect() throws SQLException {
            return model.dataSource().getConnection();
        }

        @Override
        public String prefix() {
            return PREFIX;
        }

        @Override
        public QueueConfig config() {
            return QueueConfig.builder().url("jdbc:sqlserver://model").backend("sqlserver-broker").build();
        }
    };

    BrokerProbesTest() {
        model.rows(sql.provisioning().brokerEnabled(), new Object[] {"appdb", true});
        broker.service(sql.names().service(q), sql.names().qualified(sql.names().queue(q)));
    }

    @Test
    void theProviderListsV1ToV8() {
        assertEquals(List.of("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8"),
                new ServiceBrokerProvider().probes().stream().map(Probe::id).collect(Collectors.toList()));
    }

    @Test
    void everyProbeDropsWhatItCreatedEvenWhenItsExperimentFails() {
        for (Probe p : BrokerProbe.all()) {
            SqlServerModel m = new SqlServerModel();
            BrokerModel.on(m);
            m.rows(sql.provisioning().brokerEnabled(), new Object[] {"appdb", true});
            ProbeContext ctx = new ProbeContext() {
                @Override
                public Connection connect() throws SQLException {
                    return m.dataSource().getConnection();
                }

                @Override
                public String prefix() {
                    return PREFIX;
                }

                @Override
                public QueueConfig config() {
                    return context.config();
                }
            };
            try {
                p.run(ctx);
            } catch (Exception expected) {
                // the model scripts nothing the experiment reads, so most fail: the clean-up must still run
            }
            List<String> ran = m.executedSql();
            List<String> drops = sql.schema().dropPrefixObjects();
            assertEquals(drops, ran.subList(ran.size() - drops.size(), ran.size()), p.id() + ": " + ran);
            assertTrue(ran.contains(sql.probes().probeCleanup(q)) && ran.containsAll(sql.provisioning().dropQueueObjects(q)), p.id());
            assertTrue(ran.stream().filter(x -> x.startsWith("IF OBJECT_ID") || x.startsWith("CREATE") || x.startsWith("ALTER")
                    || x.startsWith("DROP") || x.startsWith("IF EXISTS") || x.startsWith("IF NOT EXISTS"))
                    .allMatch(x -> x.contains(PREFIX) || x.contains("sqlqprobe_ab12")), p.id() + " touches only its own objects");
            for (int i = 1; i <= m.sessionsOpened(); i++) {
                assertTrue(m.session(i).closed(), p.id() + ": connection " + i + " closed");
            }
        }
    }

    @Test
    void v3OnTheModelFindsWhatTheDocumentationSays() throws Exception {
        ProbeResult r = new ProbeImplicitTransactions().run(context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertEquals("sp_getapplock returned -999 (@@TRANCOUNT then 0); @@TRANCOUNT after BEGIN DIALOG 0, SEND 0,"
                + " RECEIVE 0 (1 received), END CONVERSATION 0", r.observed());
        List<String> ran = model.executedSql();
        int lock = ran.indexOf(sql.probes().probeApplock());
        assertEquals(List.of(sql.probes().probeApplock(), ProbeStatements.probeTranCount(), sql.probes().probeBeginDialog(q, Integer.MAX_VALUE),
                ProbeStatements.probeTranCount(), sql.probes().probeSend(q), ProbeStatements.probeTranCount(), sql.probes().probeReceive(q),
                ProbeStatements.probeTranCount(), sql.probes().probeEnd(), ProbeStatements.probeTranCount()), ran.subList(lock, lock + 10));
    }

    @Test
    void v1OnTheModelFindsTheMessagesBackAfterEachSavepointRollback() throws Exception {
        model.rows(sql.probes().probeQueueCount(q), new Object[] {2L, 1L}).rows(sql.admin().queueStatus(q), new Object[] {true, true});
        ProbeResult r = new ProbeSavepointRollback().run(context);
        assertTrue(r.observed().contains("received per round 2,2,2,2,2,2"), r.observed());
        assertTrue(r.observed().contains("another session then received 2"), r.observed());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertEquals(ProbeSavepointRollback.ROUNDS + 1, model.logContaining("rollback to " + BrokerReceiver.SAVEPOINT).size(),
                "six rounds, then the wake-up measurement");
        // the model does not wait in WAITFOR: B returns at once (0 while A holds the group, 2 if its thread
        // started only after A's rollback on a loaded machine); the line is informational either way
        assertTrue(r.observed().matches("(?s).*B, waiting in WAITFOR \\(RECEIVE\\), returned [02] message\\(s\\).*"), r.observed());
    }
}
