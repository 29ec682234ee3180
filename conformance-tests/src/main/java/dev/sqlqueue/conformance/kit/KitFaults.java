package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.FaultHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The fault hooks of a kit run: a backend's {@link KitHooks} extension where it offers a hook, else the
 * kit's generic ones (session kill by URL, restart by shell command), else unavailable with the reason.
 * The raw-row hook cannot be generic (it writes a backend's own table layout): the kit ships it for H2, PostgreSQL
 * and MariaDB ({@link BuiltInKitHooks}); without an extension for another backend C16 is skipped.
 */
final class KitFaults implements FaultHooks {
    private final String backend;
    private final FaultHooks extension;
    private final JdbcKillHooks kill;
    private final CommandRestartHooks restart;

    KitFaults(String backend, FaultHooks extension, JdbcKillHooks kill, CommandRestartHooks restart) {
        this.backend = backend;
        this.extension = extension;
        this.kill = kill;
        this.restart = restart;
    }

    private boolean extensionKills() {
        return extension != null && extension.killSessionsUnavailable().isEmpty();
    }

    @Override
    public Optional<String> killSessionsUnavailable() {
        return extensionKills() ? Optional.empty() : kill.unavailable();
    }

    @Override
    public int killSessions(QueueConfig config) throws Exception {
        return extensionKills() ? extension.killSessions(config) : kill.kill(config);
    }

    @Override
    public Optional<String> restartUnavailable() {
        if (restart != null) {
            return Optional.empty();
        }
        if (extension != null && extension.restartUnavailable().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("restarting the database needs --restart-command and --start-command (shell commands that"
                + " take it down and bring it back)");
    }

    @Override
    public void stopServer() throws Exception {
        if (restart != null) {
            restart.stop();
        } else {
            extension.stopServer();
        }
    }

    @Override
    public void startServer() throws Exception {
        if (restart != null) {
            restart.start();
        } else {
            extension.startServer();
        }
    }

    @Override
    public Optional<String> rawInsertUnavailable() {
        if (extension != null && extension.rawInsertUnavailable().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("the kit has no raw-row hook for backend " + backend
                + " (a KitHooks extension on the class path provides one)");
    }

    @Override
    public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws Exception {
        if (extension == null) {
            throw new UnsupportedOperationException(rawInsertUnavailable().orElse(""));
        }
        extension.insertRawMessage(config, queue, payload, rawHeaders);
    }

    @Override
    public Connection openConnection(QueueConfig config) throws SQLException {
        return DriverManager.getConnection(config.url(), config.user(), config.password());
    }
}
