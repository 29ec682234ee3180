package dev.sqlqueue.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Graceful stop of a long-running command on SIGINT (Ctrl-C) or SIGTERM.
 *
 * <p>The signals are caught ({@link SignalTrap}) rather than
 * only a shutdown hook: once the JVM starts shutting down, H2 closes an embedded database in its own
 * shutdown hook, under the running workers, so their acks and releases would fail (and H2 refuses
 * {@code DB_CLOSE_ON_EXIT=FALSE} together with {@code AUTO_SERVER=TRUE}, the default database's mode).
 * Catching the signal lets {@code onSignal} (for example closing a worker pool: stop claiming, let
 * running handlers finish within the grace period, release unstarted messages) run while the database
 * is still open; the command then ends normally and returns {@link #exitCode(int)}. A second signal
 * (more than 2 s after the first; a signal sent to the process and to its group arrives twice) exits
 * at once: {@code onForce} runs (the work command kills the commands still running, so none is left
 * behind to run beside a later delivery of its message), this guard's shutdown hook stops waiting for
 * the clean-up, and the JVM exits with {@code 128 + signal}; should the other shutdown hooks (H2 closing
 * its file) take more than {@link #HALT_AFTER_MILLIS} ms, it halts. Messages still leased come back when
 * their lease ends (at-least-once). A shutdown hook still covers other ways the JVM may stop.
 *
 * <p>{@link #close()} restores the previous signal handlers and removes the hook.
 */
final class ShutdownGuard implements AutoCloseable {
    /** How long a forced exit lets the JVM's shutdown hooks run before it halts. */
    static final long HALT_AFTER_MILLIS = 5_000;

    private final Runnable onSignal;
    private final Runnable onForce;
    private final Thread hook;
    private final CountDownLatch done = new CountDownLatch(1);
    private final List<SignalTrap> traps = new ArrayList<>();
    private static final long REPEAT_WINDOW_NANOS = 2_000_000_000L;

    private volatile String signal;
    private volatile long signalNanos;

    /**
     * @param onSignal what to do on the first signal; runs on its own thread
     * @param maxWait how long the shutdown hook waits for the command to finish its clean-up
     */
    ShutdownGuard(Runnable onSignal, Duration maxWait) {
        this(onSignal, () -> { }, maxWait);
    }

    /**
     * @param onSignal what to do on the first signal; runs on its own thread
     * @param onForce what to do, quickly, on a second signal before the JVM exits (on the signal's thread)
     * @param maxWait how long the shutdown hook waits for the command to finish its clean-up
     */
    ShutdownGuard(Runnable onSignal, Runnable onForce, Duration maxWait) {
        this.onSignal = onSignal;
        this.onForce = onForce;
        for (String name : List.of("INT", "TERM")) {
            SignalTrap trap = SignalTrap.install(name, number -> caught(name, number));
            if (trap != null) {
                traps.add(trap);
            }
            // else the signal cannot be caught here: the shutdown hook covers it
        }
        this.hook = new Thread(() -> {
            if (trigger("shutdown")) {
                onSignal.run();
            }
            try {
                done.await(maxWait.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sqlqueue-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private void caught(String name, int number) {
        if (!trigger(name)) {
            // the same signal often arrives twice at once (to the process and to its process group)
            if (System.nanoTime() - signalNanos > REPEAT_WINDOW_NANOS) {
                System.err.println("sqlqueue: SIG" + name + " again, exiting now");
                exitNow(128 + number);
            }
            return;
        }
        Thread t = new Thread(onSignal, "sqlqueue-stop");
        t.setDaemon(true);
        t.start();
    }

    private void exitNow(int code) {
        done.countDown(); // this guard's hook must not wait for the clean-up the exit cuts short
        try {
            onForce.run();
        } catch (RuntimeException e) {
            System.err.println("sqlqueue: " + e);
        }
        Thread halt = new Thread(() -> {
            try {
                Thread.sleep(HALT_AFTER_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(code);
        }, "sqlqueue-halt");
        halt.setDaemon(true);
        halt.start();
        System.exit(code);
    }

    private synchronized boolean trigger(String name) {
        if (signal != null) {
            return false;
        }
        signalNanos = System.nanoTime();
        signal = name;
        return true;
    }

    /** Whether a signal (or a JVM shutdown) started the stop. */
    boolean signalled() {
        return signal != null;
    }

    /** {@code 128 + signal number} after SIGINT (130) or SIGTERM (143), else {@code normal}. */
    int exitCode(int normal) {
        String s = signal;
        if ("INT".equals(s)) {
            return 130;
        }
        if ("TERM".equals(s)) {
            return 143;
        }
        return normal;
    }

    @Override
    public void close() {
        done.countDown();
        traps.forEach(SignalTrap::restore);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook is running and now sees done
        }
    }
}
