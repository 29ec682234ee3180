package dev.sqlqueue.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one message as a shell command: {@code /bin/sh -c SCRIPT sqlqueue MESSAGE}, where SCRIPT is the
 * user's command with every {@code {}} replaced by {@code "$1"}. The message therefore reaches the shell
 * as a positional parameter and is never parsed as shell syntax; it is also written to the command's
 * standard input. (A {@code {}} inside single quotes in the user's command stays literal text.)
 *
 * <p>The command runs in its own session ({@code setsid}, when installed) so a Ctrl-C at the terminal
 * reaches sqlqueue, which lets running commands finish, and not the commands themselves.
 *
 * <p>Standard output and error are drained by threads into {@link TailBuffer}s of {@code tailBytes}
 * each, so memory stays bounded whatever the command prints. With a timeout, a command still running
 * after it is killed with its whole process tree ({@link ProcessHandle#descendants()},
 * {@code destroyForcibly}). Thread-safe: one instance serves every worker thread.
 */
final class ShellCommand {
    /** The token replaced by the message. */
    static final String PLACEHOLDER = "{}";
    private static final String SETSID = findSetsid();
    private static final ExecutorService IO = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sqlqueue-exec-io");
        t.setDaemon(true);
        return t;
    });
    /** How long to wait for the output drains after the command ended (a background child may hold the pipes). */
    private static final long DRAIN_WAIT_MS = 1_000;

    private final String script;
    private final Duration timeout;
    private final int tailBytes;

    /**
     * @param command the user's command line, run by {@code /bin/sh -c}
     * @param timeout kill the command after this long; null for no limit
     * @param tailBytes bytes of standard output and of standard error kept, each
     */
    ShellCommand(String command, Duration timeout, int tailBytes) {
        this.script = command.replace(PLACEHOLDER, "\"$1\"");
        this.timeout = timeout;
        this.tailBytes = tailBytes;
    }

    /** The script given to {@code sh -c}. */
    String script() {
        return script;
    }

    /** What one run did. {@code exitCode} is -1 when the command timed out. */
    record Result(int exitCode, boolean timedOut, String stdoutTail, String stderrTail, long stdoutBytes,
                  long stderrBytes) {
        boolean ok() {
            return !timedOut && exitCode == 0;
        }
    }

    /**
     * Run the command for one message and wait for it (or for the timeout).
     *
     * @param message the message text, passed as {@code $1}; must not contain NUL characters
     * @param input bytes written to the command's standard input
     * @param env variables added to the inherited environment
     * @throws IOException if the shell cannot be started
     * @throws InterruptedException if the thread was interrupted; the command's process tree was killed
     */
    Result run(String message, byte[] input, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command(message));
        pb.environment().remove("SQLQUEUE_PASSWORD");
        pb.environment().putAll(env);
        Process p = pb.start();
        TailBuffer out = new TailBuffer(tailBytes);
        TailBuffer err = new TailBuffer(tailBytes);
        Future<?> outDrain = IO.submit(() -> out.drain(p.getInputStream()));
        Future<?> errDrain = IO.submit(() -> err.drain(p.getErrorStream()));
        IO.submit(() -> feed(p.getOutputStream(), input));
        boolean finished;
        try {
            if (timeout == null) {
                p.waitFor();
                finished = true;
            } else {
                finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            killTree(p);
            throw e;
        }
        if (!finished) {
            killTree(p);
            p.waitFor(5, TimeUnit.SECONDS);
        }
        await(outDrain);
        await(errDrain);
        return new Result(finished ? p.exitValue() : -1, !finished, out.text(), err.text(),
                out.totalBytes(), err.totalBytes());
    }

    private List<String> command(String message) {
        return SETSID == null
                ? List.of("/bin/sh", "-c", script, "sqlqueue", message)
                : List.of(SETSID, "-w", "/bin/sh", "-c", script, "sqlqueue", message);
    }

    private static void feed(OutputStream stdin, byte[] input) {
        try (stdin) {
            stdin.write(input);
        } catch (IOException e) {
            // the command does not read its input (broken pipe): fine
        }
    }

    /** Kill the process and every descendant (snapshot taken before the parent dies, as orphans are re-parented). */
    static void killTree(Process p) {
        List<ProcessHandle> descendants = p.descendants().toList();
        p.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    private static void await(Future<?> drain) throws InterruptedException {
        try {
            drain.get(DRAIN_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // a background child still holds the pipe; report what was read so far
        } catch (java.util.concurrent.ExecutionException e) {
            // cannot happen: drain catches its I/O errors
        }
    }

    private static String findSetsid() {
        for (String dir : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
            Path p = Path.of(dir, "setsid");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    /** The message as the shell receives it: UTF-8 text. */
    static String text(byte[] payload) {
        return new String(payload, StandardCharsets.UTF_8);
    }
}
