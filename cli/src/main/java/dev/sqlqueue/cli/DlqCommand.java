package dev.sqlqueue.cli;

import dev.sqlqueue.QueueName;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sqlqueue dlq}: the dead-letter store of a queue; see its subcommands list, requeue and purge. */
@Command(name = "dlq", description = "List, requeue or purge the dead letters of a queue.",
        subcommands = {DlqListCommand.class, DlqRequeueCommand.class, DlqPurgeCommand.class})
public final class DlqCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: list, requeue or purge");
    }

    /** The {@code --queue} option of every dlq subcommand (a picocli mixin). */
    public static final class QueueOption {
        @Option(names = {"-q", "--queue"}, required = true, paramLabel = "QUEUE", converter = QueueNameConverter.class,
                description = "The queue whose dead letters to use.")
        QueueName queue;
    }
}
