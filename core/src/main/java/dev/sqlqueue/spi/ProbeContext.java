package dev.sqlqueue.spi;

import dev.sqlqueue.QueueConfig;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What a {@link Probe} gets from the runner: new connections to the server under test, the prefix every
 * object it creates must start with, and the configuration the user gave (URL, user, backend options).
 * Thread-safe: a probe may open connections from several threads (for example 16 concurrent consumers).
 */
public interface ProbeContext {
    /**
     * A new connection in auto-commit mode, as the driver hands it out; the caller closes it.
     *
     * @return the connection
     * @throws SQLException when the server cannot be reached or refuses the login
     */
    Connection connect() throws SQLException;

    /**
     * The prefix of every object the probe creates, {@code [a-z][a-z0-9_]*}, at most 24 characters
     * (for example {@code sqlqprobe_4f2a_}); unique per run, so two runs on one server do not collide.
     *
     * @return the prefix
     */
    String prefix();

    /**
     * The configuration the run was started with (URL, user, backend options); never null.
     *
     * @return the config
     */
    QueueConfig config();
}
