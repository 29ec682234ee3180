package dev.sqlqueue;

/**
 * Where a message on its queue stands, as {@link QueueStats} counts it and {@link QueueAdmin#messages} filters: read
 * on the database clock at the time of the read.
 */
public enum MessageState {
    /** Visible now: the next claim may take it (a lease that ran out makes a message ready again). */
    READY,
    /** Not visible yet and held by no lease: enqueued with a delay, or nacked with one. */
    DELAYED,
    /** Held by a lease-mode claim whose lease has not run out. Rows held by an open transactional claim count as ready. */
    IN_FLIGHT
}
