package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.spi.BackendDiscovery;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServiceBrokerProviderTest {
    private final ServiceBrokerProvider provider = new ServiceBrokerProvider();

    @Test
    void chosenByNameOnly() {
        assertEquals("sqlserver-broker", provider.name());
        assertFalse(provider.acceptsUrl("jdbc:sqlserver://db:1433;databaseName=app"));
        assertFalse(provider.acceptsUrl("jdbc:h2:mem:x"));
        QueueConfig byName = QueueConfig.builder().url("jdbc:sqlserver://db:1433").backend("sqlserver-broker").build();
        assertEquals(ServiceBrokerProvider.class, BackendDiscovery.find(byName).getClass());
    }

    @Test
    void servicesFileListsBothSqlServerProviders() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/services/dev.sqlqueue.spi.BackendProvider")) {
            assertEquals(List.of("dev.sqlqueue.sqlserver.tables.SqlServerProvider", "dev.sqlqueue.sqlserver.broker.ServiceBrokerProvider"),
                    new String(in.readAllBytes(), StandardCharsets.UTF_8).trim().lines().toList());
        }
    }

    @Test
    void badOptionFailsBeforeAnyConnection() {
        QueueConfig c = QueueConfig.builder().url("jdbc:sqlserver://127.0.0.1:1").backend("sqlserver-broker")
                .option("broker.spreadFactor", "-5").build();
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> provider.open(c));
        assertTrue(e.getMessage().contains("broker.spreadFactor"));
    }

    @Test
    void capabilitiesAreDeclaredHonestly() {
        var caps = new Fixture().backend().capabilities();
        assertEquals(Set.of(ClaimMode.TRANSACTIONAL), caps.claimModes());
        assertEquals(EnumSet.of(Capability.MESSAGE_GROUPS, Capability.TRANSACTIONAL_ENQUEUE, Capability.SERVER_SIDE_WAIT,
                Capability.DROP_SCHEMA, Capability.DEDUPLICATION), EnumSet.copyOf(caps.features()));
        var withHistory = new Fixture();
        assertTrue(new ServiceBrokerBackend(withHistory.jdbc.dataSource(), null,
                dev.sqlqueue.QueueConfig.builder().url("jdbc:sqlserver://nowhere").backend("sqlserver-broker").history(true).build(),
                withHistory.options, false).capabilities().has(Capability.HISTORY), "HISTORY only when the config keeps history");
        assertEquals(Ordering.PER_GROUP, caps.ordering());
        assertEquals(1 << 20, caps.maxPayloadBytes());
        assertEquals(100, caps.maxClaimBatch());
        assertTrue(new Fixture().backend().waitsInConsume());
    }

    @Test
    void everyConnectionGoesThroughTheConfigsWrapper() {
        dev.sqlqueue.sqlserver.model.SqlServerModel model = new dev.sqlqueue.sqlserver.model.SqlServerModel();
        java.util.concurrent.atomic.AtomicInteger borrowed = new java.util.concurrent.atomic.AtomicInteger();
        QueueConfig c = QueueConfig.builder().backend("sqlserver-broker").dataSource(model.dataSource()).migrate(false)
                .dataSourceWrapper(counting(borrowed)).build();
        try {
            provider.open(c).close();
        } catch (RuntimeException unscripted) {
            // the model has no script for the broker check; what matters is where its connection came from
        }
        assertTrue(model.sessionsOpened() >= 1, "the broker check borrowed a connection");
        assertEquals(model.sessionsOpened(), borrowed.get(), "every connection was borrowed through the wrapper");
    }

    /**
     * Seen on Babelfish: close() after a failed open warned about a missing dialogs table. A backend that
     * never held a pooled dialog has nothing to give back, and runs no statement on close.
     */
    @Test
    void closeAfterAFailedOpenRunsNothing() {
        dev.sqlqueue.sqlserver.model.SqlServerModel model = new dev.sqlqueue.sqlserver.model.SqlServerModel();
        BrokerStatements sql = new BrokerStatements(new BrokerNames("sqlq_"));
        model.rows(sql.provisioning().brokerEnabled(), new Object[] {"appdb", false});
        QueueConfig c = QueueConfig.builder().backend("sqlserver-broker").dataSource(model.dataSource()).migrate(false).build();
        dev.sqlqueue.SqlQueueException e = org.junit.jupiter.api.Assertions.assertThrows(dev.sqlqueue.SqlQueueException.class,
                () -> provider.open(c));
        assertTrue(e.getMessage().contains("Service Broker is disabled"), e.getMessage());
        assertEquals(java.util.List.of(sql.provisioning().brokerEnabled()), model.executedSql(), "nothing but the check ran");
    }

    /** A wrapper, as the kit installs one, that counts the connections borrowed through it. */
    private static java.util.function.UnaryOperator<javax.sql.DataSource> counting(java.util.concurrent.atomic.AtomicInteger n) {
        return ds -> (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(ds.getClass().getClassLoader() == null
                        ? ClassLoader.getSystemClassLoader() : ds.getClass().getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (p, m, a) -> {
                    if (m.getName().equals("getConnection")) {
                        n.incrementAndGet();
                    }
                    try {
                        return m.invoke(ds, a);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
