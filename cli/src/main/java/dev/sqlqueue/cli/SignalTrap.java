package dev.sqlqueue.cli;

import java.util.function.IntConsumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The one place that uses {@code sun.misc.Signal} (module {@code jdk.unsupported}, exported and
 * supported on every JDK since 9): catches a POSIX signal so a command can stop cleanly before the JVM
 * begins its shutdown. See {@link ShutdownGuard} for why a shutdown hook alone is not enough.
 */
final class SignalTrap {
    private final Signal signal;
    private final SignalHandler previous;

    private SignalTrap(Signal signal, SignalHandler previous) {
        this.signal = signal;
        this.previous = previous;
    }

    /**
     * Call {@code handler} with the signal number when signal {@code name} ({@code INT}, {@code TERM})
     * arrives, on the JVM's signal thread.
     *
     * @return the trap, or null when the signal cannot be caught here
     */
    static SignalTrap install(String name, IntConsumer handler) {
        try {
            Signal s = new Signal(name);
            return new SignalTrap(s, Signal.handle(s, caught -> handler.accept(caught.getNumber())));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Put back the handler that was there before. */
    void restore() {
        Signal.handle(signal, previous);
    }
}
