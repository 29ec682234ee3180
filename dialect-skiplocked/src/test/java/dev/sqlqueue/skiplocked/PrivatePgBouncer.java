package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A pgbouncer of the test's own (Debian's package, {@code /usr/sbin/pgbouncer}) in front of a PostgreSQL
 * server: an ini file in a temporary directory, {@code pool_mode = transaction}, {@code auth_type = trust},
 * a free port on 127.0.0.1, started as a child process of the test JVM (through {@code setpriv} as the
 * {@code postgres} OS user when the tests run as root, because pgbouncer refuses to run as root). {@link
 * #close()} stops that one process by its id (SIGINT) and deletes the directory; the Debian service is never
 * used.
 */
final class PrivatePgBouncer implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

    private final Path dir;
    private final Path log;
    private final int port;
    private final String database;
    private Process process;

    private PrivatePgBouncer(String database) throws IOException {
        this.dir = Files.createTempDirectory("sqlqueue-pgbouncer-");
        this.log = dir.resolve("pgbouncer.log");
        this.port = LocalServer.freePort();
        this.database = database;
    }

    /** Why no private pgbouncer can be started here, or empty. */
    static Optional<String> unavailable() {
        if (!Files.isExecutable(BINARY)) {
            return Optional.of("no pgbouncer binary at " + BINARY + " (Debian's package: apt-get install -y pgbouncer;"
                    + " .ci/ensure-pgbouncer installs it when the build runs as root)");
        }
        if (LocalServer.isRoot() && !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
            return Optional.of("the tests run as root and setpriv is missing to run pgbouncer as the postgres user");
        }
        return Optional.empty();
    }

    /**
     * Starts pgbouncer in transaction pooling mode in front of {@code host:port/database} (user
     * {@code user}, trusted), {@code poolSize} server connections at most; returns once it accepts
     * connections.
     */
    static PrivatePgBouncer start(String host, int serverPort, String database, String user, int poolSize)
            throws Exception {
        PrivatePgBouncer b = new PrivatePgBouncer(database);
        try {
            Path users = b.dir.resolve("users.txt");
            Files.writeString(users, "\"" + user + "\" \"\"\n");
            Path ini = b.dir.resolve("pgbouncer.ini");
            Files.writeString(ini, String.join("\n",
                    "[databases]",
                    database + " = host=" + host + " port=" + serverPort + " dbname=" + database,
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + b.port,
                    "unix_socket_dir =",
                    "auth_type = trust",
                    "auth_file = " + users,
                    "pool_mode = transaction",
                    "default_pool_size = " + poolSize,
                    "max_client_conn = 1000",
                    "logfile = " + b.log,
                    ""));
            if (LocalServer.isRoot()) {
                UserPrincipalLookupService names = b.dir.getFileSystem().getUserPrincipalLookupService();
                for (Path p : List.of(b.dir, users, ini)) {
                    Files.setOwner(p, names.lookupPrincipalByName("postgres"));
                }
            }
            List<String> command = new ArrayList<>();
            if (LocalServer.isRoot()) {
                command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"));
            }
            command.addAll(List.of(BINARY.toString(), ini.toString()));
            // setpriv execs, so the child process is pgbouncer itself
            b.process = new ProcessBuilder(command).directory(b.dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(b.dir.resolve("stdout.log").toFile())).start();
            LocalServer.awaitOpen(b.port, b.process, b.log);
            return b;
        } catch (Exception e) {
            b.close();
            throw e;
        }
    }

    /** The JDBC URL of the database through this pgbouncer, without driver options. */
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** The last 2,000 characters of pgbouncer's log. */
    String logTail() {
        return LocalServer.tail(log);
    }

    /** pgbouncer's whole log. */
    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public synchronized void close() throws Exception {
        try {
            if (process != null && process.isAlive()) {
                LocalServer.signal(process, "INT"); // safe shutdown: waits for clients' transactions
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        } finally {
            LocalServer.deleteTree(dir);
        }
    }
}
