package dev.sqlqueue.conformance.kit;

import java.util.ArrayList;
import java.util.List;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Notes which signal (SIGINT, SIGTERM) ended a kit run, so that its report can say so; then hands the
 * signal on to the handler that was there before (the JVM's, which starts the shutdown: exit 130 or 143,
 * and the kit's shutdown hook). Uses {@code sun.misc.Signal} (module {@code jdk.unsupported}); where a
 * signal cannot be caught the run is still reported interrupted, "by a JVM shutdown".
 */
final class KitSignals {
    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();
    private volatile String caught;

    private KitSignals() {
    }

    /** Traps SIGINT and SIGTERM until {@link #restore()}. */
    static KitSignals install() {
        KitSignals k = new KitSignals();
        for (String name : List.of("INT", "TERM")) {
            try {
                Signal s = new Signal(name);
                SignalHandler[] before = new SignalHandler[1];
                before[0] = Signal.handle(s, sig -> {
                    k.caught = "SIG" + sig.getName();
                    if (before[0] != null && before[0] != SignalHandler.SIG_IGN && before[0] != SignalHandler.SIG_DFL) {
                        before[0].handle(sig);
                    } else {
                        Runtime.getRuntime().exit(128 + sig.getNumber());
                    }
                });
                k.signals.add(s);
                k.previous.add(before[0]);
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not catchable here (the JVM runs with -Xrs, or another platform): reported as a JVM shutdown
            }
        }
        return k;
    }

    /** {@code SIGINT} or {@code SIGTERM}, or "a JVM shutdown" when no trapped signal arrived. */
    String cause() {
        String c = caught;
        return c != null ? c : "a JVM shutdown";
    }

    void restore() {
        for (int i = 0; i < signals.size(); i++) {
            try {
                Signal.handle(signals.get(i), previous.get(i));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // leave it
            }
        }
    }
}
