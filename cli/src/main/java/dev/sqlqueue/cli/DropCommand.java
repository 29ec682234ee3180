package dev.sqlqueue.cli;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue drop --queue Q}: remove one queue with its messages, dead letters and history;
 * {@code sqlqueue drop --schema --yes}: remove every table of the table prefix (all its queues).
 */
@Command(name = "drop", description = {
    "Remove a queue (its messages, dead letters and history), or with --schema every sqlqueue table",
    "of the table prefix. Other queues and other tables are untouched."})
public final class DropCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    static final class Target {
        @Option(names = {"-q", "--queue"}, paramLabel = "QUEUE", converter = QueueNameConverter.class,
                description = "The queue to remove.")
        QueueName queue;

        @Option(names = "--schema", description = "Remove every table of the table prefix (needs --yes).")
        boolean schema;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    @Option(names = "--yes", description = "Confirm --schema.")
    boolean yes;

    @Override
    public Integer call() {
        if (target.schema && !yes) {
            throw new ParameterException(spec.commandLine(),
                    "--schema removes every queue of the table prefix and all their data: add --yes to confirm");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (SqlQueue client = connection.open(false)) {
            if (target.schema) {
                int queues = client.queues().size();
                client.dropSchema();
                out.printf("dropped every sqlqueue table of prefix %s (%d queue%s)%n",
                        connection.config(false).tablePrefix(), queues, queues == 1 ? "" : "s");
            } else {
                Queues.requireExisting(client, target.queue);
                client.dropQueue(target.queue);
                out.printf("dropped queue '%s' with its messages, dead letters and history%n", target.queue);
            }
            out.flush();
        }
        return ExitCodes.OK;
    }
}
