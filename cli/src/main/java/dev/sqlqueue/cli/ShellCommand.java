package dev.sqlqueue.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one message as the user's command: {@code /bin/sh -c SCRIPT sqlqueue ARG}, where SCRIPT is the
 * user's command with every {@code {}} replaced by {@link #MESSAGE} (the message as one word, inside double
 * quotes too), or the same program started directly when
 * the command is a simple one (below). The message therefore reaches the shell
 * as a positional parameter and is never parsed as shell syntax; its bytes are also written to the
 * command's standard input. (A {@code {}} inside single quotes in the user's command is not the message: the shell expands nothing there.)
 *
 * <p><b>Direct exec of a simple command.</b> When the user's command is a simple command ({@link #simpleWords}:
 * words of the characters {@code A-Z a-z 0-9 _ . / : , + @ % ^ = -} and {@code {}}, separated by spaces or
 * tabs; a first word that is no assignment, holds no {@code {}} and is no shell keyword or builtin of
 * {@link #SHELL_WORDS}), the program is started directly, each {@code {}} replaced by the message: exactly
 * the argument list {@code sh} would have built (its words need no expansion, and {@code "$1"} is one word),
 * but one exec and one fork less per message, which is most of the cost of a millisecond command. The
 * environment is the one {@code sh} would pass on ({@code PWD} as {@code sh} sets it, see {@link #pwdForShell}),
 * and so are standard input, standard error, the time-out and the exit code (killed by signal N: 128+N,
 * {@link Process#exitValue()} as a shell reports it). When the program cannot be started (not found, not
 * executable), the message is run through {@code sh} as below, so the exit code (127, 126) and the error line
 * are the shell's own. Escaped messages (see "Exact bytes") and runs in an own session ({@code setsid})
 * always go through {@code sh}. Two differences remain: {@code sh} writes "Killed" or "Terminated" to standard
 * error when its command dies of a signal, a program started directly that dies of a signal leaves no such
 * line; and a program started directly has SIGQUIT blocked (the JVM blocks it in its threads, JDK 17 passes the
 * signal mask on through {@code exec}, dash clears it), which its children inherit. SIGTERM, SIGINT and the
 * SIGKILL of time-outs are not blocked.
 *
 * <p><b>Exact bytes.</b> A Java argument is a {@code String} that the JVM encodes with its default
 * charset, so only text it can encode back to the same bytes is passed as is (ASCII always; any valid
 * UTF-8 when the default charset is UTF-8). Any other message (say a file name from {@code find} that is
 * not UTF-8) is passed as ASCII with every other byte written {@code \0ooo} (octal) and each backslash
 * doubled, and the script starts with {@code set -- "$(printf '%bx' "$1")"; set -- "${1%x}";}, which
 * the shell's {@code printf} builtin turns back into the original bytes (the {@code x} keeps trailing
 * new lines). Either way {@code $1} holds exactly the message's bytes.
 *
 * <p><b>Argument size.</b> Linux refuses one argument of more than {@value #MAX_ARGUMENT_BYTES} bytes with its terminating NUL
 * ({@code MAX_ARG_STRLEN}, 32 pages, in {@code linux/binfmts.h}; {@code execve} fails with E2BIG,
 * "Argument list too long"), so {@link #argumentBytes} tells whether a message can be run at all;
 * {@code enqueue} refuses such lines and {@code work} dead-letters such a message at once.
 *
 * <p>With a controlling terminal the command runs in its own session ({@code setsid}, when installed) so
 * a Ctrl-C at the terminal reaches sqlqueue, which lets running commands finish, and not the commands
 * themselves; without one (cron, CI, a service) no terminal can send it, and the extra exec is skipped.
 *
 * <p>Standard output goes nowhere ({@code /dev/null}); standard error is drained by a thread into a
 * {@link TailBuffer} of {@code tailBytes}, so memory stays bounded whatever the command prints. With a
 * timeout, a command still running after it is killed with its whole process tree
 * ({@link ProcessHandle#descendants()}, {@code destroyForcibly}). {@link #killAll} kills every running
 * command (the end of a shutdown's grace period). Thread-safe: one instance serves every worker thread.
 */
final class ShellCommand {
    /** The token replaced by the message. */
    static final String PLACEHOLDER = "{}";
    /**
     * What {@link #PLACEHOLDER} becomes in the script: {@code $1} as one word both outside and inside double
     * quotes (and in a command substitution inside them). {@code "$1"} would close the user's own double quotes
     * in {@code rm "{}"} and leave {@code $1} unquoted there, split into words and expanded as a file name
     * pattern. {@code ${1+"$1"}} is the positional parameter quoted in its own word of the expansion, which dash
     * and bash keep as one word in either place (POSIX, Shell Command Language, 2.6.2 Parameter Expansion).
     */
    static final String MESSAGE = "${1+\"$1\"}";
    /** Linux's limit on one argument, terminating NUL included (MAX_ARG_STRLEN = 32 pages of 4 KiB). */
    static final int MAX_ARGUMENT_BYTES = 131_072;
    /** Prefix of the script that decodes an escaped message back into its bytes. */
    static final String DECODE = "set -- \"$(printf '%bx' \"$1\")\"; set -- \"${1%x}\"; ";
    /** Standard input up to this size is written by the worker thread itself: a new pipe takes it without blocking. */
    private static final int PIPE_BUF = 4096;
    private static final String SETSID = findSetsid();
    private static final boolean UTF8_ARGS = Charset.defaultCharset().equals(StandardCharsets.UTF_8);
    private static final ExecutorService IO = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "sqlqueue-exec-io");
        t.setDaemon(true);
        return t;
    });
    /** How long to wait for the output drains after the command ended (a background child may hold the pipes). */
    private static final long DRAIN_WAIT_MS = 1_000;

    /**
     * Words that {@code sh} does not run as a program when they come first: the keywords and builtins of
     * dash (Debian's {@code /bin/sh}), bash and BusyBox ash, and POSIX's reserved words. dash's {@code echo},
     * {@code printf}, {@code test} or {@code kill} behave differently from the programs of the same name.
     */
    static final Set<String> SHELL_WORDS = Set.of(
            "!", "{", "}", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function",
            "if", "in", "select", "then", "time", "until", "while",
            ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "chdir", "command", "compgen",
            "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit",
            "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local",
            "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set",
            "shift", "shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit",
            "umask", "unalias", "unset", "wait");

    private final String script;
    /** The argument list of a simple command, {@code {}} not yet replaced; null: run through {@code sh}. */
    private final List<String> words;
    /** {@code PWD} to set for a direct exec, as {@code sh} would export it; null: the inherited one is right. */
    private final String pwd;
    private final Duration timeout;
    private final int tailBytes;
    private final boolean ownSession;
    private final Set<Process> running = ConcurrentHashMap.newKeySet();
    private volatile boolean killedAll;
    private volatile String killedWhy = "killed";

    /**
     * @param command the user's command line, run by {@code /bin/sh -c}
     * @param timeout kill the command after this long; null for no limit
     * @param tailBytes bytes of standard error kept
     */
    ShellCommand(String command, Duration timeout, int tailBytes) {
        this(command, timeout, tailBytes, SETSID != null && hasControllingTerminal());
    }

    /**
     * @param ownSession run every command under {@code setsid -w /bin/sh -c} (which also means no direct exec)
     */
    ShellCommand(String command, Duration timeout, int tailBytes, boolean ownSession) {
        if (ownSession && SETSID == null) {
            throw new IllegalArgumentException("setsid is not installed");
        }
        this.script = command.replace(PLACEHOLDER, MESSAGE);
        this.ownSession = ownSession;
        this.words = ownSession ? null : simpleWords(command);
        this.pwd = words == null ? null : pwdForShell(System.getenv("PWD"), Path.of("").toAbsolutePath());
        this.timeout = timeout;
        this.tailBytes = tailBytes;
    }

    /** The script given to {@code sh -c}. */
    String script() {
        return script;
    }

    /** Whether messages that pass as they are start the program directly, without {@code sh}. */
    boolean direct() {
        return words != null;
    }

    /**
     * The words of {@code command} when it is a simple command that {@code sh -c} would run as one program
     * with exactly these arguments ({@code {}} standing for the message), else null. A simple command here is
     * one or more words separated by spaces or tabs, each made of the characters
     * {@code A-Z a-z 0-9 _ . / : , + @ % ^ = -} and {@code {}} (none of which the shell expands or treats as
     * syntax: no quotes, {@code $}, {@code ~}, globbing, redirection, {@code ;}, {@code &}, {@code |}, new
     * line or {@code #}), whose first word holds no {@code =} (an assignment) and no {@code {}} (the message
     * would be the program) and is none of {@link #SHELL_WORDS}.
     */
    static List<String> simpleWords(String command) {
        List<String> words = new java.util.ArrayList<>();
        for (String w : command.split("[ \t]+", -1)) {
            if (w.isEmpty()) {
                continue;
            }
            String rest = w.replace(PLACEHOLDER, "");
            for (int i = 0; i < rest.length(); i++) {
                char c = rest.charAt(i);
                boolean safe = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                        || "_./:,+@%^=-".indexOf(c) >= 0;
                if (!safe) {
                    return null;
                }
            }
            words.add(w);
        }
        if (words.isEmpty()) {
            return null;
        }
        String first = words.get(0);
        if (first.contains("=") || first.contains(PLACEHOLDER) || SHELL_WORDS.contains(first)) {
            return null;
        }
        return List.copyOf(words);
    }

    /**
     * The {@code PWD} that {@code sh} exports to its commands: the inherited one when it is absolute and
     * names the working directory, else the working directory's path (dash's {@code getpwd}); null when the
     * inherited one stays.
     */
    static String pwdForShell(String inherited, Path cwd) {
        if (inherited != null && inherited.startsWith("/")) {
            try {
                if (Files.isSameFile(Path.of(inherited), cwd)) {
                    return null;
                }
            } catch (IOException | RuntimeException e) {
                // not a directory that exists: sh replaces it
            }
        }
        try {
            return cwd.toRealPath().toString();
        } catch (IOException e) {
            return cwd.toString();
        }
    }

    /** What one run did. {@code exitCode} is -1 when the command timed out. */
    record Result(int exitCode, boolean timedOut, String stderrTail, long stderrBytes) {
        boolean ok() {
            return !timedOut && exitCode == 0;
        }
    }

    /** A message that cannot be run: it contains NUL or is too long for an argument. */
    static final class Unrunnable extends Exception {
        final String rule;

        Unrunnable(String rule, String message) {
            super(message + " [rule: " + rule + "]");
            this.rule = rule;
        }
    }

    /**
     * The message as the argument string handed to the JVM, or the escaped form (see the class comment).
     *
     * @return the argument, and whether the script must decode it
     */
    static Argument argument(byte[] payload) {
        if (passesAsIs(payload)) {
            return new Argument(new String(payload, UTF8_ARGS ? StandardCharsets.UTF_8 : StandardCharsets.US_ASCII), false);
        }
        StringBuilder b = new StringBuilder(payload.length * 2);
        for (byte x : payload) {
            int v = x & 0xff;
            if (v == '\\') {
                b.append("\\\\");
            } else if (v >= 0x20 && v < 0x7f) {
                b.append((char) v);
            } else {
                b.append("\\0").append((char) ('0' + (v >> 6))).append((char) ('0' + ((v >> 3) & 7)))
                        .append((char) ('0' + (v & 7)));
            }
        }
        return new Argument(b.toString(), true);
    }

    /** The argument string and whether it is escaped; {@code bytes} is its size as the kernel sees it. */
    record Argument(String text, boolean escaped) {
        int bytes() {
            return escaped ? text.length() : text.getBytes(UTF8_ARGS ? StandardCharsets.UTF_8 : StandardCharsets.US_ASCII).length;
        }
    }

    /** Bytes the message takes as an argument, terminating NUL included. */
    static int argumentBytes(byte[] payload) {
        return argument(payload).bytes() + 1;
    }

    /**
     * Check that {@code payload} can be run: no NUL byte (an argument ends at NUL), and an argument
     * of at most {@link #MAX_ARGUMENT_BYTES} bytes with its NUL (so at most 131,071 bytes of text).
     */
    static void checkRunnable(byte[] payload) throws Unrunnable {
        for (byte x : payload) {
            if (x == 0) {
                throw new Unrunnable("exec.nul", "message contains a NUL byte, which cannot be passed to a command");
            }
        }
        int n = argumentBytes(payload);
        if (n > MAX_ARGUMENT_BYTES) {
            throw new Unrunnable("exec.argument-max", "message is too long to be passed as an argument: "
                    + (n - 1) + " bytes as an argument, the limit is " + (MAX_ARGUMENT_BYTES - 1)
                    + " (Linux MAX_ARG_STRLEN)");
        }
    }

    private static boolean passesAsIs(byte[] payload) {
        boolean ascii = true;
        for (byte x : payload) {
            if (x < 0) {
                ascii = false;
                break;
            }
        }
        if (ascii) {
            return true;
        }
        if (!UTF8_ARGS) {
            return false;
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /**
     * Run the command for one message and wait for it (or for the timeout).
     *
     * @param payload the message's bytes: {@code $1} and standard input; see {@link #checkRunnable}
     * @param env variables added to the inherited environment
     * @throws IOException if the shell cannot be started
     * @throws InterruptedException if the thread was interrupted; the command's process tree was killed
     */
    Result run(byte[] payload, Map<String, String> env) throws IOException, InterruptedException {
        Argument arg = argument(payload);
        Process p = null;
        if (words != null && !arg.escaped()) {
            try {
                p = start(directCommand(arg), env, pwd);
            } catch (IOException e) {
                // not started (not found, not executable, E2BIG): sh runs it and reports as it always did
            }
        }
        if (p == null) {
            p = start(command(arg), env, null);
        }
        running.add(p);
        try {
            if (killedAll) {
                killTree(p);
            }
            Process started = p;
            TailBuffer err = new TailBuffer(tailBytes);
            Future<?> errDrain = IO.submit(() -> err.drain(started.getErrorStream()));
            if (payload.length <= PIPE_BUF) {
                feed(p.getOutputStream(), payload);
            } else {
                IO.submit(() -> feed(started.getOutputStream(), payload));
            }
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
            await(errDrain);
            return new Result(finished ? p.exitValue() : -1, !finished, err.text(), err.totalBytes());
        } finally {
            running.remove(p);
        }
    }

    /**
     * Kill every running command with its process tree, and any started from now on (the end of a shutdown's
     * grace, or a second signal); {@code why} is what the commands' messages report ({@link #killedWhy()}).
     */
    void killAll(String why) {
        killedWhy = why;
        killedAll = true;
        running.forEach(ShellCommand::killTree);
    }

    /** Whether {@link #killAll} was called. */
    boolean killedAll() {
        return killedAll;
    }

    /** Why {@link #killAll} killed the commands, for their messages' error ("killed at the end of ..."). */
    String killedWhy() {
        return killedWhy;
    }

    /**
     * Removes the database credentials from a command's environment: {@code SQLQUEUE_PASSWORD}, and
     * {@code SQLQUEUE_URL} when it holds a password (a {@code password=} parameter or {@code user:password@}),
     * which {@link dev.sqlqueue.spi.Redaction#url} would mask.
     */
    static void withoutCredentials(Map<String, String> env) {
        env.remove("SQLQUEUE_PASSWORD");
        String url = env.get("SQLQUEUE_URL");
        if (url != null && !dev.sqlqueue.spi.Redaction.url(url).equals(url)) {
            env.remove("SQLQUEUE_URL");
        }
    }

    private static Process start(List<String> command, Map<String, String> env, String pwd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> e = pb.environment();
        withoutCredentials(e);
        if (pwd != null) {
            e.put("PWD", pwd);
        }
        e.putAll(env);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        return pb.start();
    }

    private List<String> directCommand(Argument arg) {
        String[] argv = new String[words.size()];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = words.get(i).replace(PLACEHOLDER, arg.text());
        }
        return List.of(argv);
    }

    private List<String> command(Argument arg) {
        String s = arg.escaped() ? DECODE + script : script;
        return ownSession
                ? List.of(SETSID, "-w", "/bin/sh", "-c", s, "sqlqueue", arg.text())
                : List.of("/bin/sh", "-c", s, "sqlqueue", arg.text());
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
        killTree(p.toHandle());
    }

    /** Kill a process and every descendant. */
    static void killTree(ProcessHandle p) {
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

    /**
     * Whether this process has a controlling terminal: field 7 ({@code tty_nr}) of {@code /proc/self/stat}
     * is not 0 (proc(5)). Where that file cannot be read, assume a terminal (setsid is the safe side).
     */
    static boolean hasControllingTerminal() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return !"0".equals(f[4]);
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }
}
