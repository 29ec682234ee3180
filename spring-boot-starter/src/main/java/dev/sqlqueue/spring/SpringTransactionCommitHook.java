package dev.sqlqueue.spring;

import dev.sqlqueue.micrometer.TransactionCommitHook;
import java.sql.Connection;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Counts an enqueue made in a Spring-managed transaction (for example {@link SqlQueueTemplate} inside a
 * {@code @Transactional} method) at that transaction's commit: a transaction synchronization's
 * {@code afterCommit}. Outside a Spring transaction it cannot tell, and the enqueue is counted when its
 * insert succeeded (an enqueue outside a transaction commits at once).
 */
final class SpringTransactionCommitHook implements TransactionCommitHook {
    @Override
    public boolean afterCommit(Connection connection, Runnable onCommit) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return false;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                onCommit.run();
            }
        });
        return true;
    }
}
