package dev.sqlqueue.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The top-level {@code sqlqueue} command: only dispatches to its subcommands. */
@Command(name = "sqlqueue",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        versionProvider = VersionProvider.class,
        description = "Durable queues inside relational databases: enqueue lines, run them as parallel, "
                + "retrying shell commands, inspect queues and dead letters.",
        subcommands = {
            DemoCommand.class, EnqueueCommand.class, WorkCommand.class, StatsCommand.class,
            DlqCommand.class, HistoryCommand.class, MigrateCommand.class, BackendsCommand.class, ConformanceCommand.class, DdlCommand.class, DropCommand.class,
            ProbeCommand.class, DashboardCommand.class, MoveCommand.class, CompletionCommand.class, ManCommand.class,
            picocli.CommandLine.HelpCommand.class
        },
        footerHeading = "%nDatabase:%n",
        footer = {
            "  --url, --user, --password or SQLQUEUE_URL, SQLQUEUE_USER, SQLQUEUE_PASSWORD.",
            "  Default: an H2 file database in ./.sqlqueue/ of the current directory,",
            "  shared by several sqlqueue processes at once.",
            "",
            "Exit codes:",
            "  0 done; 1 failure (for example an unreachable database);",
            "  2 bad command line or input (nothing was written);",
            "  3 some messages failed (work: dead-lettered; demo: lost);",
            "  130/143 work, demo or dashboard stopped cleanly after Ctrl-C (SIGINT) / SIGTERM."
        })
public final class SqlQueueCommand implements Runnable {
    @Spec
    CommandSpec spec;

    /** Inherited by every subcommand; {@link Main} and {@link ErrorHandler} look for it on the command line. */
    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "Log more (info level) and print the stack trace of an error.")
    boolean verbose;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
                "a command is required: demo, enqueue, work, stats, dlq, history, drop, migrate, backends, conformance, ddl, probe, dashboard, move, completion or man");
    }
}
