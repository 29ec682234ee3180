package dev.sqlqueue.cli;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue backends}: the backend providers on the class path; the one the connection options
 * select (by {@code --backend}, else by URL) is marked {@code *}. Does not connect.
 */
@Command(name = "backends", description = "List the backends available; * marks the one the connection options select.")
public final class BackendsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        List<BackendProvider> providers = BackendDiscovery.providers();
        if (providers.isEmpty()) {
            throw new CliException(ExitCodes.FAILURE, "no backends found on the class path");
        }
        String selected = selected();
        TextTable t = new TextTable("", "NAME", "DESCRIPTION");
        for (BackendProvider p : providers) {
            t.row(p.name().equals(selected) ? "*" : "", p.name(), p.description());
        }
        t.print(out);
        return ExitCodes.OK;
    }

    private String selected() {
        try {
            QueueConfig config = connection.config(false);
            return BackendDiscovery.find(config).name();
        } catch (SqlQueueException e) {
            return null;
        }
    }
}
