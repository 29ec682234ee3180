package dev.sqlqueue.teradata;

import java.util.function.BooleanSupplier;

/** Waits for a condition the model reaches, for tests; fails after 5 s (a hang guard, not a timing assertion). */
final class Waits {
    private Waits() {
    }

    static void until(BooleanSupplier cond) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("condition not reached within 5 s");
            }
            Thread.sleep(5);
        }
    }
}
