package dev.sqlqueue.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Entry point of the {@code sqlqueue} command (the main class of {@code cli/target/sqlqueue.jar}).
 * Exit codes are listed in {@link ExitCodes}.
 */
public final class Main {
    private Main() {
    }

    /**
     * Run the command and exit the JVM with its exit code.
     *
     * @param args the command line, for example {@code work --queue jobs -- ./handle.sh}
     */
    public static void main(String[] args) {
        launchWithVfork();
        h2ServerOnLoopback();
        if (Arrays.asList(args).contains("--verbose") || Arrays.asList(args).contains("-v")) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        }
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int code = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * On Linux, start commands with {@code vfork} + {@code exec} rather than the JDK 17 default
     * ({@code posix_spawn} of the {@code jspawnhelper} program, which then execs the command): one exec
     * less per command, a measurable share of {@code work}'s time on small tasks (docs/benchmarks.md).
     * Set before the first {@link ProcessBuilder#start()}; {@code -Djdk.lang.Process.launchMechanism=...}
     * given by the user wins.
     */
    static void launchWithVfork() {
        if (System.getProperty("os.name", "").equals("Linux")
                && System.getProperty("jdk.lang.Process.launchMechanism") == null
                && Runtime.version().feature() < 21) {
            System.setProperty("jdk.lang.Process.launchMechanism", "VFORK");
        }
    }

    /**
     * The server an H2 {@code AUTO_SERVER} database starts (the default database's, so that other {@code sqlqueue}
     * processes share it) listens on 127.0.0.1 only, not on every interface. H2 2.3.232 has no per-database bind
     * setting: {@code Database.startServer} starts a TCP server with {@code -tcpAllowOthers}, whose socket
     * {@code NetUtils.createServerSocket} binds to the JVM-wide system property {@code h2.bindAddress}
     * ({@code SysProperties.BIND_ADDRESS}, read once when H2 loads), or to every interface without it. The same
     * address is what {@code NetUtils.getLocalAddress} writes to the lock file ({@code server=localhost:PORT}) for the
     * other processes to connect to. The command's JVM is its own, so the property is set here, before any H2 class
     * loads; a value the user gives ({@code -Dh2.bindAddress=...} in {@code SQLQUEUE_JAVA_OPTS}) wins. The library
     * never sets it (it would move an application's own H2 servers): docs/backends/h2.md.
     */
    static void h2ServerOnLoopback() {
        if (System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
    }

    /**
     * The configured command line, writing to {@code out} and {@code err}; {@code execute(args)} on it
     * runs a command in-process and returns its exit code (tests use this).
     *
     * @param out where commands write their results
     * @param err where commands write errors and warnings
     * @return a new command line, not shared: one per run
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        TypedDurations.clear();
        ErrorHandler errors = new ErrorHandler();
        CommandLine cl = new CommandLine(new SqlQueueCommand());
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(errors);
        cl.setParameterExceptionHandler(errors);
        cl.setExitCodeExceptionMapper(ErrorHandler::exitCode);
        footers(cl);
        layout(cl);
        return cl;
    }

    /** The options every connecting command shares, listed after its own options in this order. */
    private static final List<String> SHARED_OPTIONS = List.of(
            "--url", "--user", "--password", "--backend", "--table-prefix", "--option", "--verbose", "--help", "--version");

    /**
     * One option order in every command's help (issue 34): the command's own options as declared, then the shared
     * ones in {@link #SHARED_OPTIONS} order; never sorted by name.
     */
    private static void layout(CommandLine cl) {
        cl.getCommandSpec().usageMessage().sortOptions(false);
        // picocli cannot move an option once added (its short-name map keeps it), so the list is rendered in order:
        // a stable sort keeps the declaration order within the command's own options and within the shared ones
        java.util.Comparator<CommandLine.Model.OptionSpec> order = java.util.Comparator.comparingInt(
                o -> SHARED_OPTIONS.indexOf(o.longestName()));
        cl.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST,
                help -> help.optionList(help.createDefaultLayout(), order, help.createDefaultParamLabelRenderer()));
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub != cl) {
                layout(sub);
            }
        }
    }

    /**
     * Each subcommand's help ends with what applies to it: the database options only where the command
     * connects to one (it has {@code --url}), and the exit codes it can return. (The top-level footer
     * would otherwise be inherited by every subcommand, {@code ddl} included.)
     */
    private static void footers(CommandLine cl) {
        for (CommandLine sub : cl.getSubcommands().values()) {
            CommandSpec spec = sub.getCommandSpec();
            String name = spec.name();
            // a command that only groups others (dlq, history) connects through them
            boolean connects = spec.findOption("--url") != null
                    || sub.getSubcommands().values().stream().anyMatch(s -> s.getCommandSpec().findOption("--url") != null);
            boolean runs = name.equals("work") || name.equals("demo") || name.equals("dashboard") || name.equals("enqueue");
            boolean urlRequired = spec.findOption("--url") != null && spec.findOption("--url").required();
            List<String> lines = new ArrayList<>();
            if (name.equals("demo")) {
                for (String o : List.of("--url", "--user", "--password")) {
                    CommandLine.Model.OptionSpec before = spec.findOption(o);
                    if (before != null) {
                        spec.remove(before);
                        spec.addOption(CommandLine.Model.OptionSpec.builder(before).defaultValue(null)
                                .description(java.util.Arrays.stream(before.description())
                                        .map(d -> d.replaceAll(" ?\\(env SQLQUEUE_[A-Z]+\\)", "")
                                                .replace("(env SQLQUEUE_PASSWORD; prefer the variable, ", "(")
                                                .replaceAll("Default: an H2 file database.*", "Default: a temporary H2 database."))
                                        .toArray(String[]::new)).build());
                    }
                }
                // the demo reads no SQLQUEUE_* variable: without --url it makes a temporary database of its own
                lines.add("  --url, --user, --password only (no environment variable is read). Default: a temporary H2");
                lines.add("  database, deleted afterwards; with --url, a queue demo-<random> dropped afterwards.");
                lines.add("");
            } else if (urlRequired) {
                lines.add("  --url (required), --user, --password or SQLQUEUE_URL, SQLQUEUE_USER, SQLQUEUE_PASSWORD.");
                lines.add("");
            } else if (connects) {
                lines.add("  --url, --user, --password or SQLQUEUE_URL, SQLQUEUE_USER, SQLQUEUE_PASSWORD.");
                lines.add("  Default: an H2 file database in ./.sqlqueue/ of the current directory,");
                lines.add("  shared by several sqlqueue processes at once.");
                lines.add("");
            }
            lines.add("Exit codes:");
            if (name.equals("conformance")) {
                // as docs/conformance.md: a run that cannot start (the database unreachable included) is 2
                lines.add("  0 every case that ran passed; 1 a case failed or kit objects were left;");
                lines.add("  2 the run could not start: bad command line, unknown case or backend,");
                lines.add("    a backend that does not take the URL, an unreachable database;");
                lines.add("  130/143 interrupted by Ctrl-C (SIGINT) / SIGTERM, after dropping its tables.");
            } else if (name.equals("probe")) {
                // as docs/cli.md: an unreachable server is 2, nothing ran
                lines.add("  0 every probe ran; 1 a probe could not run (verdict ERROR);");
                lines.add("  2 bad command line, a backend without probes, an unknown probe id,");
                lines.add("    an unreachable database (nothing ran).");
            } else if (name.equals("move")) {
                lines.add("  0 done; 1 failure (an unreachable database);");
                lines.add("  2 bad command line or input (nothing was moved);");
                lines.add("  stopped or killed at any point: run the same command again to finish the job.");
            } else {
                lines.add(connects ? "  0 done; 1 failure (an unreachable database, a queue that does not exist);"
                        : "  0 done;");
                lines.add("  2 bad command line or input" + (connects ? " (nothing was written)" : "") + (runs ? ";" : "."));
            }
            if (name.equals("work")) {
                lines.add("  3 some messages were dead-lettered;");
                lines.add("  130/143 stopped cleanly after Ctrl-C (SIGINT) / SIGTERM.");
            } else if (name.equals("demo")) {
                lines.add("  3 some messages were lost or unfinished;");
                lines.add("  130/143 stopped cleanly after Ctrl-C (SIGINT) / SIGTERM.");
            } else if (name.equals("dashboard")) {
                lines.add("  130/143 stopped cleanly after Ctrl-C (SIGINT) / SIGTERM.");
            } else if (name.equals("enqueue")) {
                lines.add("  130/143 stopped after Ctrl-C (SIGINT) / SIGTERM, saying what was committed");
                lines.add("    and the command that enqueues the rest (--from-line).");
            }
            spec.usageMessage().footerHeading(connects ? "%nDatabase:%n" : "%n");
            spec.usageMessage().footer(lines.toArray(String[]::new));
            footers(sub);
        }
    }
}
