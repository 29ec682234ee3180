package dev.sqlqueue.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Handles SIGINT/SIGTERM for a long-running command through a JVM shutdown hook: the hook runs
 * {@code onSignal} (for example closing a worker pool, which stops claiming, lets running handlers
 * finish within their grace period and releases unstarted messages), then waits up to {@code maxWait}
 * for the command to finish its own clean-up and summary ({@link #close()}). Closing removes the hook.
 */
final class ShutdownGuard implements AutoCloseable {
    private final Thread hook;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile boolean signalled;

    ShutdownGuard(Runnable onSignal, Duration maxWait) {
        this.hook = new Thread(() -> {
            signalled = true;
            onSignal.run();
            try {
                done.await(maxWait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sqlqueue-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Whether a signal started the shutdown. */
    boolean signalled() {
        return signalled;
    }

    @Override
    public void close() {
        done.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running and now sees done
        }
    }
}
