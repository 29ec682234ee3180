package dev.sqlqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sqlqueue history}: the processed-message history; see its subcommands list and prune. */
@Command(name = "history", description = "List or prune the history of processed messages.",
        subcommands = {HistoryListCommand.class, HistoryPruneCommand.class})
public final class HistoryCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: list or prune");
    }
}
