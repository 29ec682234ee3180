package dev.sqlqueue.cli;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.dashboard.DashboardOptions;
import dev.sqlqueue.dashboard.DashboardServer;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sqlqueue dashboard}: serve the web dashboard (module {@code dashboard/}) until SIGINT/SIGTERM.
 * Binds to 127.0.0.1 unless told otherwise; any other address needs a token (docs/dashboard.md).
 */
@Command(name = "dashboard", sortOptions = false,
        description = "Serve a web dashboard of every queue (counts, charts, dead letters, history) until Ctrl-C.")
public final class DashboardCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", description = "Port to listen on (0: any free port); default 8080.")
    int port;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "Address to listen on; default 127.0.0.1. Any address other than a loopback one needs --token.")
    String bind;

    @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${env:SQLQUEUE_DASHBOARD_TOKEN}",
            description = "Every request must carry this token, 16..200 characters: letters, digits and - . _ ~ (env SQLQUEUE_DASHBOARD_TOKEN; prefer the "
                    + "variable, a command line is visible to other users). Open the address printed at start once.")
    String token;

    @Option(names = "--read-only", description = "Show no action (requeue, purge); the server refuses them.")
    boolean readOnly;

    @Option(names = "--no-payload", description = "Show no payload previews of dead letters.")
    boolean noPayload;

    @Mixin
    ConnectionOptions connection;

    @Override
    public Integer call() throws InterruptedException {
        DashboardOptions options = DashboardOptions.defaults().withToken(token).withReadOnly(readOnly)
                .withPayloadPreview(!noPayload);
        DashboardServer.checkBind(options, bind, port);   // before the database is opened
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stop = new CountDownLatch(1);
        AtomicInteger signal = new AtomicInteger();
        SignalTrap intTrap = SignalTrap.install("INT", n -> { signal.compareAndSet(0, 128 + n); stop.countDown(); });
        SignalTrap termTrap = SignalTrap.install("TERM", n -> { signal.compareAndSet(0, 128 + n); stop.countDown(); });
        try (SqlQueue client = connection.open(true);
             DashboardServer server = listen(client, options)) {
            String host = hostForUrl(bind);
            out.println("sqlqueue dashboard on http://" + host + ":" + server.port() + "/"
                    + (options.token() != null ? "?token=" + options.token() : "")
                    + (readOnly ? " (read-only)" : "") + " (Ctrl-C stops it)");
            out.flush();
            stop.await();
        } finally {
            if (intTrap != null) {
                intTrap.restore();
            }
            if (termTrap != null) {
                termTrap.restore();
            }
        }
        return signal.get();
    }

    /**
     * Start the server.
     *
     * @throws CliException exit {@link ExitCodes#FAILURE} when the address cannot be listened on (the port
     *         is taken, or reserved): the command line is fine, the machine is not ready for it, as with an
     *         unreachable database
     */
    private DashboardServer listen(SqlQueue client, DashboardOptions options) {
        try {
            return DashboardServer.start(client, options, client.capabilities().backend() + " " + client.serverVersion(), bind, port);
        } catch (UncheckedIOException e) {
            // "cannot listen on 127.0.0.1:8080: Address already in use"
            throw new CliException(ExitCodes.FAILURE, e.getMessage() + " (is another server on that port? choose another with --port)", e);
        }
    }

    private static String hostForUrl(String bind) {
        try {
            InetAddress a = InetAddress.getByName(bind);
            if (a.isAnyLocalAddress()) {
                return InetAddress.getLocalHost().getHostName();
            }
            return a instanceof java.net.Inet6Address ? "[" + a.getHostAddress() + "]" : bind;
        } catch (UnknownHostException e) {
            throw new InvalidInputException("dashboard.bind", "unknown bind address '" + bind + "'");
        }
    }
}
