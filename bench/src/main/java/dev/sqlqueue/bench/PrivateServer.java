package dev.sqlqueue.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server process of the benchmark's own, in a temporary directory on a free port of 127.0.0.1: a PostgreSQL
 * cluster from the installed binaries ({@link #postgres}) or Debian's pgbouncer in transaction pooling mode in
 * front of one ({@link #pgbouncer}). Both run as the {@code postgres} OS user through {@code setpriv} when the
 * benchmark runs as root (both refuse root). {@link #close()} stops the one process started, by its process id,
 * and deletes the directory; no other server of the machine is touched.
 */
final class PrivateServer implements AutoCloseable {
    private final Path dir;
    private final int port;
    private final Process process;
    private final String signal;

    private PrivateServer(Path dir, int port, Process process, String signal) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.signal = signal;
    }

    int port() {
        return port;
    }

    /** A fresh PostgreSQL cluster (trust, user postgres, database postgres), durable commits as initdb sets them. */
    static PrivateServer postgres(int maxConnections) throws Exception {
        Path bin;
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            bin = versions.sorted().reduce((a, b) -> b).map(v -> v.resolve("bin"))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL under /usr/lib/postgresql"));
        }
        Path dir = ownedTempDir("sqlqueue-bench-pg-");
        Path data = dir.resolve("data");
        run(asPostgres(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "--auth=trust",
                "-E", "UTF8")), dir);
        int port = freePort();
        Process p = start(asPostgres(List.of(bin.resolve("postgres").toString(), "-D", data.toString(),
                "-p", Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=" + maxConnections)), dir);
        PrivateServer s = new PrivateServer(dir, port, p, "INT");
        s.awaitOpen();
        return s;
    }

    /**
     * A fresh MariaDB server ({@code mariadb-install-db}, then {@code mariadbd} with stock settings but the data
     * directory, port, socket and pid file; {@code --user=root} when run as root), database {@code test}, root
     * without a password. Stopped with SIGTERM (a clean shutdown).
     */
    static PrivateServer mariadb() throws Exception {
        Path dir = Files.createTempDirectory("sqlqueue-bench-mariadb-");
        Path data = dir.resolve("data");
        List<String> install = new ArrayList<>(List.of("/usr/bin/mariadb-install-db", "--no-defaults", "--datadir=" + data,
                "--auth-root-authentication-method=normal", "--skip-test-db"));
        if (isRoot()) {
            install.add("--user=root");
        }
        run(install, dir);
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data,
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("mariadbd.sock"),
                "--pid-file=" + dir.resolve("mariadbd.pid"), "--skip-log-bin", "--max-connections=200"));
        if (isRoot()) {
            cmd.add("--user=root");
        }
        Process p = start(cmd, dir);
        PrivateServer s = new PrivateServer(dir, port, p, "TERM");
        s.awaitOpen();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "");
                 java.sql.Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS test");
                return s;
            } catch (java.sql.SQLException e) {
                if (System.nanoTime() > until) {
                    s.close();
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }

    /** pgbouncer, {@code pool_mode = transaction}, {@code default_pool_size = poolSize}, in front of {@code host:port/database}. */
    static PrivateServer pgbouncer(String host, int serverPort, String database, String user, int poolSize)
            throws Exception {
        Path dir = ownedTempDir("sqlqueue-bench-pgbouncer-");
        int port = freePort();
        Path users = dir.resolve("users.txt");
        Files.writeString(users, "\"" + user + "\" \"\"\n");
        Path ini = dir.resolve("pgbouncer.ini");
        Files.writeString(ini, String.join("\n",
                "[databases]",
                database + " = host=" + host + " port=" + serverPort + " dbname=" + database,
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + users,
                "pool_mode = transaction",
                "default_pool_size = " + poolSize,
                "max_client_conn = 1000",
                "logfile = " + dir.resolve("pgbouncer.log"),
                ""));
        chownPostgres(users);
        chownPostgres(ini);
        Process p = start(asPostgres(List.of("/usr/sbin/pgbouncer", ini.toString())), dir);
        PrivateServer s = new PrivateServer(dir, port, p, "INT");
        s.awaitOpen();
        return s;
    }

    /** The lines of pgbouncer's log that say WARNING or ERROR. */
    List<String> problems() throws IOException {
        Path log = dir.resolve("pgbouncer.log");
        if (!Files.exists(log)) {
            return List.of();
        }
        return Files.readAllLines(log).stream().filter(l -> l.contains(" WARNING ") || l.contains(" ERROR ")).toList();
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static List<String> asPostgres(List<String> command) {
        List<String> c = new ArrayList<>();
        if (isRoot()) {
            c.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"));
        }
        c.addAll(command);
        return c;
    }

    private static Path ownedTempDir(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        chownPostgres(dir);
        return dir;
    }

    private static void chownPostgres(Path p) throws IOException {
        if (isRoot()) {
            UserPrincipalLookupService names = p.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(p, names.lookupPrincipalByName("postgres"));
        }
    }

    private static void run(List<String> command, Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(command + " failed: " + out);
        }
    }

    private static Process start(List<String> command, Path dir) throws IOException {
        // setpriv execs, so the child process is the server itself
        return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile())).start();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    private void awaitOpen() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > until) {
                    String out = Files.exists(dir.resolve("server.out")) ? Files.readString(dir.resolve("server.out")) : "";
                    close();
                    throw new IllegalStateException("the private server did not open port " + port + ": " + out);
                }
                Thread.sleep(100);
            }
        }
    }

    @Override
    public void close() throws Exception {
        try {
            if (process.isAlive()) {
                new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid())).start().waitFor();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // a temporary directory left behind is harmless
            }
        }
    }
}
