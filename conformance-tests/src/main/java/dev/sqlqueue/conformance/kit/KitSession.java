package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.conformance.ConformanceTarget;

/**
 * The target of the running kit, handed to {@link KitLeaseSuite} and {@link KitTransactionalSuite},
 * which JUnit instantiates itself. One kit run at a time per JVM: {@link KitRunner} sets it before it
 * launches and clears it afterwards.
 */
public final class KitSession {
    private static volatile ConformanceTarget current;

    private KitSession() {
    }

    /**
     * The target of the running kit.
     *
     * @return the target the running kit built from its URL
     * @throws IllegalStateException when no kit run is in progress (a suite class was run on its own)
     */
    public static ConformanceTarget current() {
        ConformanceTarget t = current;
        if (t == null) {
            throw new IllegalStateException("no conformance kit run in progress: run the suite with KitRunner");
        }
        return t;
    }

    static synchronized void begin(ConformanceTarget target) {
        if (current != null) {
            throw new IllegalStateException("a conformance kit run is already in progress in this JVM");
        }
        current = target;
    }

    static synchronized void end() {
        current = null;
    }
}
