package dev.sqlqueue.conformance.kit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * The conformance kit: runs the suite (C01..C27) against any database reachable by a JDBC URL, through
 * the JUnit Platform Launcher, without Maven, and writes the report. This is what
 * {@code sqlqueue conformance} calls.
 *
 * <p>Safety on a server that is not yours: every case creates its objects under its own random table
 * prefix {@code kt<random>_} in the connection's current schema or database; each prefix is written to
 * {@code prefixes.log} in the report directory before it is used, dropped after its case, dropped again
 * by a final sweep (which then lists what is left with {@link DatabaseMetaData}), and dropped by a JVM
 * shutdown hook when the run is interrupted (Ctrl-C, SIGTERM). Only a {@code kill -9} or a power loss
 * leaves objects; {@code prefixes.log} names them.
 *
 * <p>Not thread-safe: one run per JVM at a time (the suite classes read the target from
 * {@link KitSession}).
 */
public final class KitRunner {
    /** Exit code: every case that ran passed (or was skipped) and nothing was left behind. */
    public static final int OK = 0;
    /** Exit code: a case failed, or the final sweep found objects left. */
    public static final int FAILURES = 1;
    /*
     * A run ended by SIGINT or SIGTERM exits as the JVM does on that signal, 130 or 143 (KitMain, sqlqueue
     * conformance), after the running case ended and every prefix was dropped; its report says it was
     * interrupted, and by which signal.
     */
    /** Exit code: the run could not start (bad option, unknown backend, database unreachable). */
    public static final int SETUP_ERROR = 2;

    private KitRunner() {
    }

