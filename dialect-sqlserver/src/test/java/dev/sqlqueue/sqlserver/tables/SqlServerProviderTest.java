package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SqlServerProviderTest {
    private final SqlServerProvider provider = new SqlServerProvider();

    @Test
    void selectedBySqlServerUrlsThroughServiceLoader() {
        assertTrue(provider.acceptsUrl("jdbc:sqlserver://db:1433;databaseName=q"));
        assertTrue(provider.acceptsUrl("JDBC:SQLSERVER://db"));
        assertFalse(provider.acceptsUrl("jdbc:postgresql://db/q"));
        assertFalse(provider.acceptsUrl(null));
        assertEquals("sqlserver", BackendDiscovery.find(QueueConfig.ofUrl("jdbc:sqlserver://db:1433")).name());
    }

    /** What SERVERPROPERTY('Babelfish') returns on SQL Server: NULL, an unknown property. */
    private static final java.util.Map<String, Object> SQL_SERVER = RecordingJdbc.row("babelfish", null, "major", 16, "edition", 3);

    /**
     * Flyway 11.20 only logged on a server reporting version 12 (seen on Babelfish, issue 29): the backend refuses a
     * SQL Server older than 2017 itself, and accepts Azure SQL Database (edition 5) and Managed Instance (edition 8),
     * which report 12 whatever their engine ("SERVERPROPERTY (Transact-SQL)").
     */
    @Test
    void aSqlServerOlderThan2017IsRefusedButAzureSqlReportingTwelveIsNot() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc old = new RecordingJdbc(sql);
        old.rows(RecordingJdbc.row("babelfish", null, "major", 13, "edition", 3));
        QueueConfig config = QueueConfig.builder().backend("sqlserver").dataSource(old.dataSource()).migrate(false).build();
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> provider.open(config));
        assertTrue(e.getMessage().contains("needs SQL Server 2017 (major version 14) or later") && e.getMessage().contains("13"),
                e.getMessage());
        for (int edition : new int[] {5, 8}) {
            RecordingJdbc azure = new RecordingJdbc(sql);
            azure.rows(RecordingJdbc.row("babelfish", null, "major", 12, "edition", edition))
                    .rows(RecordingJdbc.row("name", "ordering", "value", "fifo"));
            provider.open(QueueConfig.builder().backend("sqlserver").dataSource(azure.dataSource()).migrate(false).build()).close();
        }
    }

    @Test
    void capabilitiesFollowTheOrdering() {
        var fifo = SqlServerQueueBackend.capabilities(ClaimOrder.FIFO);
        assertTrue(fifo.supports(ClaimMode.LEASE) && fifo.supports(ClaimMode.TRANSACTIONAL));
        assertFalse(fifo.has(Capability.PRIORITY));
        assertEquals(Ordering.FIFO_APPROXIMATE, fifo.ordering());
        assertEquals(500, fifo.maxClaimBatch());
        assertTrue(SqlServerQueueBackend.capabilities(ClaimOrder.PRIORITY_FIRST).has(Capability.PRIORITY));
        assertEquals(Ordering.NONE, SqlServerQueueBackend.capabilities(ClaimOrder.LIFO).ordering());
    }

    @Test
    void storedOrderingWinsUnlessAnExplicitOptionContradictsIt() {
        QueueConfig plain = QueueConfig.builder().url("jdbc:sqlserver://h").build();
        assertEquals(ClaimOrder.LIFO, SqlServerProvider.resolve(plain, SqlServerOptions.from(plain), Map.of("ordering", "lifo")));
        assertEquals(ClaimOrder.FIFO, SqlServerProvider.resolve(plain, SqlServerOptions.from(plain), Map.of()));
        QueueConfig explicit = QueueConfig.builder().url("jdbc:sqlserver://h").option("ordering", "priority-first").build();
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SqlServerProvider.resolve(explicit, SqlServerOptions.from(explicit), Map.of("ordering", "fifo")));
        assertEquals("option.ordering", e.rule());
        QueueConfig heap = QueueConfig.builder().url("jdbc:sqlserver://h").option("layout", "heap").build();
        assertEquals("option.layout", assertThrows(InvalidInputException.class,
                () -> SqlServerProvider.resolve(heap, SqlServerOptions.from(heap), Map.of("layout", "clustered"))).rule());
    }

    @Test
    void openWithACallersPoolReadsTheStoredSettingsAndNeverClosesThePool() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc jdbc = new RecordingJdbc(sql);
        jdbc.rows(SQL_SERVER).rows(RecordingJdbc.row("name", "ordering", "value", "priority-first"),
                RecordingJdbc.row("name", "layout", "value", "heap"));
        QueueConfig config = QueueConfig.builder().backend("sqlserver").dataSource(jdbc.dataSource()).migrate(false).build();
        QueueBackend b = provider.open(config);
        assertTrue(b.capabilities().has(Capability.PRIORITY), "tables built for priority-first");
        b.close();
        assertTrue(jdbc.sequence().contains("prepare readSettings"));
        assertEquals(2, jdbc.connections.size(), "the engine and the settings each borrowed one");
        assertTrue(jdbc.connections.stream().allMatch(c -> c.closed), "and gave it back");
    }

    @Test
    void missingTablesWithoutMigrationKeepTheConfiguredOrdering() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc jdbc = new RecordingJdbc(sql);
        jdbc.rows(SQL_SERVER).failOn("prepare readSettings", new SQLException("Invalid object name 'dbo.sqlq_settings'.", "S0002", 208));
        QueueConfig config = QueueConfig.builder().backend("sqlserver").dataSource(jdbc.dataSource()).migrate(false)
                .option("ordering", "lifo").build();
        assertEquals(Ordering.NONE, provider.open(config).capabilities().ordering());
    }

    /** Babelfish numbers a missing table 33557097 with PostgreSQL's text (seen on Babelfish 4.3: issue 29). */
    @Test
    void babelfishIsDetectedAndItsMissingTableErrorMeansNoTablesYet() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc jdbc = new RecordingJdbc(sql);
        jdbc.rows(RecordingJdbc.row("babelfish", 1, "major", 12, "edition", 3)).failOn("prepare readSettings",
                new SQLException("relation \"sqlqueue_dbo.sqlq_settings\" does not exist", "S0001", 33557097));
        QueueConfig config = QueueConfig.builder().backend("sqlserver").dataSource(jdbc.dataSource()).migrate(false)
                .option("ordering", "lifo").build();
        QueueBackend b = provider.open(config);
        assertEquals(Ordering.NONE, b.capabilities().ordering());
        assertEquals(SqlServerEngine.BABELFISH, ((SqlServerQueueBackend) b).statements().engine());
        assertTrue(((SqlServerQueueBackend) b).statements().get("claim").contains(" IN (SELECT TOP (@n) [c].[id]"),
                "the claim Babelfish can run");
        assertTrue(SqlServerErrors.isMissingObject(new SQLException("relation \"x\" does not exist", "S0001", 33557097)));
        assertFalse(SqlServerErrors.isMissingObject(new SQLException("division by zero", "S0001", 33557097)),
                "Babelfish's number alone is not a missing table");
    }

    @Test
    void everyConnectionGoesThroughTheConfigsWrapper() {
        SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);
        RecordingJdbc jdbc = new RecordingJdbc(sql);
        jdbc.rows(SQL_SERVER).rows(RecordingJdbc.row("name", "ordering", "value", "fifo"));
        java.util.concurrent.atomic.AtomicInteger borrowed = new java.util.concurrent.atomic.AtomicInteger();
        QueueConfig config = QueueConfig.builder().backend("sqlserver").dataSource(jdbc.dataSource()).migrate(false)
                .dataSourceWrapper(counting(borrowed)).build();
        QueueBackend b = provider.open(config);
        b.close();
        assertEquals(jdbc.connections.size(), borrowed.get(), "the settings read borrowed through the wrapper");
        assertTrue(borrowed.get() >= 1);
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
