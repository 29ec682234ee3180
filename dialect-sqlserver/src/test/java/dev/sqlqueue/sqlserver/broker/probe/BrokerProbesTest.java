package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.ProbeStatements;

import dev.sqlqueue.sqlserver.broker.BrokerNames;
import dev.sqlqueue.sqlserver.broker.BrokerStatements;
import dev.sqlqueue.sqlserver.broker.ServiceBrokerProvider;
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
    void theProviderListsV1ToV14() {
        assertEquals(List.of("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10", "V11", "V12", "V13", "V14"),
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
    void v1OnTheModelRunsTheClaimsOwnReleaseAndFindsTheMessagesBack() throws Exception {
        model.rows(sql.probes().probeQueueCount(q), new Object[] {2L, 1L}).rows(sql.admin().queueStatus(q), new Object[] {true, true});
        ProbeResult r = new ProbeSavepointRollback().run(context);
        assertTrue(r.observed().contains("received per claim 2,2,2,2,2,2"), r.observed());
        assertTrue(r.observed().contains("another session then received 2"), r.observed());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertEquals(ProbeSavepointRollback.ROUNDS, model.logContaining("exec " + sql.claims().releaseClaim(0) + " <--").size(),
                "the production release, inside its parameterised batch");
        assertEquals(1, model.logContaining("exec " + sql.claims().releaseClaim(1) + " <--").size(), "the m1 window's nack");
        assertTrue(model.logContaining("exec " + sql.claims().receiveMore(q)).size() >= ProbeSavepointRollback.ROUNDS);
        // the model does not wait in WAITFOR: B returns at once; the line is informational either way
        assertTrue(r.observed().matches("(?s).*m1 window \\(informational\\): A held 2 .* B received [0-2] .*"), r.observed());
    }

    @Test
    void v10OnTheModelShowsTheRangeLockOfTheOldReadAndNoneOfTakeKey() throws Exception {
        model.track(sql.names().keysTable(), "queue_name", "dedupe_key");
        ProbeResult r = new ProbeDedupRanges().run(context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("UPDLOCK, HOLDLOCK read: B failed after "), r.observed());
        assertTrue(r.observed().endsWith(" with error 1222; takeKey: B took its key"), r.observed());
    }

    @Test
    void v11OnTheModelFindsError650AtSerializableAndSnapshot() throws Exception {
        model.rows(ProbeStatements.probeIsolationSettings(), new Object[] {1L, 0L});
        ProbeResult r = new ProbeReadpastIsolation().run(context);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict(), r.observed());
        assertTrue(r.observed().startsWith("READ COMMITTED: ran; SERIALIZABLE: error 650"), r.observed());
    }

    @Test
    void v12SaysItCannotCheckWhenReadCommittedSnapshotIsOff() throws Exception {
        model.rows(ProbeStatements.probeIsolationSettings(), new Object[] {0L, 0L});
        ProbeResult r = new ProbeReadpastRcsi().run(context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict());
        assertTrue(r.observed().startsWith("READ_COMMITTED_SNAPSHOT is OFF in this database"), r.observed());
    }

    @Test
    void v13OnTheModelFindsNocountLeftOnByAPlainBatchAndOffAfterTheSwitch() throws Exception {
        model.rows(sql.provisioning().brokerEnabled(), new Object[] {"appdb", true});
        ProbeResult r = new ProbeNocount().run(context);
        assertEquals("prepareMethod=none: @@OPTIONS & 512 = 512; switched to prepexec: @@OPTIONS & 512 = 0 (switched from none)",
                r.observed());
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, r.verdict());
    }

    @Test
    void v5DecidesOnTheTypeAndSaysWhenAUtcServerCannotTell() throws Exception {
        model.rows(sql.probes().probeEnqueueTimeType(q), new Object[] {"datetime", 20L, 0L})
                .rows(sql.probes().probeEnqueueTimeType(q), new Object[] {"datetime", 3_600_020L, 60L})
                .rows(sql.probes().probeEnqueueTimeType(q), new Object[] {"datetimeoffset", 20L, 60L});
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, new ProbeEnqueueTime().run(context).verdict(), "a UTC server");
        assertEquals(ProbeResult.Verdict.DIFFERS, new ProbeEnqueueTime().run(context).verdict(), "datetime on UTC+1");
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, new ProbeEnqueueTime().run(context).verdict(), "datetimeoffset");
    }

    @Test
    void v8WithoutAnApplicationUserSaysWhatItNeeds() throws Exception {
        ProbeResult r = new ProbePermissions().run(context);
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, r.verdict());
        assertTrue(r.observed().contains("broker.probeUser"), r.observed());
    }
}