    /**
     * Runs the kit. Prints progress, a table of results and where the report is to
     * {@link KitOptions#console()}; writes {@code conformance.md}, {@code TEST-*.xml} (JUnit XML) and
     * {@code prefixes.log} into {@link KitOptions#reportDir()}.
     *
     * @param given what to run, and where to report
     * @return {@link #OK}, {@link #FAILURES} or {@link #SETUP_ERROR}; never throws for a database or
     *     option problem (it prints it)
     */
    public static int run(KitOptions given) {
        // every line the kit prints goes through the same masking as its report files
        KitMask mask = new KitMask(given.url(), given.password());
        KitOptions options = given.withStreams(mask.stream(given.console()), mask.stream(given.errors()));
        PrintStream out = options.console();
        PrintStream err = options.errors();
        List<String> unknown = options.cases().stream().filter(c -> !CaseCatalog.ids().contains(c)).toList();
        if (!unknown.isEmpty()) {
            err.println("conformance kit: no such case " + String.join(", ", unknown) + "; the cases are "
                    + String.join(",", CaseCatalog.ids()));
            return SETUP_ERROR;
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        try {
            if (!options.driverPath().isEmpty()) {
                List<String> drivers = new ArrayList<>();
                ClassLoader parent = previous != null ? previous : KitRunner.class.getClassLoader();
                thread.setContextClassLoader(DriverLoader.load(options.driverPath(), parent, drivers));
                out.println("driver path: " + options.driverPath() + "; registered " + (drivers.isEmpty() ? "no driver" : drivers));
            }
            return runLoaded(options, mask);
        } catch (IllegalArgumentException | SQLException e) {
            err.println("conformance kit: " + e.getMessage());
            return SETUP_ERROR;
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private static String newPrefix() {
        return "kt" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
    }

    private static int runLoaded(KitOptions o, KitMask mask) {
        PrintStream out = o.console();
        Instant t0 = Instant.now();
        String redacted = BackendDiscovery.redact(o.url());
        QueueConfig base = baseConfig(o);
        String backend;
        try {
            backend = BackendDiscovery.find(base).name();
        } catch (SqlQueueException e) {
            o.errors().println("conformance kit: " + e.getMessage());
            return SETUP_ERROR;
        }
        String mismatch = backendUrlMismatch(o.backend(), o.url(), redacted);
        if (mismatch != null) {
            o.errors().println("conformance kit: " + mismatch);
            return SETUP_ERROR;
        }
        Path dir = o.reportDir();
        Path ledger = dir.resolve("prefixes.log");
        try {
            Files.createDirectories(dir);
            Files.writeString(ledger, "# kit run " + t0 + " on " + redacted + System.lineSeparator(), StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            o.errors().println("conformance kit: cannot write the report directory " + dir + ": " + e.getMessage());
            return SETUP_ERROR;
        }
        out.println("sqlqueue conformance kit: backend " + backend + " at " + redacted);
        out.println("It creates tables named kt<random>_* (a new random prefix per case) in the current schema/database"
                + " of user " + (o.user() == null ? "(from the URL)" : o.user()) + "; every one is dropped afterwards,"
                + " also after a failure or Ctrl-C. Each prefix is written to " + ledger + " before it is used.");

        UrlTarget target = new UrlTarget(backend, o.url(), o.user(), o.password(), o.backend(), ledger);
        target.options(o.backendOptions());
        target.caseTimeout(o.caseTimeout(), out);
        CountDownLatch finished = new CountDownLatch(1);
        Thread runner = Thread.currentThread();
        KitSignals signals = KitSignals.install();
        AtomicReference<String> interrupted = new AtomicReference<>();
        Thread hook = new Thread(() -> {
            interrupted.set(signals.cause());
            onInterrupt(target, runner, finished, out, interrupted.get());
        }, "sqlqueue-kit-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return runTarget(o, target, backend, redacted, t0, dir, mask, interrupted);
        } finally {
            finished.countDown();
            signals.restore();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
    }

    private static int runTarget(KitOptions o, UrlTarget target, String backend, String redacted, Instant t0, Path dir,
            KitMask mask, AtomicReference<String> interrupted) {
        PrintStream out = o.console();
        QueueConfig base = baseConfig(o);
        String probe = newPrefix();
        Capabilities caps;
        String server;
        try (SqlQueue q = SqlQueue.open(target.config(probe).toBuilder().migrate(false).poolSize(2).build())) {
            caps = q.capabilities();
            server = q.serverVersion();
        } catch (SqlQueueException e) {
            o.errors().println("conformance kit: cannot open backend " + backend + ": " + e.getMessage());
            sweep(target, o.errors());
            return SETUP_ERROR;
        }
        sweep(target, out);
        String[] driverAndDate = driverAndDate(o, backend);

        List<ClaimMode> modes = new ArrayList<>();
        Set<ClaimMode> asked = o.requestedModes();
        for (ClaimMode m : ClaimMode.values()) {
            if (asked.contains(m) && (!o.modes().equals("all") || caps.supports(m))) {
                modes.add(m);
            }
        }
        if (modes.isEmpty()) {
            modes.addAll(EnumSet.copyOf(asked));
        }
        target.faults(faults(o, backend, base));
        out.println("server: " + server + "; driver: " + driverAndDate[0] + "; claim modes: " + names(modes)
                + "; cases: " + (o.cases().isEmpty() ? "all" : String.join(",", o.cases()))
                + "; case time limit: " + o.caseTimeout().toSeconds() + " s");

        ResultCollector collector = new ResultCollector(out);
        KitSession.begin(target);
        List<String> leftovers;
        try {
            launch(o, modes, collector, dir, out);
        } finally {
            KitSession.end();
            leftovers = sweep(target, o.errors());
            ReportScrubber.scrub(dir, mask, o.errors());
        }
        List<CaseResult> results = collector.results();
        RunInfo info = new RunInfo(KitBuild.version(), KitBuild.commit(), backend, server, driverAndDate[0], driverAndDate[1], redacted, names(modes), o.cases(),
                Duration.between(t0, Instant.now()), target.prefixes(), leftovers, o.caseTimeout(), interrupted.get(),
                ServerSettings.java(), ServerSettings.os(), driverAndDate[2]);
        try {
            // the cases' messages may quote a password: masked as every other report file
            Files.writeString(dir.resolve("conformance.md"), mask.text(KitReport.markdown(info, results)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            o.errors().println("conformance kit: cannot write " + dir.resolve("conformance.md") + ": " + e.getMessage());
        }
        KitReport.console(out, info, results);
        out.println("report: " + dir.resolve("conformance.md").toAbsolutePath() + " (JUnit XML beside it)");
        boolean failed = results.stream().anyMatch(CaseResult::failed) || !leftovers.isEmpty();
        return failed ? FAILURES : OK;
    }

    /**
     * Why {@code --backend named} cannot run on {@code url}, or null when it can: it is refused when it does
     * not take the URL and another backend does, unless it is a variant of that one named after it (the
     * name-only {@code sqlserver-broker} on a {@code jdbc:sqlserver:} URL).
     */
    static String backendUrlMismatch(String named, String url, String redactedUrl) {
        if (named == null) {
            return null;
        }
        List<BackendProvider> all = BackendDiscovery.providers();
        BackendProvider chosen = all.stream().filter(p -> p.name().equals(named)).findFirst().orElse(null);
        if (chosen == null || chosen.acceptsUrl(url)) {
            return null;
        }
        BackendProvider byUrl = all.stream().filter(p -> p.acceptsUrl(url)).findFirst().orElse(null);
        if (byUrl == null || named.startsWith(byUrl.name() + "-")) {
            return null;
        }
        return "backend " + named + " does not take the URL '" + redactedUrl + "' (it is a " + byUrl.name()
                + " URL); give a URL of " + named + ", or leave out --backend";
    }

    private static QueueConfig baseConfig(KitOptions o) {
        QueueConfig.Builder b = QueueConfig.builder().url(o.url()).user(o.user()).password(o.password());
        o.backendOptions().forEach(b::option);
        if (o.backend() != null) {
            b.backend(o.backend());
        }
        return b.build();
    }

    private static List<String> names(List<ClaimMode> modes) {
        return modes.stream().map(m -> m.name().toLowerCase(Locale.ROOT)).toList();
    }

    private static FaultHooks faults(KitOptions o, String backend, QueueConfig base) {
        FaultHooks extension = null;
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        for (KitHooks h : ServiceLoader.load(KitHooks.class, cl != null ? cl : KitRunner.class.getClassLoader())) {
            if (h.backend().equals(backend)) {
                extension = h.hooks(base);
                o.console().println("fault hooks: " + h.getClass().getName());
                break;
            }
        }
        JdbcKillHooks kill = new JdbcKillHooks(o.url(), o.user(), o.password(), backend, o.allowKill());
        CommandRestartHooks restart = o.restartCommand() == null ? null
                : new CommandRestartHooks(o.restartCommand(), o.startCommand(), o.url(), o.user(), o.password(), o.console());
        return new KitFaults(backend, extension, kill, restart);
    }

    /**
     * The JDBC driver's name and version, the date by the database clock (or the JVM's, said so), and the server
     * settings of the header ({@link ServerSettings}).
     */
    private static String[] driverAndDate(KitOptions o, String backend) {
        String driver = "unknown";
        String date = Instant.now() + " (JVM clock)";
        String settings = "unreadable";
        try (Connection c = DriverManager.getConnection(o.url(), o.user(), o.password())) {
            settings = ServerSettings.read(c, backend);
            DatabaseMetaData md = c.getMetaData();
            driver = md.getDriverName() + " " + md.getDriverVersion();
            for (String sql : List.of("SELECT CURRENT_TIMESTAMP", "SELECT CURRENT_TIMESTAMP FROM (SELECT 1 AS x) t")) {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                    if (rs.next()) {
                        date = rs.getString(1) + " (database clock)";
                        break;
                    }
                } catch (SQLException tryNext) {
                    // a dialect without FROM-less SELECT
                }
            }
        } catch (SQLException e) {
            driver = "unknown (" + e.getMessage() + ")";
        }
        return new String[] {driver, date, settings};
    }

    private static void launch(KitOptions o, List<ClaimMode> modes, ResultCollector collector, Path dir, PrintStream out) {
        // cases in id order (C01, C02, ...) within each claim mode, as the report lists them
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .configurationParameter("junit.jupiter.testmethod.order.default", "org.junit.jupiter.api.MethodOrderer$DisplayName");
        for (ClaimMode m : modes) {
            request.selectors(selectClass(m == ClaimMode.LEASE ? KitLeaseSuite.class : KitTransactionalSuite.class));
        }
        if (!o.cases().isEmpty()) {
            request.filters(caseFilter(o.cases()));
        }
        LauncherDiscoveryRequest req = request.build();
        // our own listeners only: the suite's summary listener would print a second table
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        PrintWriter xmlLog = new PrintWriter(o.errors(), true);
        launcher.execute(req, collector, new LegacyXmlReportGeneratingListener(dir, xmlLog));
    }

    /** Keeps the cases whose display name starts with one of the ids ("C01 ..."). */
    static PostDiscoveryFilter caseFilter(List<String> ids) {
        return (TestDescriptor d) -> {
            if (!(d.getSource().orElse(null) instanceof MethodSource)) {
                return FilterResult.included("not a case");
            }
            String name = d.getDisplayName();
            return ids.stream().anyMatch(id -> name.startsWith(id + " "))
                    ? FilterResult.included("case " + name)
                    : FilterResult.excluded("not in --cases " + String.join(",", ids));
        };
    }

    /** Drops every prefix not yet cleaned up, then lists what any prefix of the run still has. */
    private static List<String> sweep(UrlTarget target, PrintStream out) {
        for (String p : target.notCleaned()) {
            try {
                target.cleanUp(p);
            } catch (RuntimeException e) {
                out.println("clean-up of " + p + " failed: " + e.getMessage());
            }
        }
        List<String> left = new ArrayList<>();
        for (String p : target.prefixes()) {
            try {
                List<String> found = target.objectsOf(p);
                if (!found.isEmpty()) {
                    // its case's clean-up reported it clean, yet objects are listed now: drop them, say so
                    out.println("sweep: prefix " + p + " still had " + found + " after its clean-up; dropping again");
                    try {
                        target.cleanUp(p);
                    } catch (RuntimeException e) {
                        out.println("clean-up of " + p + " failed: " + e.getMessage());
                    }
                    found = target.objectsOf(p);
                }
                left.addAll(found);
            } catch (SQLException e) {
                left.add(p + "* (cannot list: " + e.getMessage() + ")");
            }
        }
        return left;
    }

    /**
     * Shutdown hook: no new case starts; the running one gets 45 s to end (then an interrupt and 10 s
     * more); then every prefix not yet dropped is dropped.
     */
    private static void onInterrupt(UrlTarget target, Thread runner, CountDownLatch finished, PrintStream out, String cause) {
        target.stop("the kit run was interrupted by " + cause);
        out.println();
        out.println("conformance kit interrupted by " + cause + ": waiting for the running case to end, then dropping every kt…_ prefix it used");
        out.flush();
        try {
            if (!finished.await(45, TimeUnit.SECONDS)) {
                runner.interrupt();
                finished.await(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<String> left = sweep(target, out);
        out.println("conformance kit interrupted: " + target.prefixes().size() + " prefixes used; objects left behind: "
                + (left.isEmpty() ? "none" : left));
        out.flush();
    }
}
