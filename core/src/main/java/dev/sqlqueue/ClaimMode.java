package dev.sqlqueue;

/**
 * How a consumer holds a message between claim and ack.
 */
public enum ClaimMode {
    /**
     * The claim commits at once and marks the message leased until a database-clock time, with a
     * fencing token. Ack deletes (or archives) by id and token; a late ack fails with
     * {@link LeaseLostException}. Crash recovery is lease expiry. Holds no connection while the handler
     * runs. The attempt count rises at claim time, so a crashed consumer also counts as an attempt.
     */
    LEASE,
    /**
     * The claim runs in a transaction that stays open until every delivery of the claim is settled:
     * then acks and nacks commit together. Crash recovery is the server's rollback, which puts the
     * messages back at once, with the attempt count unchanged (a crash cannot raise it). Holds one
     * connection per claimed batch for the whole handler.
     */
    TRANSACTIONAL
}
