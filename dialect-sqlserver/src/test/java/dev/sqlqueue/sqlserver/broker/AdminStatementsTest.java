package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link AdminStatements} (statistics and purge) for prefix
 * {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what was reviewed
 * against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class AdminStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textReceiveForPurge() {
        assertEquals("RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:queue]",
                s.admin().receiveForPurge(q));
    }

    @Test
    void textStats() {
        assertEquals("SELECT (SELECT COALESCE(SUM(p.rows), 0) FROM sys.internal_tables AS it JOIN sys.partitions AS p ON p"
                + ".object_id = it.object_id AND p.index_id = 1 WHERE it.parent_object_id = OBJECT_ID(N'[dbo].[sqlq_bk:"
                + "jobs:queue]')) AS queue_rows, (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_bk_dead] WHERE queue_name = ?) A"
                + "S dead, (SELECT MAX(a) FROM (VALUES ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(message_enqueue_"
                + "time), SYSDATETIMEOFFSET()), 0) FROM [dbo].[sqlq_bk:jobs:queue] WITH (NOLOCK) WHERE message_type_nam"
                + "e = N'sqlq_bk:jobs:msg')), ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(enqueue_time), SYSUTCDATE"
                + "TIME()), 0) FROM sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs:service' AND message_"
                + "type_name = N'sqlq_bk:jobs:msg'))) AS v(a)) AS oldest_ms, (SELECT COUNT_BIG(*) FROM sys.transmission"
                + "_queue WHERE to_service_name = N'sqlq_bk:jobs:service') AS transmission, (SELECT COUNT_BIG(*) FROM ["
                + "dbo].[sqlq_bk_history] WHERE queue_name = ?) AS processed, (SELECT COUNT_BIG(*) FROM [dbo].[sqlq_bk:"
                + "jobs:queue] WITH (NOLOCK) WHERE message_type_name = N'sqlq_bk:jobs:msg') + (SELECT COUNT_BIG(*) FROM"
                + " sys.transmission_queue WHERE to_service_name = N'sqlq_bk:jobs:service' AND message_type_name = N'sq"
                + "lq_bk:jobs:msg') AS ready",
                s.admin().stats(q));
    }

    @Test
    void textConversationsByState() {
        assertEquals("SELECT ce.state_desc, COUNT_BIG(*) AS conversations FROM sys.conversation_endpoints AS ce JOIN sys.s"
                + "ervices AS s ON s.service_id = ce.service_id WHERE s.name IN (N'sqlq_bk:jobs:service', N'sqlq_bk:job"
                + "s:iservice') GROUP BY ce.state_desc",
                s.admin().conversationsByState(q));
    }

    @Test
    void textQueueStatus() {
        assertEquals("SELECT is_receive_enabled, is_enqueue_enabled FROM sys.service_queues WHERE object_id = OBJECT_ID(N'"
                + "[dbo].[sqlq_bk:jobs:queue]')",
                s.admin().queueStatus(q));
    }

    @Test
    void textPageLatchWaits() {
        assertEquals("SELECT wait_type, waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats"
                + " WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH') ORDER BY wait_type", AdminStatements.pageLatchWaits());
    }
}
