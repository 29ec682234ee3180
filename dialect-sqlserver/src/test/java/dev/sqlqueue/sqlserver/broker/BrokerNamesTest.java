package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

class BrokerNamesTest {
    @Test
    void quotingDoublesTheClosingCharacter() {
        assertEquals("[a]]b]", BrokerNames.quote("a]b"));
        assertEquals("N'it''s'", BrokerNames.literal("it's"));
    }

    @Test
    void everyObjectStartsWithThePrefix() {
        BrokerNames n = new BrokerNames("app_");
        QueueName q = QueueName.of("Mail-out_2");
        for (String s : new String[] {n.messageType(q), n.endOfStreamType(q), n.contract(q), n.queue(q),
                n.initiatorQueue(q), n.service(q), n.initiatorService(q), n.provisioningLock()}) {
            assertTrue(s.startsWith("app_bk:"), s);
        }
        assertEquals("app_bk:Mail-out_2:queue", n.queue(q));
        assertEquals("[dbo].[app_bk:Mail-out_2:queue]", n.qualified(n.queue(q)));
        assertEquals("[dbo].[app_bk_dead]", n.deadTable());
    }

    @Test
    void prefixAndQueueCannotCollide() {
        // plain concatenation would give "a_b_c" for both pairs
        assertNotEquals(new BrokerNames("a_").queue(QueueName.of("b_c")), new BrokerNames("a_b_").queue(QueueName.of("c")));
        assertNotEquals(new BrokerNames("a_").queue(QueueName.of("x")), new BrokerNames("a_").initiatorQueue(QueueName.of("x")));
    }

    @Test
    void prefixWithSeparatorIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new BrokerNames("a:b"));
        assertThrows(IllegalArgumentException.class, () -> new BrokerNames(""));
    }
}
