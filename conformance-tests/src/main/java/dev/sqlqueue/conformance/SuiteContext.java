package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What every case of the suite can use: the backend under test, opened fresh for each case under a
 * unique prefix, and small helpers. Implemented by {@link ConformanceSuite}.
 */
public interface SuiteContext {
    /**
     * The backend under test, opened for this case.
     *
     * @return the client of this case, opened on the case's prefix; closed after the case
     */
    SqlQueue queue();

    /**
     * The config the backend was opened with.
     *
     * @return the config, with the case's unique prefix
     */
    QueueConfig config();

    /**
     * The fault hooks of the target under test.
     *
     * @return the target's hooks; a hook may be unavailable (the case then skips itself)
     */
    FaultHooks hooks();

    /**
     * The claim mode every case of the running class uses.
     *
     * @return {@link ClaimMode#LEASE} or {@link ClaimMode#TRANSACTIONAL}
     */
    ClaimMode claimMode();

    /**
     * Another client on the same prefix (another "process"); closed after the case.
     *
     * @return a new client; the suite closes it after the case
     */
    SqlQueue openAnother();

    /**
     * Another client built from {@code config}; closed after the case.
     *
     * @param config the config to open it with, usually {@link #config()} with a change
     * @return a new client; the suite closes it after the case
     */
    SqlQueue openAnother(QueueConfig config);

    /**
     * A new queue created on the backend.
     *
     * @param name the queue's name, unique within the case (the case's prefix keeps cases apart)
     * @return the queue, created
     */
    default QueueName newQueue(String name) {
        QueueName q = QueueName.of(name);
        queue().createQueue(q);
        return q;
    }

    /**
     * A claim of up to n messages in this class's mode, 30 s lease, no wait.
     *
     * @param n the most messages the claim takes, 1 or more
     * @return the request
     */
    default ConsumeRequest claim(int n) {
        return ConsumeRequest.of(n).withMode(claimMode());
    }

    /**
     * Skip the case unless the backend has {@code c}.
     *
     * @param c the capability the case needs
     */
    default void requires(Capability c) {
        assumeTrue(queue().capabilities().has(c), () -> queue().capabilities().whyAbsent(c));
    }

    /**
     * Skip the case unless this class runs {@code m}.
     *
     * @param m the claim mode the case needs
     * @param why the skip reason otherwise
     */
    default void requiresMode(ClaimMode m, String why) {
        assumeTrue(claimMode() == m, () -> why);
    }

    /**
     * Skip the case when a fault hook is missing.
     *
     * @param unavailable the hook's unavailability reason, from {@link FaultHooks}; empty when it works
     */
    default void requiresHook(Optional<String> unavailable) {
        assumeTrue(unavailable.isEmpty(), () -> "missing fault hook: " + unavailable.orElse(""));
    }

    /**
     * Consume exactly one delivery, waiting up to {@code wait}; fails if none or more came.
     *
     * @param client the client to consume with
     * @param q the queue
     * @param wait how long the consume may wait for a message
     * @return the one delivery
     */
    default Delivery consumeOne(SqlQueue client, QueueName q, Duration wait) {
        List<Delivery> got = client.consume(q, claim(1).withWait(wait));
        assertEquals(1, got.size(), "expected one delivery within " + wait);
        return got.get(0);
    }

    /**
     * Sleep, for cases that wait on the database clock.
     *
     * @param millis how long, in milliseconds; an interrupt fails the case
     */
    default void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The stacks of the library's and the connection pool's threads (names starting {@code sqlqueue-} or
     * {@code Hikari}, or holding {@code hikari} or {@code mariadb} in their name), for a case that failed by
     * waiting: what those threads were doing is what the failure message needs.
     *
     * @return the stacks, one block per thread (name, state, frames)
     */
    default String threadDump() {
        StringBuilder out = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            String n = t.getName().toLowerCase(java.util.Locale.ROOT);
            if (!(n.startsWith("sqlqueue-") || n.contains("hikari") || n.contains("mariadb"))) {
                return;
            }
            out.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement e : stack) {
                out.append("    at ").append(e).append('\n');
            }
        });
        return out.toString();
    }
}
