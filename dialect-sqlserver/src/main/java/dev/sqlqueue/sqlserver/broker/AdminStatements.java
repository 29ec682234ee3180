package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;

import dev.sqlqueue.QueueName;

/**
 * Statistics, queue status and purge. Run by {@link ServiceBrokerBackend}.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class AdminStatements {
    private final BrokerNames n;

    AdminStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * One row: queue_rows (rows of the queue's internal table from sys.partitions: every message,
     * system messages included), dead, oldest_ms (age of the oldest data message by the queue's
     * message_enqueue_time), transmission (rows of sys.transmission_queue for the target service),
     * processed (history rows), ready (data messages on the queue and not received by an open
     * transaction: a {@code NOLOCK} count, which reads the uncommitted deletes of RECEIVE; it scans the
     * queue, so it costs in proportion to its depth; plus data messages still in
     * {@code sys.transmission_queue} on their way to it). oldest_ms covers both places
     * ({@code sys.transmission_queue.enqueue_time} is UTC). Parameters: queue name, twice.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String stats(QueueName q) {
        return "SELECT (SELECT COALESCE(SUM(p.rows), 0) FROM sys.internal_tables AS it JOIN sys.partitions AS p"
                + " ON p.object_id = it.object_id AND p.index_id = 1 WHERE it.parent_object_id = OBJECT_ID("
                + literal(n.qualified(n.queue(q))) + ")) AS queue_rows,"
                + " (SELECT COUNT_BIG(*) FROM " + n.deadTable() + " WHERE queue_name = ?) AS dead,"
                + " (SELECT MAX(a) FROM (VALUES"
                + " ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(message_enqueue_time), SYSDATETIMEOFFSET()), 0) FROM "
                + n.qualified(n.queue(q)) + " WITH (NOLOCK) WHERE message_type_name = " + literal(n.messageType(q)) + ")),"
                + " ((SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN(enqueue_time), SYSUTCDATETIME()), 0) FROM sys.transmission_queue"
                + " WHERE " + BrokerStatements.inTransit(n, q) + "))) AS v(a)) AS oldest_ms,"
                + " (SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE to_service_name = " + literal(n.service(q))
                + ") AS transmission,"
                + " (SELECT COUNT_BIG(*) FROM " + n.historyTable() + " WHERE queue_name = ?) AS processed,"
                + " (SELECT COUNT_BIG(*) FROM " + n.qualified(n.queue(q)) + " WITH (NOLOCK) WHERE message_type_name = "
                + literal(n.messageType(q)) + ")"
                + " + (SELECT COUNT_BIG(*) FROM sys.transmission_queue WHERE " + BrokerStatements.inTransit(n, q) + ") AS ready";
    }

    /**
     * Rows: state_desc, conversations; both sides of the queue's dialogs.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String conversationsByState(QueueName q) {
        return "SELECT ce.state_desc, COUNT_BIG(*) AS conversations FROM sys.conversation_endpoints AS ce"
                + " JOIN sys.services AS s ON s.service_id = ce.service_id WHERE s.name IN ("
                + literal(n.service(q)) + ", " + literal(n.initiatorService(q)) + ") GROUP BY ce.state_desc";
    }

    /**
     * Rows: wait_type, waiting_tasks_count, wait_time_ms for PAGELATCH_EX and PAGELATCH_SH, server-wide
     * since the last restart or clear (needs VIEW SERVER STATE). The send benchmark prints the change.
     *
     * @return the T-SQL text
     */
    public static String pageLatchWaits() {
        return "SELECT wait_type, waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats"
                + " WHERE wait_type IN (N'PAGELATCH_EX', N'PAGELATCH_SH') ORDER BY wait_type";
    }

    /**
     * One row: is_receive_enabled, is_enqueue_enabled of the target queue.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String queueStatus(QueueName q) {
        return "SELECT is_receive_enabled, is_enqueue_enabled FROM sys.service_queues WHERE object_id = OBJECT_ID("
                + literal(n.qualified(n.queue(q))) + ")";
    }

    /**
     * Purge: receives without waiting. Parameter: TOP. The body tells a grouped message's id.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String receiveForPurge(QueueName q) {
        return "RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM " + n.qualified(n.queue(q));
    }

    /**
     * Binds: queue. The queue's keys (drop queue).
     *
     * @return the T-SQL text
     */
    public String purgeKeys() {
        return "DELETE FROM " + n.keysTable() + " WHERE queue_name = ?";
    }
}
