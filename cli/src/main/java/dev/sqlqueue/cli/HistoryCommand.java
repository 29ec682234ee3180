package dev.sqlqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sqlqueue history}: the processed-message history; see its subcommand prune. */
@Command(name = "history", description = "Prune the history of processed messages ('stats --history N' lists it).",
        subcommands = {HistoryPruneCommand.class})
public final class HistoryCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "a subcommand is required: prune");
    }
}
