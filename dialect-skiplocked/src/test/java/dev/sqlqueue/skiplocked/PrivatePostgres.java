package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of the test's own: {@code initdb} on a temporary directory, {@code postgres} on a
 * free port with its socket in that directory, started as a child process of the test JVM (through
 * {@code setpriv} as the {@code postgres} OS user when the tests run as root, because PostgreSQL refuses
 * to run as root). {@link #crash()} is an immediate shutdown (SIGQUIT to that one process: no checkpoint,
 * WAL recovery at the next start); {@link #close()} stops it and deletes the directory. The machine's
 * own PostgreSQL is never touched.
 */
final class PrivatePostgres implements AutoCloseable {
    private final Path bin;
    private final Path dir;
    private final Path data;
    private final Path log;
    private final int port;
    private Process postmaster;

    private PrivatePostgres(Path bin) throws IOException {
        this.bin = bin;
        this.dir = Files.createTempDirectory("sqlqueue-pg-");
        this.data = dir.resolve("data");
        this.log = dir.resolve("server.log");
        this.port = LocalServer.freePort();
    }

    private static Path binDir() {
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.sorted().reduce((a, b) -> b).map(v -> v.resolve("bin")).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** Why no private server can be started here, or empty. */
    static Optional<String> unavailable() {
        Path bin = binDir();
        if (bin == null || !Files.isExecutable(bin.resolve("initdb")) || !Files.isExecutable(bin.resolve("postgres"))) {
            return Optional.of("no PostgreSQL server binaries (initdb, postgres) under /usr/lib/postgresql/<version>/bin");
        }
        if (LocalServer.isRoot() && !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            return Optional.of("the tests run as root and setpriv is missing to run PostgreSQL as the postgres user");
        }
        return Optional.empty();
    }

    /** Creates the cluster and starts the server. */
    static PrivatePostgres start() throws Exception {
        PrivatePostgres pg = new PrivatePostgres(binDir());
        try {
            if (LocalServer.isRoot()) {
                UserPrincipalLookupService users = pg.dir.getFileSystem().getUserPrincipalLookupService();
                Files.setOwner(pg.dir, users.lookupPrincipalByName("postgres"));
            }
            pg.run(List.of(pg.bin.resolve("initdb").toString(), "-D", pg.data.toString(), "-U", "postgres",
                    "--auth=trust", "-E", "UTF8", "--no-sync"));
            pg.startServer();
            return pg;
        } catch (Exception e) {
            pg.close();
            throw e;
        }
    }

    private List<String> asPostgres(List<String> command) {
        List<String> c = new ArrayList<>();
        if (LocalServer.isRoot()) {
            c.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"));
        }
        c.addAll(command);
        return c;
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        LocalServer.run(asPostgres(command), dir);
    }

    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /**
     * Starts the server (again) on the same directory and port; returns once it takes connections. An open
     * port is not enough: after a crash PostgreSQL listens before its WAL recovery ends and refuses
     * connections meanwhile with SQLSTATE 57P03 ("the database system is starting up").
     */
    synchronized void startServer() throws IOException, InterruptedException {
        // setpriv execs, so the child process is the postmaster itself
        postmaster = new ProcessBuilder(asPostgres(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                "-p", Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "shared_buffers=16MB", "-c", "max_connections=60")))
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        LocalServer.awaitOpen(port, postmaster, log);
        awaitConnections();
    }

    private void awaitConnections() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            try (Connection c = DriverManager.getConnection(url(), "postgres", "")) {
                return;
            } catch (SQLException e) {
                if (!"57P03".equals(e.getSQLState()) || !postmaster.isAlive()) {
                    throw new IllegalStateException("the private server on " + port + " refused a connection: "
                            + e.getMessage() + "; log: " + LocalServer.tail(log), e);
                }
                if (System.nanoTime() > until) {
                    throw new IllegalStateException("the private server on " + port + " was still starting up after 120 s: "
                            + LocalServer.tail(log), e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Whether the postmaster runs, and the end of its log: for a failure message. */
    synchronized String state() {
        return (postmaster != null && postmaster.isAlive() ? "running" : "not running") + ", log: " + LocalServer.tail(log);
    }

    /** Immediate shutdown of this server's postmaster, by its process id; returns once it has exited. */
    synchronized void crash() throws IOException, InterruptedException {
        LocalServer.signal(postmaster, "QUIT");
        if (!postmaster.waitFor(60, TimeUnit.SECONDS)) {
            postmaster.destroyForcibly().waitFor();
        }
    }

    @Override
    public synchronized void close() throws Exception {
        try {
            if (postmaster != null && postmaster.isAlive()) {
                LocalServer.signal(postmaster, "INT"); // fast shutdown
                if (!postmaster.waitFor(60, TimeUnit.SECONDS)) {
                    postmaster.destroyForcibly().waitFor();
                }
            }
        } finally {
            LocalServer.deleteTree(dir);
        }
    }
}
