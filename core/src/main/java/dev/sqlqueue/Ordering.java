package dev.sqlqueue;

/** The order a backend promises to one consumer. */
public enum Ordering {
    /**
     * Enqueue order for messages of equal priority that become visible in that order, as long as no
     * claim is rolled back or released: a message whose claim rolls back or whose lease expires is
     * consumed after later ones. Concurrent consumers see approximately FIFO order.
     */
    FIFO_APPROXIMATE,
    /** Order is kept only within one conversation or message group. */
    PER_GROUP,
    /** No order is promised. */
    NONE
}
