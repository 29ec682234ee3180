package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import org.junit.jupiter.api.Test;

class BrokerOptionsTest {
    @Test
    void defaults() {
        BrokerOptions o = new Fixture().options;
        assertEquals(4, o.dialogPoolSize(), "the connection pool size");
        assertEquals(1, o.spreadFactor(), "the 150 trick is off by default");
        assertEquals(604_800, o.dialogLifetimeSeconds());
        assertEquals(3600, o.dialogMaxAgeSeconds());
        assertEquals(100_000, o.dialogMaxMessages());
        assertEquals(10, o.maxAttempts());
        assertNull(o.activationProcedure());
        assertEquals("OWNER", o.activationExecuteAs());
    }

    @Test
    void spreadFactorAndActivation() {
        BrokerOptions o = new Fixture("broker.spreadFactor", "150", "broker.activationProcedure", "ops.run_task",
                "broker.maxQueueReaders", "5", "broker.activationExecuteAs", "self").options;
        assertEquals(150, o.spreadFactor());
        assertEquals("ops.run_task", o.activationProcedure());
        assertEquals(5, o.maxQueueReaders());
        assertEquals("SELF", o.activationExecuteAs());
    }

    @Test
    void badValuesNameTheOption() {
        for (String[] bad : new String[][] {{"broker.spreadFactor", "0"}, {"broker.spreadFactor", "x"},
                {"broker.dialogPoolSize", "1001"}, {"broker.maxAttempts", "0"},
                {"broker.activationProcedure", "run_task"}, {"broker.activationProcedure", "dbo.x;DROP TABLE t"},
                {"broker.activationExecuteAs", "CALLER"}, {"broker.dialogLifetimeSeconds", "3600"}}) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> BrokerOptions.from(new Fixture().config.toBuilder().option(bad[0], bad[1]).build()), bad[0] + "=" + bad[1]);
            assertEquals("broker.option", e.rule());
            assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
        }
    }

    @Test
    void aFillIsBounded() {
        // m6: 1000 x 1000 BEGIN DIALOGs in one batch
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> BrokerOptions.from(new Fixture().config.toBuilder()
                .option("broker.dialogPoolSize", "200").option("broker.spreadFactor", "150").build()));
        assertTrue(e.getMessage().contains("at most 20000"), e.getMessage());
        assertEquals(150, BrokerOptions.from(new Fixture().config.toBuilder().option("broker.dialogPoolSize", "64")
                .option("broker.spreadFactor", "150").build()).spreadFactor());
    }

    /** A misspelt key was ignored, so the backend ran on the default it was meant to change. */
    @Test
    void anOptionKeyTheBackendDoesNotReadIsRefusedNamingTheKeysItReads() {
        for (String key : new String[] {"broker.spreadfactor", "broker.dialogPoolSize ", "ordering", "teradata.database"}) {
            InvalidInputException e = assertThrows(InvalidInputException.class,
                    () -> BrokerOptions.from(new Fixture().config.toBuilder().option(key, "150").build()), key);
            assertEquals("option.unknown", e.rule());
            assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("broker.spreadFactor"), "names the keys it reads: " + e.getMessage());
        }
    }
}
