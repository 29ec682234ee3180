package dev.sqlqueue.cli;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Connection options shared by every command (a picocli mixin): {@code --url}, {@code --user},
 * {@code --password} (or the environment variables {@code SQLQUEUE_URL}, {@code SQLQUEUE_USER},
 * {@code SQLQUEUE_PASSWORD}), {@code --backend}, {@code --table-prefix} and the backend options
 * ({@code --option KEY=VALUE}, repeatable; see {@link QueueConfig#options()}).
 *
 * <p>Without a URL the command uses an H2 file database in {@code ./.sqlqueue/} of the current
 * directory, opened with {@code AUTO_SERVER=TRUE} so several {@code sqlqueue} processes share it (their server
 * listens on loopback only, {@code Main.h2ServerOnLoopback}). The folder and its files are owner-only; a folder
 * that exists with wider modes gets a one-line warning on standard error ({@code DefaultFolder}).
 */
public final class ConnectionOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    private boolean folderChecked;
    @Option(names = "--url", paramLabel = "JDBC_URL", defaultValue = "${env:SQLQUEUE_URL}",
            description = "JDBC URL of the database (env SQLQUEUE_URL). Default: an H2 file database in "
                    + "./.sqlqueue/ of the current directory.")
    String url;

    @Option(names = "--user", paramLabel = "USER", defaultValue = "${env:SQLQUEUE_USER}",
            description = "Database user (env SQLQUEUE_USER).")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", defaultValue = "${env:SQLQUEUE_PASSWORD}",
            description = "Database password (env SQLQUEUE_PASSWORD; prefer the variable, a command line is visible to other users).")
    String password;

    @Option(names = "--backend", paramLabel = "NAME",
            description = "Backend provider (see 'sqlqueue backends'); default: chosen by the URL.")
    String backend;

    @Option(names = "--table-prefix", paramLabel = "PREFIX",
            description = "Prefix of every table sqlqueue creates: lowercase ASCII letters, digits and '_', starting with a letter, up to 24 characters; default sqlq_.")
    String tablePrefix;

    @Option(names = "--option", paramLabel = "KEY=VALUE",
            description = "A backend option (repeatable), as on the backend's page, e.g. postgresql.transaction-pooler=true "
                    + "behind pgbouncer in transaction mode.")
    java.util.Map<String, String> options = new java.util.LinkedHashMap<>();

    /**
     * The default database.
     *
     * @return {@code jdbc:h2:file:<cwd>/.sqlqueue/sqlqueue;AUTO_SERVER=TRUE;WRITE_DELAY=0;TRACE_LEVEL_FILE=0}
     */
    public static String defaultUrl() {
        Path file = DefaultFolder.path().resolve("sqlqueue");
        // WRITE_DELAY=0: H2 writes every commit to the file at once, so a process killed with SIGKILL
        // loses no committed enqueue, claim or ack (H2's default delays writes by up to 500 ms).
        // TRACE_LEVEL_FILE=0: no sqlqueue.trace.db; when the database cannot be opened, H2 would otherwise
        // also fail to write its trace file and print that failure's stack trace on stderr itself
        return "jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE;WRITE_DELAY=0;TRACE_LEVEL_FILE=0";
    }

    /** @return whether a non-blank URL was given ({@code --url} or {@code SQLQUEUE_URL}) */
    public boolean hasUrl() {
        return url != null && !url.isBlank();
    }

    /**
     * The URL given, or {@link #defaultUrl()}; the first call for the default warns on the command's standard
     * error when its folder exists with wider modes than {@code rwx------}.
     *
     * @return the JDBC URL to connect to
     */
    public String effectiveUrl() {
        if (hasUrl()) {
            return url;
        }
        if (!folderChecked) {
            folderChecked = true;
            DefaultFolder.warning(DefaultFolder.path()).ifPresent(line -> {
                PrintWriter err = command != null ? command.commandLine().getErr() : new PrintWriter(System.err, true);
                err.println(line);
            });
        }
        return defaultUrl();
    }

    /**
     * The config these options describe, for {@code jdbcUrl}, with {@code history} on or off.
     *
     * @param jdbcUrl the JDBC URL to connect to (usually {@link #effectiveUrl()})
     * @param history whether processed messages are kept in the history table
     * @return the config, with the library's default pool size
     * @throws dev.sqlqueue.InvalidInputException for a bad table prefix (rule {@code table-prefix.pattern})
     */
    public QueueConfig config(String jdbcUrl, boolean history) {
        QueueConfig.Builder b = QueueConfig.builder().url(jdbcUrl).user(user).password(password)
                .backend(backend).history(history);
        options.forEach(b::option);
        if (tablePrefix != null) {
            b.tablePrefix(tablePrefix);
        }
        return b.build();
    }

    /**
     * The config for {@code url} with a connection pool large enough for {@code workers} consumer
     * threads: one connection each (a transactional claim holds one while its handler runs) plus
     * {@code extra} for the lease renewer, stats and producers; at least the default of 10, at most 1000.
     *
     * @param jdbcUrl the JDBC URL to connect to (usually {@link #effectiveUrl()})
     * @param history whether processed messages are kept in the history table
     * @param workers the number of consumer threads that will each hold a connection
     * @param extra connections on top of the workers' for the lease renewer, stats and producers
     * @return the config, with a pool of {@code workers + extra} connections clamped to 10..1000
     * @throws dev.sqlqueue.InvalidInputException for a bad table prefix (rule {@code table-prefix.pattern})
     */
    public QueueConfig config(String jdbcUrl, boolean history, int workers, int extra) {
        return config(jdbcUrl, history).toBuilder().poolSize(Math.min(1000, Math.max(10, workers + extra))).build();
    }

    /**
     * The config for {@link #effectiveUrl()}.
     *
     * @param history whether processed messages are kept in the history table
     * @return the config, with the library's default pool size
     * @throws dev.sqlqueue.InvalidInputException for a bad table prefix (rule {@code table-prefix.pattern})
     */
    public QueueConfig config(boolean history) {
        return config(effectiveUrl(), history);
    }

    /**
     * Open the database (creating or upgrading the schema).
     *
     * @param history whether processed messages are kept in the history table
     * @return the open queue; the caller closes it
     * @throws dev.sqlqueue.InvalidInputException for an unknown backend or a bad prefix
     * @throws dev.sqlqueue.TransientBackendException if the database cannot be reached
     */
    public SqlQueue open(boolean history) {
        return SqlQueue.open(config(history));
    }
}
