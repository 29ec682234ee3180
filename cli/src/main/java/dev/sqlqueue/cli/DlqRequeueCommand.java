package dev.sqlqueue.cli;

import dev.sqlqueue.SqlQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import dev.sqlqueue.DeadLetterSummary;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sqlqueue dlq requeue}: put dead letters back on their queue with the attempt count reset. */
@Command(name = "requeue", description = "Put dead letters back on the queue (attempts reset to 0).")
public final class DlqRequeueCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DlqCommand.QueueOption queue;

    @Option(names = "--id", paramLabel = "ID", description = "Only this message id (repeatable); default: all.")
    List<Long> ids = new ArrayList<>();

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        try (SqlQueue client = connection.open(false)) {
            Queues.requireExisting(client, queue.queue);
            if (!ids.isEmpty()) {
                // every id is checked before anything is requeued: a wrong id changes nothing
                // ids only, never payloads (issue 31: requeueing one of 1,000 dead letters of 1 MiB took up to 4 GB)
                Set<Long> dead = client.deadLetterSummaries(queue.queue, ids).stream().map(DeadLetterSummary::messageId)
                        .collect(Collectors.toSet());
                List<Long> missing = ids.stream().filter(id -> !dead.contains(id)).distinct().toList();
                if (!missing.isEmpty()) {
                    throw new CliException(ExitCodes.USAGE, "not dead letters of '" + queue.queue + "': " + missing
                            + "; nothing was requeued [rule: dlq.id]");
                }
            }
            long n = client.requeueDeadLetters(queue.queue, ids);
            spec.commandLine().getOut().printf("requeued %d dead letter%s to '%s'%n", n, n == 1 ? "" : "s", queue.queue);
            spec.commandLine().getOut().flush();
            if (!ids.isEmpty() && n < ids.stream().distinct().count()) {
                // another process requeued or purged some of them in between
                throw new CliException(ExitCodes.FAILURE, (ids.stream().distinct().count() - n) + " of the ids given were no longer dead letters of '"
                        + queue.queue + "'");
            }
        }
        return ExitCodes.OK;
    }
}
