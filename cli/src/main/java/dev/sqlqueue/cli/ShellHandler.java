package dev.sqlqueue.cli;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The {@link MessageHandler} of {@code sqlqueue work}: runs the delivery through a {@link ShellCommand}.
 * Exit 0 acks (without a detail, so that acks can be group-committed; the history's outcome says acked); any other exit retries with error
 * {@code "exit N: <stderr tail>"}; a time-out retries with {@code "timed out after D"}. A message that can
 * never run is dead-lettered at once, not retried: one containing NUL, one too long for an argument
 * ({@link ShellCommand#checkRunnable}), or one the kernel refuses with E2BIG ("Argument list too long").
 * Before a command starts, the {@link OrphanGuard} kills a copy of the same message still running from a
 * dead worker. The command sees {@code SQLQUEUE_QUEUE}, {@code SQLQUEUE_MESSAGE_ID} and
 * {@code SQLQUEUE_ATTEMPT} in its environment. Thread-safe.
 */
final class ShellHandler implements MessageHandler {
    /** Characters of standard error kept in an error (the database keeps the last error of a message). */
    static final int ERROR_TAIL_CHARS = 1_000;

    private final ShellCommand command;
    private final Duration timeout;
    private final OrphanGuard orphans;
    private final java.util.function.Consumer<String> log;

    ShellHandler(ShellCommand command, Duration timeout) {
        this(command, timeout, OrphanGuard.off(), line -> { });
    }

    /**
     * @param log receives one line per orphan killed
     */
    ShellHandler(ShellCommand command, Duration timeout, OrphanGuard orphans, java.util.function.Consumer<String> log) {
        this.command = command;
        this.timeout = timeout;
        this.orphans = orphans;
        this.log = log;
    }

    @Override
    public Outcome handle(Delivery d) throws IOException {
        try {
            ShellCommand.checkRunnable(d.payload());
        } catch (ShellCommand.Unrunnable e) {
            return Outcome.deadLetter(e.getMessage());
        }
        Map<String, String> env = new HashMap<>();
        env.put("SQLQUEUE_QUEUE", d.receipt().queue().value());
        env.put("SQLQUEUE_MESSAGE_ID", Long.toString(d.id()));
        env.put("SQLQUEUE_ATTEMPT", Integer.toString(d.attempt()));
        ShellCommand.Result r;
        try {
            List<Long> orphan = orphans.reap(d.id());
            if (!orphan.isEmpty()) {
                log.accept("sqlqueue: message " + d.id() + ": killed process" + (orphan.size() == 1 ? " " : "es ")
                        + orphan.stream().map(String::valueOf).collect(Collectors.joining(", "))
                        + ", a copy still running from a worker that died");
            }
            String run = orphans.begin(d.id());
            if (run != null) {
                env.put(OrphanGuard.RUN_VARIABLE, run);
            }
            r = command.run(d.payload(), env);
        } catch (InterruptedException e) {
            // the thread's interrupt is not kept: the pool settles this delivery on the database next,
            // and an interrupted thread cannot (H2's file channel closes, the pool refuses a connection)
            return Outcome.retry("interrupted by shutdown (killed)");
        } catch (IOException e) {
            if (String.valueOf(e.getMessage()).contains("error=7,")) {
                return Outcome.deadLetter("the command cannot start, its arguments or environment are too large (E2BIG): "
                        + e.getMessage() + " [rule: exec.argument-max]");
            }
            throw e;
        } finally {
            orphans.clear(d.id());
        }
        if (r.ok()) {
            // no detail: the pool then acks through ackAll, which the pool group-commits across its threads (AckGroupCommit) (history: outcome acked)
            return Outcome.ack();
        }
        String head = r.timedOut()
                ? "timed out after " + DurationConverter.format(timeout) + " (killed)"
                : command.killedAll() ? command.killedWhy() + " (exit " + r.exitCode() + ")"
                : "exit " + r.exitCode();
        String tail = r.stderrTail();
        if (tail.length() > ERROR_TAIL_CHARS) {
            tail = "..." + tail.substring(tail.length() - ERROR_TAIL_CHARS);
        }
        return Outcome.retry(tail.isEmpty() ? head : head + ": " + tail);
    }
}
