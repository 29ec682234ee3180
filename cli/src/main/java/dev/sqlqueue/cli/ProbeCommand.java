package dev.sqlqueue.cli;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.ServerProbes;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue probe --backend sqlserver-broker --url ...}: run the backend's experiments that settle
 * on a real server what the vendor documentation could not, and print one verdict per question with
 * what was observed, for a DBA to paste into an issue. Every object a probe creates starts with a
 * random {@code sqlqprobe_<4 hex digits>_} prefix and is dropped before the probe returns.
 */
@Command(name = "probe", description = "Run a vendor backend's experiments on a real server and print one verdict "
        + "per open question (sqlserver, sqlserver-broker, teradata).")
public final class ProbeCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "JDBC_URL", defaultValue = "${env:SQLQUEUE_URL}",
            description = "JDBC URL of the server under test (env SQLQUEUE_URL).")
    String url;

    @Option(names = "--user", paramLabel = "USER", defaultValue = "${env:SQLQUEUE_USER}",
            description = "Database user (env SQLQUEUE_USER).")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", defaultValue = "${env:SQLQUEUE_PASSWORD}",
            description = "Database password (env SQLQUEUE_PASSWORD; prefer the variable, a command line is visible to other users).")
    String password;

    @Option(names = "--backend", required = true, paramLabel = "NAME",
            description = "Backend whose questions to settle: sqlserver, sqlserver-broker or teradata.")
    String backend;

    @Option(names = "--only", split = ",", paramLabel = "V1,V3", description = "Only these probes.")
    List<String> only = new ArrayList<>();

    @Option(names = "--option", paramLabel = "KEY=VALUE", description = "Backend option (repeatable).")
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
        QueueConfig.Builder b = QueueConfig.builder().url(url).user(user).password(password).backend(backend);
        for (String o : options) {
            int eq = o.indexOf('=');
            if (eq < 1) {
                throw new InvalidInputException("option.format", "--option must be KEY=VALUE, was '" + o + "'");
            }
            b.option(o.substring(0, eq), o.substring(eq + 1));
        }
        QueueConfig config = b.build();
        List<Probe> probes = ServerProbes.select(config, only);
        ProbeContext context = ServerProbes.context(config);
        String server;
        try {
            server = ServerProbes.server(context);
        } catch (TransientBackendException e) {
            // exit 2: the run wrote nothing, and a DBA must fix the URL or credentials before anything can run
            String hint = e.getMessage() != null && e.getMessage().contains("No suitable driver")
                    ? " (the driver is not on the class path; the Teradata driver is never bundled: run "
                    + "'java -cp sqlqueue.jar:terajdbc.jar dev.sqlqueue.cli.Main probe ...')"
                    : "";
            throw new CliException(ExitCodes.USAGE, e.getMessage() + hint);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("# sqlqueue probe: backend " + backend + ", " + new VersionProvider().getVersion()[0]);
        out.println("# server: " + server);
        out.println("# url: " + BackendDiscovery.redact(url) + "; objects prefixed " + context.prefix());
        out.flush();
        int[] errors = {0};
        ServerProbes.run(probes, context, (p, r) -> {
            out.println();
            out.println(p.id() + "  " + r.verdict() + "  " + p.question());
            out.println("    docs say: " + p.documented());
            for (String line : r.observed().split("\n")) {
                out.println("    observed: " + line);
            }
            out.flush();
            if (r.verdict() == ProbeResult.Verdict.ERROR) {
                errors[0]++;
            }
        });
        return errors[0] == 0 ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}
