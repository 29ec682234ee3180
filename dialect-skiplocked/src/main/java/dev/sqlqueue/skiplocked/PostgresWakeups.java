package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL LISTEN/NOTIFY: one daemon thread holds a connection that LISTENs on the prefix's
 * channel; every enqueue sends {@code pg_notify(channel, queue)} in its transaction, delivered at
 * commit (PostgreSQL manual, NOTIFY). A notification wakes this JVM's waiting consumers of that
 * queue at once, so idle consumers can poll slowly. Reconnects with back-off when the connection
 * breaks; a missed notification only delays a consumer until its next poll.
 */
final class PostgresWakeups implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresWakeups.class);

    private final QueueConfig config;
    private final DataSource ds;
    private final SkipLockedStatements sql;
    private final Consumer<QueueName> listener;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Connection connection;

    PostgresWakeups(QueueConfig config, DataSource ds, SkipLockedStatements sql, Consumer<QueueName> listener) {
        this.config = config;
        this.ds = ds;
        this.sql = sql;
        this.listener = listener;
        this.thread = new Thread(this::run, "sqlqueue-pg-listen-" + config.tablePrefix());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private Connection open() throws SQLException {
        // a dedicated connection when we have the URL, so the pool keeps all its connections
        Connection c = config.url() != null
                ? DriverManager.getConnection(config.url(), config.user(), config.password())
                : ds.getConnection();
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            st.execute(sql.listen);
        }
        return c;
    }

    private void run() {
        long backoff = 100;
        while (running) {
            try {
                connection = open();
                backoff = 100;
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got == null) {
                        continue;
                    }
                    for (PGNotification n : got) {
                        try {
                            listener.accept(QueueName.of(n.getParameter()));
                        } catch (InvalidInputException ignored) {
                            // a notification we did not send
                        }
                    }
                }
            } catch (SQLException e) {
                if (!running) {
                    break;
                }
                LOG.debug("LISTEN connection failed ({}); reconnecting in {} ms", e.getMessage(), backoff);
                closeQuietly();
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    break;
                }
                backoff = Math.min(backoff * 2, 5_000);
            }
        }
        closeQuietly();
    }

    private void closeQuietly() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already gone
            }
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        closeQuietly();
    }
}
