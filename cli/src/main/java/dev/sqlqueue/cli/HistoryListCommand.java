package dev.sqlqueue.cli;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue history list}: the newest processed messages of one queue, filtered by outcome, age and attempts.
 * The filters apply to the newest {@code --scan} rows the library returns ({@code QueueAdmin.history}, newest first).
 * The last column, PAYLOAD, is the row's payload preview ({@code HistoryEntry.payloadPreview}, the first 64 bytes) as
 * printable text, {@code -} for a row without one, so a row can be traced to the input line it came from (issue 34).
 */
@Command(name = "list", sortOptions = false,
        description = "List processed messages of a queue, newest first (UTC), filtered by outcome, age or attempts.")
public final class HistoryListCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    /** The outcomes a history row records. */
    enum OutcomeFilter {
        acked, dead_lettered;

        String text() {
            return name().replace('_', '-');
        }
    }

    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--queue"}, required = true, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Queue whose history to list.")
    QueueName queue;

    @Option(names = "--outcome", paramLabel = "OUTCOME", converter = OutcomeConverter.class,
            description = "Only rows with this outcome: acked or dead-lettered.")
    OutcomeFilter outcome;

    @Option(names = "--since", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Only rows that finished less than DURATION ago (by this machine's clock), e.g. 1h.")
    Duration since;

    @Option(names = "--min-attempts", paramLabel = "N", description = "Only rows that took at least N deliveries.")
    Integer minAttempts;

    @Option(names = {"-l", "--limit"}, paramLabel = "N", defaultValue = "20",
            description = "Rows to show at most, 1 to 100000. Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--scan", paramLabel = "N", defaultValue = "10000",
            description = "Newest rows read before filtering, 1 to 100000. Default: ${DEFAULT-VALUE}.")
    int scan;

    @Mixin
    ConnectionOptions connection;

    /** {@code dead-lettered} or {@code acked}, as the history writes them. */
    static final class OutcomeConverter implements picocli.CommandLine.ITypeConverter<OutcomeFilter> {
        @Override
        public OutcomeFilter convert(String value) {
            for (OutcomeFilter o : OutcomeFilter.values()) {
                if (o.text().equalsIgnoreCase(value) || o.name().equalsIgnoreCase(value)) {
                    return o;
                }
            }
            throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not an outcome; use acked or dead-lettered");
        }
    }

    @Override
    public Integer call() {
        if (limit < 1 || limit > 100_000) {
            throw new CliException(ExitCodes.USAGE, "--limit must be 1..100000, was " + limit + " [rule: limit.range]");
        }
        if (scan < 1 || scan > 100_000) {
            throw new CliException(ExitCodes.USAGE, "--scan must be 1..100000, was " + scan + " [rule: limit.range]");
        }
        if (since != null && (since.isNegative() || since.isZero())) {
            throw new CliException(ExitCodes.USAGE, "--since must be positive, was " + TypedDurations.text(since)
                    + " [rule: since.positive]");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (SqlQueue client = connection.open(true)) {
            Queues.requireExisting(client, queue);
            Instant after = since == null ? null : Instant.now().minus(since);
            List<HistoryEntry> rows = client.history(queue, scan).stream()
                    .filter(h -> outcome == null || outcome.text().equals(h.outcome()))
                    .filter(h -> after == null || (h.finishedAt() != null && h.finishedAt().isAfter(after)))
                    .filter(h -> minAttempts == null || h.attempts() >= minAttempts)
                    .limit(limit).toList();
            if (rows.isEmpty()) {
                out.println("no history rows of '" + queue + "' match");
            } else {
                TextTable t = new TextTable("ID", "START", "END", "DURATION MS", "ATTEMPTS", "OUTCOME", "DETAIL", "PAYLOAD");
                for (HistoryEntry h : rows) {
                    t.row(h.messageId(), time(h.startedAt()), time(h.finishedAt()), h.durationMillis(), h.attempts(),
                            h.outcome(), TextTable.preview(h.detail() == null ? "" : h.detail(), 60), TextTable.payload(h.payloadPreview()));
                }
                t.print(out);
            }
            out.flush();
        }
        return ExitCodes.OK;
    }

    private static String time(Instant t) {
        return t == null ? "-" : TIME.format(t);
    }
}
