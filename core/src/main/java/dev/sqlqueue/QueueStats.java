package dev.sqlqueue;

/**
 * Counts for one queue, read at one moment on the database clock.
 *
 * @param queue the queue
 * @param ready messages visible now and not leased
 * @param inFlight messages under an unexpired lease (lease mode)
 * @param delayed messages not yet visible (delayed enqueue or nack delay)
 * @param dead messages in the dead-letter store for this queue
 * @param oldestReadyAgeMillis age in ms of the oldest ready message (enqueue time to now), 0 if none
 * @param processed rows in the processed-message history (0 when history is off)
 */
public record QueueStats(QueueName queue, long ready, long inFlight, long delayed, long dead,
                         long oldestReadyAgeMillis, long processed) {
    /**
     * ready + inFlight + delayed.
     *
     * @return the messages on the queue (not dead letters)
     */
    public long depth() {
        return ready + inFlight + delayed;
    }
}
