package dev.sqlqueue.cli;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
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
 * {@code sqlqueue stats}: per queue the ready, in-flight, delayed and dead counts, the age of the oldest
 * ready message and the processed count; with {@code --history N} also the newest N history rows.
 */
@Command(name = "stats", sortOptions = false, description = "Show queue counts and, with --history N, processed messages.")
public final class StatsCommand implements Callable<Integer> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--queue"}, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Only this queue; default: every queue.")
    QueueName queue;

    @Option(names = "--history", paramLabel = "N",
            description = "Also list the newest N processed messages (1..100000) of each queue shown (times in UTC).")
    Integer historyRows;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        if (historyRows != null && (historyRows < 1 || historyRows > 100_000)) {
            throw new CliException(ExitCodes.USAGE, "--history must be 1..100000, was " + historyRows + " [rule: limit.range]");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (SqlQueue client = connection.open(true)) {
            if (queue != null) {
                Queues.requireExisting(client, queue);
            }
            List<QueueName> queues = queue != null ? List.of(queue) : client.queues();
            if (queues.isEmpty()) {
                out.println("no queues");
                out.flush();
                return ExitCodes.OK;
            }
            TextTable counts = new TextTable("QUEUE", "READY", "IN FLIGHT", "DELAYED", "DEAD", "OLDEST", "PROCESSED");
            for (QueueName q : queues) {
                QueueStats s = client.stats(q);
                counts.row(q, s.ready(), s.inFlight(), s.delayed(), s.dead(),
                        s.ready() == 0 ? "-" : DurationConverter.format(Duration.ofMillis(s.oldestReadyAgeMillis())),
                        s.processed());
            }
            counts.print(out);
            if (historyRows != null) {
                for (QueueName q : queues) {
                    printHistory(out, q, client.history(q, historyRows));
                }
            }
        }
        return ExitCodes.OK;
    }

    private static void printHistory(PrintWriter out, QueueName q, List<HistoryEntry> rows) {
        out.println();
        out.println("history of '" + q + "' (newest first, UTC):");
        if (rows.isEmpty()) {
            out.println("  none (history is kept when messages are processed with --history; 'work' keeps it by default)");
            out.flush();
            return;
        }
        TextTable t = new TextTable("ID", "START", "END", "DURATION MS", "ATTEMPTS", "OUTCOME", "DETAIL");
        for (HistoryEntry h : rows) {
            t.row(h.messageId(), time(h.startedAt()), time(h.finishedAt()), h.durationMillis(), h.attempts(),
                    h.outcome(), TextTable.preview(h.detail() == null ? "" : h.detail(), 60));
        }
        t.print(out);
    }

    private static String time(Instant t) {
        return t == null ? "-" : TIME.format(t);
    }
}
