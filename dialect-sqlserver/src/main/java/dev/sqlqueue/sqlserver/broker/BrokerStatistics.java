package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;
import java.util.Map;

/**
 * Service Broker figures for one queue, from catalog views, read at one moment.
 *
 * @param queue the queue
 * @param queueRows rows of the queue's internal table (sys.internal_tables joined to sys.partitions,
 *     index 1): every message on the queue, system messages (EndDialog, Error, end-of-stream) included
 * @param dead rows in the dead-letter table for the queue
 * @param oldestMillis age in ms of the oldest data message, by the queue's message_enqueue_time, 0 if none
 * @param transmissionQueue rows of sys.transmission_queue addressed to the queue's target service
 *     (messages not yet delivered, for example while the queue is disabled)
 * @param conversationsByState endpoints of the queue's two services by sys.conversation_endpoints.state_desc
 * @param receiveEnabled sys.service_queues.is_receive_enabled of the target queue: false when the queue
 *     is disabled (consumers then get {@link QueueDisabledException}, error 9617)
 * @param processed rows in the history table for the queue (0 unless the queue keeps history)
 * @param ready data messages on the queue not held by an open claim (a NOLOCK count)
 */
public record BrokerStatistics(QueueName queue, long queueRows, long dead, long oldestMillis, long transmissionQueue,
                               Map<String, Long> conversationsByState, boolean receiveEnabled, long processed, long ready) {
}
