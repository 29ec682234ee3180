package dev.sqlqueue.cli;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.spi.BackendDiscovery;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue migrate}: create or upgrade the schema (the open migrates). The public API reports no
 * migration steps ({@code QueueAdmin.migrate()} returns nothing), so the command prints the backend, server,
 * prefix, the time the open with its migration took and the queues found afterwards.
 */
@Command(name = "migrate", description = "Create or upgrade the sqlqueue schema in the database.")
public final class MigrateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Mixin
    HistoryOption history;

    @Override
    public Integer call() {
        // migrate on: with it off, opening refuses a schema older than this release needs (rule schema.version),
        // which is the schema this command is for
        QueueConfig config = connection.config(history.orDefault(false)).toBuilder().migrate(true).build();
        PrintWriter out = spec.commandLine().getOut();
        long started = System.nanoTime();
        try (SqlQueue client = SqlQueue.open(config)) {
            long ms = (System.nanoTime() - started) / 1_000_000;
            int queues = client.queues().size();
            out.printf("schema up to date: backend %s, server %s, table prefix %s, url %s (%d ms); %d queue%s%n",
                    client.capabilities().backend(), client.serverVersion(), config.tablePrefix(),
                    BackendDiscovery.redact(config.url()), ms, queues, queues == 1 ? "" : "s");
            out.flush();
        }
        return ExitCodes.OK;
    }
}
