package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.FaultHooks;
import dev.sqlqueue.conformance.KnownGaps;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The {@code sqlserver} backend on the test JVM's own Babelfish server ({@link BabelfishServer}), with one
 * ordering and layout. Sessions are tagged with an application name per prefix, so that {@link #killSessions}
 * kills only the case's own ({@code KILL} of the {@code sys.dm_exec_sessions} rows with that program name, as
 * on SQL Server); {@link #stopServer}/{@link #startServer} stop the whole server by its pid and start it again
 * on the same ports.
 */
final class BabelfishTarget implements ConformanceTarget, FaultHooks {
    private final String ordering;
    private final String layout;
    /** The {@link BabelfishServer} by name; only a server of its own may be restarted (C17). */
    private final String server;
    private final boolean restarts;

    /** On the shared server; C17 may not restart it (another target's suite does). */
    BabelfishTarget(String ordering, String layout) {
        this(ordering, layout, "shared", false);
    }

    /** On the server {@code server}; {@code restarts}: C17 may stop and start it. */
    BabelfishTarget(String ordering, String layout, String server, boolean restarts) {
        this.ordering = ordering;
        this.layout = layout;
        this.server = server;
        this.restarts = restarts;
    }

    private BabelfishServer server() {
        return BabelfishServer.named(server);
    }

    @Override
    public String name() {
        return "sqlserver on Babelfish (" + ordering + ", " + layout + ")";
    }

    @Override
    public Optional<String> unavailableReason() {
        return BabelfishServer.unavailable(server);
    }

    static String applicationName(String prefix) {
        return "sqlqueue-test-" + prefix;
    }

    @Override
    public QueueConfig config(String uniquePrefix) {
        return QueueConfig.builder()
                .url(server().url() + ";applicationName=" + applicationName(uniquePrefix))
                .tablePrefix(uniquePrefix).poolSize(12)
                .option("ordering", ordering).option("layout", layout).build();
    }

    /** The transactional cases that need READPAST, which Babelfish ignores ({@link KnownGaps#BABELFISH_TRANSACTIONAL}). */
    @Override
    public Optional<String> knownGap(String caseId, ClaimMode mode, dev.sqlqueue.Capabilities capabilities) {
        return KnownGaps.babelfish(caseId, mode, capabilities);
    }

    @Override
    public FaultHooks faults() {
        return this;
    }

    @Override
    public Optional<String> killSessionsUnavailable() {
        return Optional.empty();
    }

    @Override
    public int killSessions(QueueConfig config) throws SQLException {
        String app = config.url().substring(config.url().indexOf(";applicationName=") + ";applicationName=".length());
        try (Connection c = DriverManager.getConnection(server().url())) {
            return SqlServerTestHooks.killSessions(c, app);
        }
    }

    @Override
    public Optional<String> restartUnavailable() {
        return restarts ? Optional.empty()
                : Optional.of("C17 stops and starts the Babelfish server in BabelfishConformanceTest Lease and Transactional");
    }

    @Override
    public void stopServer() throws Exception {
        server().stop();
    }

    @Override
    public void startServer() throws Exception {
        server().restart();
    }

    @Override
    public String serverState() {
        return server().state();
    }

    @Override
    public Optional<String> rawInsertUnavailable() {
        return Optional.empty();
    }

    /** Writes the row with the dialect's own enqueue statement text, headers bound as given. */
    @Override
    public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws SQLException {
        try (Connection c = openConnection(config)) {
            SqlServerTestHooks.insertRawMessage(c, config.tablePrefix(), queue, payload, rawHeaders);
        }
    }

    /** Runs the dialect's own {@code dropSchema} statement for the prefix. */
    @Override
    public void cleanUp(String uniquePrefix) {
        if (BabelfishServer.unavailable(server).isPresent()) {
            return;
        }
        try (Connection c = DriverManager.getConnection(server().url())) {
            SqlServerTestHooks.dropSchema(c, uniquePrefix);
        } catch (SQLException e) {
            throw new IllegalStateException("cleaning up prefix " + uniquePrefix, e);
        }
    }
}
