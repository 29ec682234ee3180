package dev.sqlqueue.cli;

import dev.sqlqueue.SqlQueue;
import java.util.ArrayList;
import java.util.List;
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
            long n = client.requeueDeadLetters(queue.queue, ids);
            spec.commandLine().getOut().printf("requeued %d dead letter%s to '%s'%n", n, n == 1 ? "" : "s", queue.queue);
            spec.commandLine().getOut().flush();
            if (!ids.isEmpty() && n < ids.size()) {
                throw new CliException(ExitCodes.FAILURE, (ids.size() - n) + " of the " + ids.size()
                        + " ids given are not dead letters of '" + queue.queue + "'");
            }
        }
        return ExitCodes.OK;
    }
}
