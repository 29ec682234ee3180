package dev.sqlqueue;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;

/**
 * Driving port: settle claimed messages. Every call matches the message id and the claim's token, and
 * fails with {@link LeaseLostException} (changing nothing) when that claim no longer holds the message: the
 * message was settled, or claimed again after the lease ended. A lease that ended while nobody claimed the
 * message again still holds it, so a late call then succeeds (the message was not delivered twice); a
 * consumer that must not act after its lease ends extends the lease in time ({@link #extend}).
 * Thread-safe. In {@link ClaimMode#TRANSACTIONAL} a call records the outcome in the claim's open
 * transaction, and the transaction commits when the last delivery of the claim is settled.
 */
public interface Acknowledger {
    /**
     * Done: remove the message (or move it to the history).
     *
     * @param receipt the receipt of the delivery being settled
     */
    void ack(Receipt receipt);

    /**
     * Done, keeping {@code detail} (for example "exit 0") in the history if history is on.
     *
     * @param receipt the receipt of the delivery being settled
     * @param detail a short note for the history row, or null
     */
    void ack(Receipt receipt, String detail);

    /**
     * Ack many receipts in as few statements as the backend allows.
     *
     * @param receipts the receipts to ack, of one or more claims
     * @return the receipts whose lease was lost (nothing was done for them); the others are acked
     */
    Set<Receipt> ackAll(Collection<Receipt> receipts);

    /**
     * Failed: make the message visible again after {@code delay} (database clock), keeping {@code error}
     * as its last error. The next delivery has a raised attempt number.
     *
     * @param receipt the receipt of the delivery being settled
     * @param delay how long the message stays invisible, zero or more
     * @param error the failure, kept as the message's last error; may be null
     */
    void nack(Receipt receipt, Duration delay, String error);

    /**
     * Extend the lease to {@code lease} from now (database clock). Lease mode only.
     *
     * @param receipt the receipt of the delivery whose lease to extend
     * @param lease the new lease, counted from now
     */
    void extend(Receipt receipt, Duration lease);

    /**
     * Move the message to the dead-letter store with {@code reason}; bytes and headers kept intact.
     *
     * @param receipt the receipt of the delivery being settled
     * @param reason why, kept with the dead letter
     */
    void deadLetter(Receipt receipt, String reason);

    /**
     * Give the message back unprocessed, visible at once, without counting the attempt
     * (graceful shutdown uses this for claimed messages it did not start).
     *
     * @param receipt the receipt of the delivery being given back
     */
    void release(Receipt receipt);
}
