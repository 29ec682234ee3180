package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class BrokerErrorsTest {
    @Test
    void deadlockLockTimeoutAndConnectionLossAreTransient() {
        assertTrue(BrokerErrors.translate(new SQLException("victim", "40001", 1205), "x") instanceof TransientBackendException);
        assertTrue(BrokerErrors.translate(new SQLException("timeout", "S0001", 1222), "x") instanceof TransientBackendException);
        assertTrue(BrokerErrors.translate(new SQLException("reset", "08S01", 0), "x") instanceof TransientBackendException);
        SqlQueueException other = BrokerErrors.translate(new SQLException("bad", "S0001", 8429), "sending");
        assertFalse(other instanceof TransientBackendException);
        assertEquals("sending failed: bad (error 8429, SQLState S0001)", other.getMessage());
    }

    /**
     * The layout split's shared plumbing ({@code SqlServerFailures}): the broker now knows every connection and
     * Azure failure the queue tables know; before, 10054 (connection reset), 233, 596, a JDBC connection exception
     * type with another SQLState and Azure's 40613/40501 were permanent errors here.
     */
    @Test
    void theQueueTablesConnectionAndAzureFailuresAreTransientHereToo() {
        for (int code : new int[] {233, 596, 10053, 10054, 40613, 40197, 40501, 49918, 4221, 10928, 10929}) {
            assertTrue(BrokerErrors.translate(new SQLException("e", "S0001", code), "x") instanceof TransientBackendException,
                    "error " + code);
        }
        assertTrue(BrokerErrors.translate(new java.sql.SQLRecoverableException("gone", "HY000", 0), "x")
                instanceof TransientBackendException);
    }

    @Test
    void chainedErrorNumbersAreSeen() {
        SQLException first = new SQLException("first", "S0001", 3930);
        first.setNextException(new SQLException("disabled", "S0001", 9617));
        assertTrue(BrokerErrors.has(first, BrokerErrors.QUEUE_DISABLED));
        assertFalse(BrokerErrors.has(first, BrokerErrors.DEADLOCK_VICTIM));
    }

    @Test
    void errorBodiesInEveryEncodingAreDescribed() {
        String xml = "<Error xmlns=\"http://schemas.microsoft.com/SQL/ServiceBroker/Error\"><Code>-8408</Code>"
                + "<Description>Target service not found.</Description></Error>";
        byte[] utf16 = xml.getBytes(StandardCharsets.UTF_16LE);
        byte[] bom = new byte[utf16.length + 2];
        bom[0] = (byte) 0xFF;
        bom[1] = (byte) 0xFE;
        System.arraycopy(utf16, 0, bom, 2, utf16.length);
        String expected = "code -8408: Target service not found.";
        assertEquals(expected, SystemMessages.describeError(utf16));
        assertEquals(expected, SystemMessages.describeError(bom));
        assertEquals(expected, SystemMessages.describeError(xml.getBytes(StandardCharsets.UTF_8)));
        assertEquals("error message without a body", SystemMessages.describeError(null));
        assertEquals("code ?: (no description)", SystemMessages.describeError("<x/>".getBytes(StandardCharsets.UTF_8)));
    }
}
