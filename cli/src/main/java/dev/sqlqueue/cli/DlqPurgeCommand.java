package dev.sqlqueue.cli;

import dev.sqlqueue.SqlQueue;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sqlqueue dlq purge}: delete every dead letter of a queue. */
@Command(name = "purge", description = "Delete every dead letter of the queue.")
public final class DlqPurgeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    DlqCommand.QueueOption queue;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        try (SqlQueue client = connection.open(false)) {
            Queues.requireExisting(client, queue.queue);
            long n = client.purgeDeadLetters(queue.queue);
            spec.commandLine().getOut().printf("purged %d dead letter%s of '%s'%n", n, n == 1 ? "" : "s", queue.queue);
            spec.commandLine().getOut().flush();
        }
        return ExitCodes.OK;
    }
}
