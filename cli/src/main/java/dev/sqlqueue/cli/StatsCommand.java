package dev.sqlqueue.cli;

import dev.sqlqueue.Capability;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.OpenTransaction;
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
 * ready message and the processed count; on PostgreSQL and MariaDB the oldest open transactions of the database (up
 * to 5; a long one slows every claim); with {@code --history N} also the newest N history rows.
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
            description = "Also list the newest N processed messages (1 to 100000) of each queue shown (times in UTC).")
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
            if (client.capabilities().has(Capability.OLDEST_TRANSACTIONS)) {
                printOpenTransactions(out, client);
            }
            if (historyRows != null) {
                for (QueueName q : queues) {
                    printHistory(out, q, client.history(q, historyRows));
                }
            }
        }
        return ExitCodes.OK;
    }

    /**
     * Up to {@value #TRANSACTIONS_SHOWN} open transactions of the database, oldest first (PostgreSQL, MariaDB): a long
     * one keeps the server from cleaning up the queue's dead row versions, and every claim slows down (issue 31).
     */
    private static void printOpenTransactions(PrintWriter out, SqlQueue client) {
        out.println();
        List<OpenTransaction> open;
        try {
            open = client.oldestTransactions(TRANSACTIONS_SHOWN);
        } catch (RuntimeException e) {
            out.println("open transactions of the database: cannot read them: " + e.getMessage());
            out.flush();
            return;
        }
        if (open.isEmpty()) {
            out.println("open transactions of the database: none holds back its clean-up");
            out.flush();
            return;
        }
        out.println("open transactions of the database, oldest first (they hold back the clean-up of the queue's rows;"
                + " docs/backends/" + client.capabilities().backend() + ".md, \"A transaction held open elsewhere\"):");
        TextTable t = new TextTable("SESSION", "USER", "APPLICATION", "CLIENT", "STATE", "OPEN FOR", "QUERY");
        for (OpenTransaction o : open) {
            t.row(o.sessionId(), dash(o.user()), dash(o.applicationName()), dash(o.clientAddress()), dash(o.state()),
                    DurationConverter.format(Duration.ofMillis(o.ageMillis())), TextTable.preview(dash(o.query()), 60));
        }
        t.print(out);
    }

    private static final int TRANSACTIONS_SHOWN = 5;

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static void printHistory(PrintWriter out, QueueName q, List<HistoryEntry> rows) {
        out.println();
        out.println("history of '" + q + "' (newest first, UTC):");
        if (rows.isEmpty()) {
            out.println("  none (history is kept when messages are processed with --history; 'work' keeps it by default)");
            out.flush();
            return;
        }
        TextTable t = new TextTable("ID", "START", "END", "DURATION MS", "ATTEMPTS", "OUTCOME", "DETAIL", "PAYLOAD");
        for (HistoryEntry h : rows) {
            t.row(h.messageId(), time(h.startedAt()), time(h.finishedAt()), h.durationMillis(), h.attempts(),
                    h.outcome(), TextTable.preview(h.detail() == null ? "" : h.detail(), 60), TextTable.payload(h.payloadPreview()));
        }
        t.print(out);
    }

    private static String time(Instant t) {
        return t == null ? "-" : TIME.format(t);
    }
}
