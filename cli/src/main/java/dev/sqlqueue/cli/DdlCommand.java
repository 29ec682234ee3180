package dev.sqlqueue.cli;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue ddl --backend teradata --queue Q}: print the DDL a backend would run for a queue, for
 * a DBA who must run it by hand. Connects to nothing.
 */
@Command(name = "ddl", description = "Print the DDL a backend would run to create a queue (connects to nothing).")
public final class DdlCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--backend", required = true, paramLabel = "NAME", description = "Backend name, for example teradata.")
    String backend;

    @Option(names = "--queue", required = true, paramLabel = "QUEUE", converter = QueueNameConverter.class,
            description = "Queue whose tables or objects the script creates.")
    QueueName queue;

    @Option(names = "--table-prefix", paramLabel = "PREFIX", defaultValue = "sqlq_",
            description = "Prefix of every table sqlqueue creates: lowercase ASCII letters, digits and '_', starting with a letter, up to 24 characters. Default: ${DEFAULT-VALUE}.")
    String prefix;

    @Option(names = "--option", paramLabel = "KEY=VALUE",
            description = "Backend option, for example teradata.database=QUEUES (repeatable).")
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
        QueueConfig.Builder b = QueueConfig.builder().backend(backend).url("jdbc:none:ddl").tablePrefix(prefix);
        for (String o : options) {
            int eq = o.indexOf('=');
            if (eq < 1) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--option must be KEY=VALUE, was '" + o + "'");
            }
            b.option(o.substring(0, eq), o.substring(eq + 1));
        }
        List<String> ddl = SqlQueue.ddl(b.build(), queue);
        PrintWriter out = spec.commandLine().getOut();
        if (ddl.isEmpty()) {
            out.println("-- backend '" + backend + "' creates its schema itself (Flyway migrations or provisioning): "
                    + "run 'sqlqueue migrate' with its URL");
        }
        for (String statement : ddl) {
            out.println(statement + ";");
            out.println("COMMIT;");
        }
        out.flush();
        return ExitCodes.OK;
    }
}
