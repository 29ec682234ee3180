package dev.sqlqueue.cli;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.runtime.MessageHandler;
import dev.sqlqueue.runtime.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;

/**
 * The {@link MessageHandler} of {@code sqlqueue work}: runs the delivery through a {@link ShellCommand}.
 * Exit 0 acks with detail {@code "exit 0"}; any other exit retries with error
 * {@code "exit N: <stderr tail>"}; a time-out retries with {@code "timed out after D"}; a message the
 * shell cannot take as an argument (it contains NUL) is dead-lettered at once. The command sees
 * {@code SQLQUEUE_QUEUE}, {@code SQLQUEUE_MESSAGE_ID} and {@code SQLQUEUE_ATTEMPT} in its environment.
 * Thread-safe.
 */
final class ShellHandler implements MessageHandler {
    /** Characters of standard error kept in an error (the database keeps the last error of a message). */
    static final int ERROR_TAIL_CHARS = 1_000;

    private final ShellCommand command;
    private final Duration timeout;

    ShellHandler(ShellCommand command, Duration timeout) {
        this.command = command;
        this.timeout = timeout;
    }

    @Override
    public Outcome handle(Delivery d) throws IOException, InterruptedException {
        String text = ShellCommand.text(d.payload());
        if (text.indexOf('\0') >= 0) {
            return Outcome.deadLetter("message contains a NUL character, which cannot be passed to a command");
        }
        Map<String, String> env = Map.of(
                "SQLQUEUE_QUEUE", d.receipt().queue().value(),
                "SQLQUEUE_MESSAGE_ID", Long.toString(d.id()),
                "SQLQUEUE_ATTEMPT", Integer.toString(d.attempt()));
        ShellCommand.Result r = command.run(text, d.payload(), env);
        if (r.ok()) {
            return Outcome.ack("exit 0");
        }
        String head = r.timedOut()
                ? "timed out after " + DurationConverter.format(timeout) + " (killed)"
                : "exit " + r.exitCode();
        String tail = r.stderrTail();
        if (tail.length() > ERROR_TAIL_CHARS) {
            tail = "..." + tail.substring(tail.length() - ERROR_TAIL_CHARS);
        }
        return Outcome.retry(tail.isEmpty() ? head : head + ": " + tail);
    }
}
