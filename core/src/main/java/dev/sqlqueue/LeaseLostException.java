package dev.sqlqueue;

/**
 * An ack, nack, lease extension or dead-letter request named a delivery whose lease is no longer held:
 * the lease expired and the message may already be with another consumer, or it was already settled.
 * Nothing was changed by the failed call (fencing: the database matched id and lease token and found
 * no row).
 */
public class LeaseLostException extends SqlQueueException {
    private final long messageId;

    /**
     * A lost lease.
     *
     * @param messageId the message whose lease was lost
     * @param message what was attempted, for people
     */
    public LeaseLostException(long messageId, String message) {
        super(message);
        this.messageId = messageId;
    }

    /**
     * Id of the message whose lease was lost.
     *
     * @return the message's id
     */
    public long messageId() {
        return messageId;
    }
}
