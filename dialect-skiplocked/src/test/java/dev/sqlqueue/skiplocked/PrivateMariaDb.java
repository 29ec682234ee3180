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

    /**
     * Starts the server (again) on the same directory and port; returns once it runs a statement on an InnoDB
     * table. {@code --innodb=FORCE}: without it a server whose InnoDB failed to start (after a crash, say)
     * still opens its port, and every statement on a queue table then fails; with it that server exits and
     * this method reports its log.
     */
    synchronized void startServer() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(MARIADBD.toString(), "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadbd.sock"),
                "--pid-file=" + dir.resolve("mariadbd.pid"), "--log-error=" + log, "--skip-log-bin",
                "--innodb=FORCE", "--innodb-buffer-pool-size=32M", "--max-connections=100"));
        if (LocalServer.isRoot()) {
            cmd.add("--user=root");
        }
        server = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile())).start();
        LocalServer.awaitOpen(port, server, log);
        awaitInnoDb();
    }

    /** A connection that sees InnoDB available, within 60 s of an open port. */
    private void awaitInnoDb() throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "");
                 Statement st = c.createStatement();
                 java.sql.ResultSet rs = st.executeQuery("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'InnoDB'")) {
                String support = rs.next() ? rs.getString(1) : "absent";
                if (support.equals("YES") || support.equals("DEFAULT")) {
                    return;
                }
                throw new IllegalStateException("the private server on " + port + " runs without InnoDB (" + support
                        + "): " + LocalServer.tail(log));
            } catch (java.sql.SQLException e) {
                if (!server.isAlive() || System.nanoTime() > until) {
                    throw new IllegalStateException("the private server on " + port + " refused a connection: "
                            + e.getMessage() + "; log: " + LocalServer.tail(log), e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Whether the server runs, and the end of its log: for a failure message. */
    synchronized String state() {
        return (server != null && server.isAlive() ? "running" : "not running") + ", log: " + LocalServer.tail(log);
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
