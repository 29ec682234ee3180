package dev.sqlqueue.cli;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.UnsupportedCapabilityException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue enqueue}: one message per input line (a file, or standard input), in batches written
 * with {@code enqueueAll}. The whole input and every option is validated before anything is written,
 * so a bad line 5000 writes nothing; the error names the line and the rule broken.
 *
 * <p>SIGINT (Ctrl-C) or SIGTERM stops it after the batch being written (each batch is one transaction): it
 * says on standard error how many messages were committed, up to which input line, and the command that
 * enqueues the rest ({@code --from-line}, the first line not written), and exits 130 or 143 (issue 31: it
 * exited silently, and running it again queued the committed lines twice).
 */
@Command(name = "enqueue", sortOptions = false,
        description = "Enqueue one message per line of FILE or of standard input (empty lines are skipped).")
public final class EnqueueCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--queue"}, required = true, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Queue to enqueue to (created if missing).")
    QueueName queue;

    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Read messages from FILE; '-' is standard input.")
    String file;

    @Parameters(arity = "0..*", paramLabel = "FILE", description = "Files read in turn, as cat FILE... would give them ('-' is standard "
            + "input, at most once); nothing reads standard input. Line numbers (errors, --from-line) count through the files in order.")
    List<String> fileArguments = new ArrayList<>();

    @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Keep the messages invisible for this long, e.g. 250ms, 30s, 5m.")
    Duration delay;

    @Option(names = "--priority", paramLabel = "N", defaultValue = "0",
            description = "Priority -1000..1000; higher is consumed first. Default: ${DEFAULT-VALUE}.")
    int priority;

    @Option(names = "--group", paramLabel = "GROUP",
            description = "Put every message in this message group: they run one at a time, in line order, "
                    + "while other groups and ungrouped messages go on (1..128 characters).")
    String group;

    @Option(names = "--header", paramLabel = "KEY=VALUE",
            description = "A header on every message (repeatable).")
    Map<String, String> headers = new LinkedHashMap<>();

    @Option(names = "--dedupe",
            description = "Give every message a deduplication key made from its line's bytes (sha256:HEX), so a line "
                    + "enqueued again within the window is not queued twice: enqueuing the same file twice queues "
                    + "each line once.")
    boolean dedupe;

    @Option(names = "--dedupe-column", paramLabel = "N",
            description = "Use the N-th tab-separated field of each line (1 = first) as its deduplication key, "
                    + "exactly as written (1..128 characters, UTF-8); implies --dedupe.")
    Integer dedupeColumn;

    @Option(names = "--dedupe-window", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long a key stays taken after its first enqueue (database clock), 1ms..365d. Default: 5m.")
    Duration dedupeWindow;

    @Option(names = "--batch", paramLabel = "N", defaultValue = "500",
            description = "Messages per transaction, 1 to 10000. Default: ${DEFAULT-VALUE}.")
    int batch;

    @Option(names = "--from-line", paramLabel = "N",
            description = "Skip the input's lines before line N (1 = the first line; empty lines count): resumes an "
                    + "enqueue that was stopped, as its message says.")
    Long fromLine;

    @Mixin
    ConnectionOptions connection;

    /** Lines of the input committed so far, and the number of the last of them (read by the signal's thread). */
    private volatile long committedLines;
    private volatile long lastCommittedLine;
    private volatile long totalLines;

    @Mixin
    HistoryOption history;

    @Override
    public Integer call() throws IOException {
        if (file != null && !fileArguments.isEmpty()) {
            throw new CliException(ExitCodes.USAGE, "give the input either as --file or as an argument, not both [rule: input.one]");
        }
        if (batch < 1 || batch > 10_000) {
            throw new InvalidInputException("batch.range", "--batch must be 1..10000, was " + batch);
        }
        if (dedupeColumn != null && dedupeColumn < 1) {
            throw new InvalidInputException("dedupe.column", "--dedupe-column must be 1 or more, was " + dedupeColumn);
        }
        if (fromLine != null && fromLine < 1) {
            throw new InvalidInputException("from-line.range", "--from-line must be 1 or more, was " + fromLine);
        }
        boolean keyed = dedupe || dedupeColumn != null;
        QueueConfig.Builder config = connection.config(history.orDefault(false)).toBuilder();
        if (dedupeWindow != null) {
            config.deduplicationWindow(dedupeWindow);
        }
        Message template = template(new byte[0], null);
        List<String> sources = file != null ? List.of(file) : fileArguments.isEmpty() ? List.of("-") : fileArguments;
        if (sources.stream().filter("-"::equals).count() > 1) {
            throw new CliException(ExitCodes.USAGE, "'-' (standard input) can be given once only [rule: input.stdin-once]");
        }
        List<LineReader.Line> lines = new ArrayList<>();
        long next = 1;
        for (String source : sources) {
            LineReader.Read read = read(source, next);
            lines.addAll(read.lines());
            next = read.next();
        }
        if (fromLine != null) {
            lines = lines.stream().filter(l -> l.number() >= fromLine).toList();
        }
        if (lines.isEmpty()) {
            // nothing to write: the queue is not created (a typo in a queue name leaves no trace)
            spec.commandLine().getOut().printf("enqueued 0 messages to '%s' (the input has no non-empty line%s)%n", queue,
                    fromLine != null ? " from line " + fromLine : "");
            spec.commandLine().getOut().flush();
            return ExitCodes.OK;
        }
        // every key is built (and so validated) before anything is written
        List<String> keys = new ArrayList<>(lines.size());
        for (LineReader.Line line : lines) {
            keys.add(keyed ? key(line) : null);
        }
        totalLines = lines.size();
        AtomicBoolean stop = new AtomicBoolean();
        try (SqlQueue client = SqlQueue.open(config.build());
             ShutdownGuard guard = new ShutdownGuard(() -> stop.set(true), () -> stopped(null, true), Duration.ofSeconds(60))) {
            check(client.capabilities(), template, lines);
            checkArguments(lines);
            if (keyed && !client.capabilities().has(Capability.DEDUPLICATION)) {
                throw new UnsupportedCapabilityException(Capability.DEDUPLICATION, client.capabilities().backend());
            }
            if (stop.get()) {
                stopped(guard, false);
                return guard.exitCode(ExitCodes.OK);
            }
            client.createQueue(queue);
            long done = 0;
            long duplicates = 0;
            List<Message> chunk = new ArrayList<>(Math.min(batch, lines.size()));
            for (int i = 0; i < lines.size(); i++) {
                chunk.add(template(lines.get(i).bytes(), keys.get(i)));
                if (chunk.size() == batch || i == lines.size() - 1) {
                    duplicates += keyed ? writeKeyed(client, chunk) : 0;
                    done += keyed ? chunk.size() : write(client, chunk, done, lines);
                    chunk.clear();
                    lastCommittedLine = lines.get(i).number();
                    committedLines = done;
                    if (stop.get() && i < lines.size() - 1) {
                        stopped(guard, false);
                        return guard.exitCode(ExitCodes.OK);
                    }
                }
            }
            long queued = done - duplicates;
            spec.commandLine().getOut().printf("enqueued %d message%s to '%s'%s%n", queued, queued == 1 ? "" : "s", queue,
                    keyed ? " (" + duplicates + " duplicate" + (duplicates == 1 ? "" : "s") + " skipped)" : "");
            spec.commandLine().getOut().flush();
        }
        return ExitCodes.OK;
    }

    /**
     * Says on standard error what a signal left committed and how to enqueue the rest. {@code forced}: a second
     * signal exits at once, while a batch may be in flight: that batch may have committed too.
     */
    private void stopped(ShutdownGuard guard, boolean forced) {
        long n = committedLines;
        long last = lastCommittedLine;
        java.io.PrintWriter err = spec.commandLine().getErr();
        int code = guard == null ? 0 : guard.exitCode(0);
        String how = guard == null ? "a second signal" : code == 130 ? "SIGINT" : code == 143 ? "SIGTERM" : "the JVM's shutdown";
        if (n == 0) {
            err.printf("sqlqueue: stopped by %s: enqueued 0 of %d messages to '%s'%s; nothing was written, run the same"
                    + " command again%n", how, totalLines, queue, forced ? " (a batch being written may have committed)" : "");
        } else {
            err.printf("sqlqueue: stopped by %s: enqueued %d of %d messages to '%s' (lines %d to %d of the input; "
                    + "nothing after line %d was written%s)%n", how, n, totalLines, queue, fromLine != null ? fromLine : 1, last,
                    last,
                    forced ? ", unless the batch being written committed as the process exited: check with 'sqlqueue stats'" : "");
            err.printf("sqlqueue: to enqueue the rest without duplicates, run: %s%n", resumeCommand(last + 1));
            if (file == null && (fileArguments.isEmpty() || fileArguments.contains("-"))) {
                err.println("sqlqueue: (with the same input on standard input)");
            }
        }
        err.flush();
    }

    /**
     * This command line with {@code --from-line next} in place of any it had, quoted for a POSIX shell; a password
     * given on it is replaced by {@code ***} (give it again, or use SQLQUEUE_PASSWORD), and so is one in a URL.
     */
    private String resumeCommand(long next) {
        List<String> original = spec.commandLine().getParseResult() != null
                ? spec.root().commandLine().getParseResult().originalArgs() : List.of();
        List<String> out = new ArrayList<>();
        out.add("sqlqueue");
        for (int i = 0; i < original.size(); i++) {
            String a = original.get(i);
            if (a.equals("--from-line")) {
                i++;
                continue;
            }
            if (a.startsWith("--from-line=")) {
                continue;
            }
            if (a.equals("--password") && i + 1 < original.size()) {
                out.add(a);
                out.add("***");
                i++;
                continue;
            }
            if (a.startsWith("--password=")) {
                out.add("--password=***");
                continue;
            }
            if (a.startsWith("--url=")) {
                a = "--url=" + dev.sqlqueue.spi.BackendDiscovery.redact(a.substring("--url=".length()));
            } else if (i > 0 && original.get(i - 1).equals("--url")) {
                a = dev.sqlqueue.spi.BackendDiscovery.redact(a);
            }
            out.add(a);
        }
        out.add("--from-line");
        out.add(Long.toString(next));
        return String.join(" ", out.stream().map(EnqueueCommand::shellWord).toList());
    }

    /** {@code word} as one word for a POSIX shell: as it is when safe, else in single quotes. */
    static String shellWord(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:,+@%^=-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** The deduplication key of a line: its {@code --dedupe-column} field, else {@code sha256:} and the hex of its bytes. */
    private String key(LineReader.Line line) {
        if (dedupeColumn == null) {
            try {
                return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(line.bytes()));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
        }
        // split at the tab byte (0x09 is never part of a longer UTF-8 sequence), then decode the key strictly:
        // decoding replaced every invalid byte by U+FFFD, so keys that differ only there were one key
        List<byte[]> fields = new ArrayList<>();
        byte[] bytes = line.bytes();
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\t') {
                fields.add(java.util.Arrays.copyOfRange(bytes, start, i));
                start = i + 1;
            }
        }
        if (fields.size() < dedupeColumn) {
            throw new InvalidInputException("dedupe.column", "line " + line.number() + " has " + fields.size()
                    + " tab-separated field" + (fields.size() == 1 ? "" : "s") + ", --dedupe-column is " + dedupeColumn
                    + "; nothing was enqueued");
        }
        String field;
        try {
            field = StandardCharsets.UTF_8.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(fields.get(dedupeColumn - 1))).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new InvalidInputException("dedupe.utf8", "line " + line.number() + ": field " + dedupeColumn
                    + " is not UTF-8, so it cannot be kept as written as a key (--dedupe keys a line by a hash of its"
                    + " bytes); nothing was enqueued");
        }
        try {
            return Message.builder(new byte[0]).deduplicationKey(field).build().deduplicationKey();
        } catch (InvalidInputException e) {
            String said = e.getMessage().replace(" [rule: " + e.rule() + "]", "");
            throw new InvalidInputException(e.rule(), "line " + line.number() + ": " + said + "; nothing was enqueued");
        }
    }

    /** Enqueue a chunk with keys in one transaction, as {@link #write} does without; returns the duplicates. */
    private long writeKeyed(SqlQueue client, List<Message> chunk) {
        return chunk.isEmpty() ? 0 : client.enqueueAllDeduplicated(queue, chunk).stream().filter(EnqueueResult::duplicate).count();
    }

    private Message template(byte[] payload, String key) {
        Message.Builder b = Message.builder(payload).priority(priority).headers(headers).deduplicationKey(key);
        if (delay != null) {
            b.delay(delay);
        }
        if (group != null) {
            b.group(group);
        }
        return b.build();
    }

    private LineReader.Read read(String source, long first) throws IOException {
        if (source == null || source.equals("-")) {
            if (System.console() != null) {
                spec.commandLine().getErr().println("sqlqueue: reading messages from the terminal, one per line; end with Ctrl-D");
                spec.commandLine().getErr().flush();
            }
            return LineReader.readFrom(System.in, first);
        }
        try (InputStream in = Files.newInputStream(Path.of(source))) {
            return LineReader.readFrom(in, first);
        } catch (NoSuchFileException e) {
            throw new CliException(ExitCodes.FAILURE, "cannot read '" + source + "': no such file");
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILURE, "cannot read '" + source + "': " + e.getMessage(), e);
        }
    }

    /**
     * A line that 'work' could never run is refused: it passes a message to the command as one argument,
     * and Linux refuses an argument of 131,072 bytes or more ({@link ShellCommand#checkRunnable}).
     */
    private static void checkArguments(List<LineReader.Line> lines) {
        for (LineReader.Line line : lines) {
            int n = ShellCommand.argumentBytes(line.bytes());
            if (n > ShellCommand.MAX_ARGUMENT_BYTES) {
                throw new InvalidInputException("exec.argument-max", "line " + line.number() + " is "
                        + line.bytes().length + " bytes (" + (n - 1) + " as a command argument); 'work' passes a message "
                        + "as one argument, and Linux takes at most " + (ShellCommand.MAX_ARGUMENT_BYTES - 1)
                        + " bytes (MAX_ARG_STRLEN); nothing was enqueued");
            }
        }
    }

    /** Everything the backend would reject, checked for every line before anything is written. */
    private static void check(Capabilities caps, Message template, List<LineReader.Line> lines) {
        if (!template.delay().isZero() && !caps.has(Capability.DELAYED_DELIVERY)) {
            throw new UnsupportedCapabilityException(Capability.DELAYED_DELIVERY, caps.backend());
        }
        if (template.priority() != 0 && !caps.has(Capability.PRIORITY)) {
            throw new UnsupportedCapabilityException(Capability.PRIORITY, caps.backend());
        }
        if (template.group() != null && !caps.has(Capability.MESSAGE_GROUPS)) {
            throw new UnsupportedCapabilityException(Capability.MESSAGE_GROUPS, caps.backend());
        }
        for (LineReader.Line line : lines) {
            if (line.bytes().length > caps.maxPayloadBytes()) {
                throw new InvalidInputException("payload.max-size", "line " + line.number() + " is "
                        + line.bytes().length + " bytes; backend '" + caps.backend() + "' accepts at most "
                        + caps.maxPayloadBytes() + " bytes; nothing was enqueued");
            }
        }
    }

    private int write(SqlQueue client, List<Message> chunk, long done, List<LineReader.Line> lines) {
        if (chunk.isEmpty()) {
            return 0;
        }
        try {
            int n = client.enqueueAll(queue, chunk).size();
            chunk.clear();
            return n;
        } catch (RuntimeException e) {
            if (done > 0) {
                throw new CliException(ErrorHandler.exitCode(e), ErrorHandler.describe(e) + " (" + done + " of "
                        + lines.size() + " messages, up to line " + lines.get((int) done - 1).number()
                        + ", were enqueued before the failure)", e);
            }
            throw e;
        }
    }
}
