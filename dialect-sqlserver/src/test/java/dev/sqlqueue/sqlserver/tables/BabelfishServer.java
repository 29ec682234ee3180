package dev.sqlqueue.sqlserver.tables;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Babelfish for PostgreSQL server of the test JVM's own, from the project's shared fixture
 * ({@code shared/babelfish/} beside the repository: {@code start.sh}, {@code stop.sh}, a prebuilt tarball;
 * its {@code BUILD.md} lists what Babelfish does differently from SQL Server). Babelfish is a T-SQL engine
 * speaking TDS on PostgreSQL, so mssql-jdbc and the backend's statements meet a real T-SQL parser and
 * executor. It is <b>not SQL Server</b>: it ignores table hints (READPAST, UPDLOCK, HOLDLOCK), has no
 * Service Broker and no lock DMVs, and numbers many errors 33557097.
 *
 * <p>A server per name and JVM ({@link #shared()} for most tests, {@link #named} for a test that restarts its
 * server), started on first use on two free ports of its own and in a folder of its own
 * ({@code /var/tmp/sqlqueue-bf-<pid>-<name>}), stopped by {@code stop.sh} (by the pid in its folder, never by
 * process name) when the JVM exits, its folder then deleted. Folders left by a JVM that no longer runs are
 * stopped and deleted the same way at the next start. Where no fixture exists, {@link #unavailable} says
 * why and the tests skip.
 *
 * <p>Where the fixture is looked for: the environment variable {@code SQLQUEUE_BABELFISH} (a folder with
 * {@code start.sh}), else {@code shared/babelfish} in the repository's parent folder or one above it.
 */
final class BabelfishServer {
    private static final String OWNER_FILE = "owner.pid";
    private static final java.util.Map<String, BabelfishServer> INSTANCES = new java.util.HashMap<>();
    private static String failure;

    private final Path fixture;
    private final Path dir;
    private final int tdsPort;
    private final int pgPort;
    private final String url;

    private BabelfishServer(Path fixture, Path dir, int tdsPort, int pgPort, String url) {
        this.fixture = fixture;
        this.dir = dir;
        this.tdsPort = tdsPort;
        this.pgPort = pgPort;
        this.url = url;
    }

    /** The fixture folder, or empty where none exists. */
    static Optional<Path> fixture() {
        String env = System.getenv("SQLQUEUE_BABELFISH");
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env);
            return Files.isExecutable(p.resolve("start.sh")) ? Optional.of(p) : Optional.empty();
        }
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared").resolve("babelfish");
            if (Files.isExecutable(candidate.resolve("start.sh")) && Files.isExecutable(candidate.resolve("stop.sh"))) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Why no Babelfish server can run here, or empty. Starts the shared server on first call. */
    static Optional<String> unavailable() {
        return unavailable("shared");
    }

    /** Why the server {@code name} cannot run here, or empty. Starts it on first call. */
    static synchronized Optional<String> unavailable(String name) {
        if (INSTANCES.containsKey(name)) {
            return Optional.empty();
        }
        if (failure != null) {
            return Optional.of(failure);
        }
        Optional<Path> fixture = fixture();
        if (fixture.isEmpty()) {
            failure = "no Babelfish fixture (shared/babelfish/start.sh beside the repository, or SQLQUEUE_BABELFISH)";
            return Optional.of(failure);
        }
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            failure = "the Babelfish fixture runs on Linux only";
            return Optional.of(failure);
        }
        try {
            INSTANCES.put(name, start(fixture.get(), name));
            return Optional.empty();
        } catch (Exception e) {
            // a fixture that exists but does not start is a failure of the build, not a skip
            throw new IllegalStateException("the Babelfish fixture at " + fixture.get() + " did not start: " + e.getMessage(), e);
        }
    }

    /** The shared server; call {@link #unavailable} first. */
    static BabelfishServer get() {
        return named("shared");
    }

    /** The server {@code name} of this JVM, started on first use; call {@link #unavailable(String)} first. */
    static synchronized BabelfishServer named(String name) {
        if (unavailable(name).isPresent()) {
            throw new IllegalStateException(failure);
        }
        return INSTANCES.get(name);
    }

    private static BabelfishServer start(Path fixture, String name) throws Exception {
        if (INSTANCES.isEmpty()) {
            removeAbandoned(fixture);
        }
        long pid = ProcessHandle.current().pid();
        Path dir = Path.of("/var/tmp/sqlqueue-bf-" + pid + "-" + name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(OWNER_FILE), Long.toString(pid));
        int tds = freePort();
        int pg = freePort();
        while (pg == tds) {
            pg = freePort();
        }
        String url = run(fixture, List.of("start.sh", "--tds-port", Integer.toString(tds), "--pg-port", Integer.toString(pg),
                "--dir", dir.toString()), 300);
        BabelfishServer s = new BabelfishServer(fixture, dir, tds, pg, url);
        Runtime.getRuntime().addShutdownHook(new Thread(s::destroy, "babelfish-stop"));
        return s;
    }

    /** Folders of earlier test JVMs that ended without stopping their server: stop it by its pid file, delete. */
    private static void removeAbandoned(Path fixture) {
        try (Stream<Path> dirs = Files.list(Path.of("/var/tmp"))) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith("sqlqueue-bf-")).toList()) {
                Path owner = d.resolve(OWNER_FILE);
                if (!Files.exists(owner)) {
                    continue;
                }
                long pid = Long.parseLong(Files.readString(owner).trim());
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue; // another test JVM's server, in use
                }
                try {
                    run(fixture, List.of("stop.sh", "--dir", d.toString()), 60);
                } catch (Exception ignored) {
                    // deleted below all the same
                }
                deleteTree(d);
            }
        } catch (IOException | NumberFormatException e) {
            // nothing to clean
        }
    }

    /** Runs a fixture script; returns its last line of standard output. */
    private static String run(Path fixture, List<String> command, int seconds) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.set(0, fixture.resolve(cmd.get(0)).toString());
        Path out = Files.createTempFile("sqlqueue-bf-", ".log");
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + seconds + " s: " + tail(out));
            }
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited with " + p.exitValue() + ": " + tail(out));
            }
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            return lines.isEmpty() ? "" : lines.get(lines.size() - 1).trim();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String tail(Path out) throws IOException {
        List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path d) {
        try (Stream<Path> all = Files.walk(d)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** The JDBC URL {@code start.sh} printed (user, password and database included). */
    String url() {
        return url;
    }

    int tdsPort() {
        return tdsPort;
    }

    /** The server's PostgreSQL log. */
    Path log() {
        return dir.resolve("log").resolve("postgres.log");
    }

    /** Stops the server (fast shutdown by its pid, as {@code stop.sh} does). Returns once it is down. */
    void stop() throws Exception {
        run(fixture, List.of("stop.sh", "--dir", dir.toString()), 120);
    }

    /** Starts the stopped server again on the same ports and data. Returns once a TDS login works. */
    void restart() throws Exception {
        run(fixture, List.of("start.sh", "--tds-port", Integer.toString(tdsPort), "--pg-port", Integer.toString(pgPort),
                "--dir", dir.toString()), 300);
    }

    /** Whether the server process runs, with the end of its log (for failure messages). */
    String state() {
        try {
            Path pidFile = dir.resolve("data").resolve("postmaster.pid");
            String running = Files.exists(pidFile)
                    && ProcessHandle.of(Long.parseLong(Files.readAllLines(pidFile).get(0).trim())).map(ProcessHandle::isAlive)
                    .orElse(false) ? "Babelfish runs" : "Babelfish does not run";
            return running + "; end of its log:\n" + (Files.exists(log()) ? tail(log()) : "(no log)");
        } catch (IOException | RuntimeException e) {
            return "state unknown: " + e;
        }
    }

    private void destroy() {
        try {
            stop();
        } catch (Exception e) {
            System.err.println("babelfish: stop.sh failed: " + e.getMessage());
        }
        deleteTree(dir);
    }
}
