package dev.sqlqueue.cli;

import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sqlqueue history prune}: delete history rows older than an age, or beyond the newest N, per queue. */
@Command(name = "prune", sortOptions = false,
        description = "Delete history rows that finished longer ago than --max-age, or beyond the newest --max-rows, of one queue or of every queue.")
public final class HistoryPruneCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-q", "--queue"}, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Only this queue; default: every queue.")
    QueueName queue;

    @Option(names = "--max-age", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Keep rows that finished less than this long ago (database clock), e.g. 30d.")
    Duration maxAge;

    @Option(names = "--max-rows", paramLabel = "N",
            description = "Keep at most the newest N rows of each queue.")
    Long maxRows;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        HistoryRetention retention = retention(maxAge, maxRows, "--max-age", "--max-rows");
        PrintWriter out = spec.commandLine().getOut();
        try (SqlQueue client = connection.open(true)) {
            if (queue != null) {
                Queues.requireExisting(client, queue);
            }
            List<QueueName> queues = queue != null ? List.of(queue) : client.queues();
            for (QueueName q : queues) {
                long n = client.pruneHistory(q, retention);
                out.printf("pruned %d history row%s of '%s'%n", n, n == 1 ? "" : "s", q);
            }
            out.flush();
        }
        return ExitCodes.OK;
    }

    /** The retention of an age and a row option, at least one given; names are the options' for the error. */
    static HistoryRetention retention(Duration maxAge, Long maxRows, String ageOption, String rowsOption) {
        if (maxAge == null && maxRows == null) {
            throw new CliException(ExitCodes.USAGE, "give " + ageOption + ", " + rowsOption + " or both [rule: prune.limit]");
        }
        return new HistoryRetention(maxAge, maxRows);
    }
}
