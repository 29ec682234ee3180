package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.RecordingJdbc.labelled;
import static dev.sqlqueue.teradata.RecordingJdbc.row;
import static dev.sqlqueue.teradata.RecordingJdbc.rows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Ordering;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.BackendDiscovery;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Provider discovery, the session-mode checks and the options. */
class SessionAndProviderTest {
    @Test
    void foundByTeradataUrlsThroughTheServiceFile() {
        assertInstanceOf(TeradataProvider.class,
                BackendDiscovery.find(QueueConfig.ofUrl("jdbc:teradata://host/TMODE=ANSI,CHARSET=UTF8")));
        assertInstanceOf(TeradataProvider.class,
                BackendDiscovery.find(QueueConfig.builder().url("jdbc:x:y").backend("teradata").build()));
        TeradataProvider p = new TeradataProvider();
        assertEquals("teradata", p.name());
        assertFalse(p.acceptsUrl("jdbc:postgresql://h/db"));
        assertFalse(p.acceptsUrl(null));
    }

    @Test
    void urlParametersAreRead() {
        String url = "jdbc:teradata://host/DATABASE=db, tmode=ansi ,CHARSET=UTF8";
        assertEquals(Optional.of("ansi"), SessionMode.urlParameter(url, "TMODE"));
        assertEquals(Optional.of("db"), SessionMode.urlParameter(url, "database"));
        assertEquals(Optional.empty(), SessionMode.urlParameter("jdbc:teradata://host", "TMODE"));
    }

    @Test
    void aUrlAskingForTeradataModeIsRefusedBeforeConnecting() {
        SqlQueueException e = assertThrows(SqlQueueException.class,
                () -> SqlQueue.open(QueueConfig.ofUrl("jdbc:teradata://nohost.invalid/TMODE=TERA")));
        assertTrue(e.getMessage().contains("TMODE=ANSI"), e.getMessage());
        SessionMode.checkUrl("jdbc:teradata://h/TMODE=ANSI");
        SessionMode.checkUrl("jdbc:teradata://h/CHARSET=UTF8");
    }

    @Test
    void aSessionInTeradataModeIsRefused() {
        RecordingJdbc jdbc = new RecordingJdbc();
        jdbc.on("HELP SESSION", labelled(List.of("Transaction Semantics", "Character Set"), row("Teradata", "UTF8")));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> open(jdbc));
        assertTrue(e.getMessage().contains("transaction semantics 'Teradata'"), e.getMessage());
        assertEquals(List.of("Q HELP SESSION", "rollback"), jdbc.calls());
    }

    @Test
    void aSessionWithoutUnicodeIsRefused() {
        RecordingJdbc jdbc = new RecordingJdbc();
        jdbc.on("HELP SESSION", labelled(List.of("Transaction Semantics", "Character Set"), row("ANSI", "ASCII")));
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> open(jdbc));
        assertTrue(e.getMessage().contains("CHARSET=UTF8"), e.getMessage());
    }

    @Test
    void anAnsiUtf16SessionOpensAndNamesTheServer() {
        RecordingJdbc jdbc = new RecordingJdbc();
        jdbc.on("HELP SESSION", labelled(List.of("Transaction Semantics", "Character Set"), row("ANSI", "UTF16")));
        jdbc.on(TeradataStatements.serverVersion(), rows(row("17.20.03.01 ")));
        try (SqlQueue q = open(jdbc, "teradata.database", "queues")) {
            assertEquals("Teradata 17.20.03.01", q.serverVersion());
            var caps = q.capabilities();
            assertEquals(java.util.Set.of(ClaimMode.TRANSACTIONAL), caps.claimModes());
            assertEquals(Ordering.FIFO_APPROXIMATE, caps.ordering());
            assertEquals(64_000, caps.maxPayloadBytes());
            assertTrue(caps.has(Capability.TRANSACTIONAL_ENQUEUE));
            assertFalse(caps.has(Capability.DELAYED_DELIVERY));
            assertFalse(caps.has(Capability.NACK_DELAY));
        }
        assertEquals(List.of("Q HELP SESSION", "Q " + TeradataStatements.serverVersion(), "commit"), jdbc.calls());
    }

    @Test
    void badOptionsNameTheOption() {
        RecordingJdbc jdbc = new RecordingJdbc();
        assertEquals("teradata.max-waiting-sessions",
                assertThrows(InvalidInputException.class, () -> open(jdbc, "teradata.max-waiting-sessions", "25")).rule());
        assertEquals("teradata.insert-batch-rows",
                assertThrows(InvalidInputException.class, () -> open(jdbc, "teradata.insert-batch-rows", "five")).rule());
        assertEquals("teradata.database",
                assertThrows(InvalidInputException.class, () -> open(jdbc, "teradata.database", "a\"b")).rule());
        assertTrue(jdbc.log.isEmpty(), "options are checked before connecting");
    }

    /** A misspelt key was ignored, so the backend ran on the default it was meant to change. */
    @Test
    void anOptionKeyTheBackendDoesNotReadIsRefusedBeforeConnecting() {
        RecordingJdbc jdbc = new RecordingJdbc();
        for (String key : new String[] {"teradata.datbase", "teradata.fallback ", "schema", "broker.spreadFactor"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> open(jdbc, key, "x"), key);
            assertEquals("option.unknown", e.rule());
            assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("teradata.database"), "names the keys it reads: " + e.getMessage());
        }
        assertTrue(jdbc.log.isEmpty(), "options are checked before connecting");
    }

    @Test
    void leaseModeIsRefusedByTheCore() {
        RecordingJdbc jdbc = new RecordingJdbc();
        jdbc.on("HELP SESSION", labelled(List.of("Transaction Semantics", "Character Set"), row("ANSI", "UTF8")));
        jdbc.on(TeradataStatements.currentDatabase(), rows(row("d")));
        try (SqlQueue q = open(jdbc)) {
            jdbc.clear();
            assertThrows(InvalidInputException.class,
                    () -> q.consume(dev.sqlqueue.QueueName.of("q"), dev.sqlqueue.ConsumeRequest.of(1)));
            assertTrue(jdbc.log.isEmpty());
        }
    }

    private static SqlQueue open(RecordingJdbc jdbc, String... options) {
        QueueConfig.Builder b = QueueConfig.builder().backend("teradata").dataSource(jdbc.dataSource());
        for (int i = 0; i < options.length; i += 2) {
            b.option(options[i], options[i + 1]);
        }
        return SqlQueue.open(b.build());
    }

    @Test
    void everyConnectionGoesThroughTheConfigsWrapper() {
        RecordingJdbc jdbc = new RecordingJdbc();
        jdbc.on("HELP SESSION", labelled(List.of("Transaction Semantics", "Character Set"), row("ANSI", "UTF8")));
        jdbc.on(TeradataStatements.currentDatabase(), rows(row("d")));
        java.util.concurrent.atomic.AtomicInteger borrowed = new java.util.concurrent.atomic.AtomicInteger();
        QueueConfig config = QueueConfig.builder().backend("teradata").dataSource(jdbc.dataSource())
                .dataSourceWrapper(counting(borrowed)).build();
        new TeradataProvider().open(config).close();
        assertTrue(borrowed.get() >= 1, "the session check borrowed through the wrapper");
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
