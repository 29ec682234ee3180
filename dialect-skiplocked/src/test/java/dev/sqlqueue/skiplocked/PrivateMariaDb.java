package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the test's own: {@code mariadb-install-db} into a temporary directory, then
 * {@code mariadbd} with that data directory, a free port and its own socket and pid file, started as a
 * child process of the test JVM ({@code --user=root} when the tests run as root). Database {@code test}
 * is created on it; root has an empty password. {@link #crash()} SIGKILLs that one process by its id;
 * {@link #close()} shuts it down and deletes the directory. The machine's own MariaDB is never touched.
 */
final class PrivateMariaDb implements AutoCloseable {
    private static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");
    private static final Path INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");
    private final Path dir;
    private final Path data;
    private final Path log;
    private final int port;
    private Process server;

    private PrivateMariaDb() throws IOException {
        this.dir = Files.createTempDirectory("sqlqueue-mariadb-");
        this.data = dir.resolve("data");
        this.log = dir.resolve("server.log");
        this.port = LocalServer.freePort();
    }

    /** Why no private server can be started here, or empty. */
    static Optional<String> unavailable() {
        if (!Files.isExecutable(MARIADBD) || !Files.isExecutable(INSTALL_DB)) {
            return Optional.of("no MariaDB server binaries (" + MARIADBD + ", " + INSTALL_DB + ")");
        }
        return Optional.empty();
    }

    static PrivateMariaDb start() throws Exception {
        PrivateMariaDb m = new PrivateMariaDb();
        try {
            List<String> install = new ArrayList<>(List.of(INSTALL_DB.toString(), "--no-defaults", "--datadir=" + m.data,
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (LocalServer.isRoot()) {
                install.add("--user=root");
            }
            LocalServer.run(install, m.dir);
            m.startServer();
            try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + m.port + "/", "root", "");
                 Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS test");
            }
            return m;
        } catch (Exception e) {
            m.close();
            throw e;
        }
    }

    String url() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/test";
    }

    /** Starts the server (again) on the same directory and port; returns once it accepts connections. */
    synchronized void startServer() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(MARIADBD.toString(), "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadbd.sock"),
                "--pid-file=" + dir.resolve("mariadbd.pid"), "--log-error=" + log, "--skip-log-bin",
                "--innodb-buffer-pool-size=32M", "--max-connections=100"));
        if (LocalServer.isRoot()) {
            cmd.add("--user=root");
        }
        server = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile())).start();
        LocalServer.awaitOpen(port, server, log);
    }

    /** SIGKILL of this server's process, by its id; returns once it has exited. */
    synchronized void crash() throws InterruptedException {
        server.destroyForcibly().waitFor();
    }

    @Override
    public synchronized void close() throws Exception {
        try {
            if (server != null && server.isAlive()) {
                server.destroy(); // SIGTERM: a clean shutdown
                if (!server.waitFor(60, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor();
                }
            }
        } finally {
            LocalServer.deleteTree(dir);
        }
    }
}
