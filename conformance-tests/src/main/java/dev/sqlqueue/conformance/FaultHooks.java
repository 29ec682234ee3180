package dev.sqlqueue.conformance;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * What a backend's test wiring can do to provoke faults. Each hook says whether it is available and,
 * when not, why: the suite then reports the case as skipped with that reason, never as passed.
 */
public interface FaultHooks {
    /**
     * Empty when {@link #killSessions} works, else why not.
     *
     * @return empty when the hook works, else why not (the default: no hook)
     */
    default Optional<String> killSessionsUnavailable() {
        return Optional.of("no hook to kill a database session");
    }

    /**
     * Kill, from another connection, every database session the backend opened for {@code config}
     * (for example with {@code pg_terminate_backend}, {@code KILL}). Returns how many were killed.
     *
     * @param config the config the backend's sessions were opened with (its URL, user and table prefix)
     * @return how many sessions were killed
     * @throws UnsupportedOperationException when {@link #killSessionsUnavailable()} is not empty (the default)
     * @throws Exception from the database when the kill fails
     */
    default int killSessions(QueueConfig config) throws Exception {
        throw new UnsupportedOperationException(killSessionsUnavailable().orElse("kill sessions"));
    }

    /**
     * Empty when {@link #stopServer()} and {@link #startServer()} work, else why not.
     *
     * @return empty when the hooks work, else why not (the default: no hook)
     */
    default Optional<String> restartUnavailable() {
        return Optional.of("no hook to stop and start the database server");
    }

    /**
     * Take the database away (stop it or refuse connections). Returns once it is down.
     *
     * @throws UnsupportedOperationException when {@link #restartUnavailable()} is not empty (the default)
     * @throws Exception when the server cannot be stopped, or is not down in time
     */
    default void stopServer() throws Exception {
        throw new UnsupportedOperationException(restartUnavailable().orElse("stop server"));
    }

    /**
     * Bring the database back. Returns once it accepts connections.
     *
     * @throws UnsupportedOperationException when {@link #restartUnavailable()} is not empty (the default)
     * @throws Exception when the server cannot be started, or does not accept connections in time
     */
    default void startServer() throws Exception {
        throw new UnsupportedOperationException(restartUnavailable().orElse("start server"));
    }

    /**
     * For a failure message after {@link #startServer()}: whether the server still runs and the end of its
     * log, or empty when the wiring cannot tell.
     *
     * @return a few lines on the server's state, or empty (the default)
     */
    default String serverState() {
        return "";
    }

    /**
     * Empty when {@link #insertRawMessage} works, else why not.
     *
     * @return empty when the hook works, else why not (the default: no hook)
     */
    default Optional<String> rawInsertUnavailable() {
        return Optional.of("no hook to write raw rows");
    }

    /**
     * Write a message row with raw SQL, bypassing the library, with {@code rawHeaders} stored as-is
     * (it may be malformed). The row must be visible to consumers at once.
     *
     * @param config the config the case's backend was opened with (its table prefix names the tables)
     * @param queue the queue to insert into
     * @param payload the payload bytes, stored as they are
     * @param rawHeaders the headers column's text, stored as it is
     * @throws UnsupportedOperationException when {@link #rawInsertUnavailable()} is not empty (the default)
     * @throws Exception from the database when the insert fails
     */
    default void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws Exception {
        throw new UnsupportedOperationException(rawInsertUnavailable().orElse("raw insert"));
    }

    /**
     * A new plain JDBC connection to the same database, owned by the caller (used for enqueue in the
     * caller's transaction and for the connection-state case).
     *
     * @param config the config whose URL, user and password to connect with
     * @return a new connection, which the caller closes
     * @throws SQLException when the connection cannot be opened
     */
    default Connection openConnection(QueueConfig config) throws SQLException {
        return java.sql.DriverManager.getConnection(config.url(), config.user(), config.password());
    }
}
