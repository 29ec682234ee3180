package dev.sqlqueue.micrometer;

import java.sql.Connection;

/**
 * Tells the metered backend when the caller's transaction commits, so that
 * {@value SqlQueueMeters#ENQUEUED} counts an enqueue on the caller's connection
 * ({@code Producer.enqueue(Connection, ...)}, {@code enqueueDeduplicated(Connection, ...)}) once it
 * committed, and never when it rolled back. The Spring Boot starter gives one that registers a Spring
 * transaction synchronization. Without a hook, or when it returns {@code false}, such an enqueue is counted
 * when its insert succeeded. Implementations are thread-safe.
 */
@FunctionalInterface
public interface TransactionCommitHook {
    /**
     * Arrange for {@code onCommit} to run once the transaction that {@code connection} is in commits (and
     * never if it rolls back).
     *
     * @param connection the caller's connection the enqueue ran on
     * @param onCommit what to run after the commit
     * @return {@code true} if it will; {@code false} if this hook cannot tell (the enqueue is counted now)
     */
    boolean afterCommit(Connection connection, Runnable onCommit);
}
