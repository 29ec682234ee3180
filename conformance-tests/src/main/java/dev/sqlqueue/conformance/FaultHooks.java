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
    /** Empty when {@link #killSessions} works, else why not. */
    default Optional<String> killSessionsUnavailable() {
        return Optional.of("no hook to kill a database session");
    }

    /**
     * Kill, from another connection, every database session the backend opened for {@code config}
     * (for example with {@code pg_terminate_backend}, {@code KILL}). Returns how many were killed.
     */
    default int killSessions(QueueConfig config) throws Exception {
        throw new UnsupportedOperationException(killSessionsUnavailable().orElse("kill sessions"));
    }

    /** Empty when {@link #stopServer()} and {@link #startServer()} work, else why not. */
    default Optional<String> restartUnavailable() {
        return Optional.of("no hook to stop and start the database server");
    }

    /** Take the database away (stop it or refuse connections). Returns once it is down. */
    default void stopServer() throws Exception {
        throw new UnsupportedOperationException(restartUnavailable().orElse("stop server"));
    }

    /** Bring the database back. Returns once it accepts connections. */
    default void startServer() throws Exception {
        throw new UnsupportedOperationException(restartUnavailable().orElse("start server"));
    }

    /**
     * For a failure message after {@link #startServer()}: whether the server still runs and the end of its
     * log, or empty when the wiring cannot tell.
     */
    default String serverState() {
        return "";
    }

    /** Empty when {@link #insertRawMessage} works, else why not. */
    default Optional<String> rawInsertUnavailable() {
        return Optional.of("no hook to write raw rows");
    }

    /**
     * Write a message row with raw SQL, bypassing the library, with {@code rawHeaders} stored as-is
     * (it may be malformed). The row must be visible to consumers at once.
     */
    default void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders) throws Exception {
        throw new UnsupportedOperationException(rawInsertUnavailable().orElse("raw insert"));
    }

    /**
     * A new plain JDBC connection to the same database, owned by the caller (used for enqueue in the
     * caller's transaction and for the connection-state case).
     */
    default Connection openConnection(QueueConfig config) throws SQLException {
        return java.sql.DriverManager.getConnection(config.url(), config.user(), config.password());
    }
}
