package dev.sqlqueue.cli;

import dev.sqlqueue.conformance.kit.KitOptions;
import dev.sqlqueue.conformance.kit.KitRunner;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code sqlqueue conformance}: the shared conformance suite against any server, through the JUnit
 * Platform launcher inside this jar; writes {@code DIR/conformance.md} and JUnit XML. Exit 0 when no
 * case failed, 1 when one did (or kit objects were left), 2 on a setup error (a bad option, an unknown
 * backend, an unreachable database), 130 / 143 when SIGINT / SIGTERM interrupted the run (the report says so).
 */
@Command(name = "conformance", description = {
    "Run the conformance suite against a database and write a report.",
    "Creates only tables named kt<random>_* (one prefix per case) and drops every one afterwards,",
    "also after a failure or Ctrl-C."})
public final class ConformanceCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--url", required = true, paramLabel = "JDBC_URL", defaultValue = "${env:SQLQUEUE_URL}",
            description = "The database to test (required; or SQLQUEUE_URL).")
    String url;

    @Option(names = "--user", paramLabel = "USER", defaultValue = "${env:SQLQUEUE_USER}",
            description = "Database user (env SQLQUEUE_USER).")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", defaultValue = "${env:SQLQUEUE_PASSWORD}",
            description = "Database password (env SQLQUEUE_PASSWORD; prefer the variable, a command line is visible to other users).")
    String password;

    @Option(names = "--backend", paramLabel = "NAME", description = "Backend name (default: chosen by the URL).")
    String backend;

    @Option(names = "--mode", paramLabel = "lease|transactional|all", defaultValue = "all",
            description = "Claim modes to run (default: all the backend offers).")
    String mode;

    @Option(names = "--cases", paramLabel = "C01,C07", description = "Only these cases (not empty; leave the option out for all).")
    String cases;

    @Option(names = "--report", paramLabel = "DIR", defaultValue = "conformance-report",
            description = "Where to write conformance.md and the JUnit XML (default: ${DEFAULT-VALUE}).")
    Path report;

    @Option(names = "--driver-path", paramLabel = "JARS",
            description = "JDBC driver jars this command does not ship (Teradata's), separated by ':'.")
    String driverPath;

    @Option(names = "--allow-kill", description = "Let the fault cases kill sessions the kit cannot prove are its own (a test server only).")
    boolean allowKill;

    @Option(names = "--restart-command", paramLabel = "CMD", description = "Shell command that stops the database (C17).")
    String restartCommand;

    @Option(names = "--start-command", paramLabel = "CMD", description = "Shell command that starts it again (C17).")
    String startCommand;

    @Option(names = "--option", paramLabel = "KEY=VALUE", description = "Backend option for every case (repeatable).")
    List<String> options = new ArrayList<>();

    @Option(names = "--case-timeout", paramLabel = "DURATION", defaultValue = "" + KitOptions.DEFAULT_CASE_TIMEOUT_SECONDS,
            description = {"Time limit of one case, 1 s to 24 h: seconds (90) or a duration (90s, 10m, 1h, 1m30s,",
                "PT2H); default: ${DEFAULT-VALUE} s. A case still running",
                "then fails with what it was waiting on; its objects are dropped and the run goes on."})
    String caseTimeout;

    @Override
    public Integer call() {
        KitOptions kit;
        try {
            // every option is checked here, before anything runs: a bad one is a usage error (exit 2)
            KitOptions.Builder b = KitOptions.builder().url(url).user(user).password(password).backend(backend)
                    .modes(mode).cases(cases).reportDir(report).driverPath(driverPath).allowKill(allowKill)
                    .restartCommand(restartCommand).startCommand(startCommand).console(new PrintStream(System.out, true));
            options.forEach(b::option);
            b.caseTimeout(caseTimeout(caseTimeout));
            kit = b.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        int rc = KitRunner.run(kit);
        return rc == KitRunner.OK ? ExitCodes.OK : rc == KitRunner.SETUP_ERROR ? ExitCodes.USAGE : ExitCodes.FAILURE;
    }

    /**
     * {@code --case-timeout}: a number of seconds ({@code 90}), or a duration as every other option takes it
     * ({@link DurationConverter}: {@code 90s}, {@code 10m}, {@code 1h}, {@code 1d}, {@code 1m30s}, {@code PT2H});
     * the kit then checks the range, whole seconds from 1 s to 24 h.
     */
    static Duration caseTimeout(String text) {
        String s = text == null ? "" : text.strip();
        if (s.matches("\\d{1,6}")) {
            return Duration.ofSeconds(Long.parseLong(s));
        }
        try {
            return DurationConverter.parse(s);
        } catch (TypeConversionException e) {
            throw new IllegalArgumentException("case-timeout: " + e.getMessage());
        }
    }
}
