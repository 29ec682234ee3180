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
 *
 * <p>A connection that broke silently (a network partition, a dropped NAT or load-balancer entry: no
 * reset ever arrives) would look like a quiet channel for ever, and wake-ups would stop until a restart:
 * waiting for notifications ({@code PGConnection.getNotifications(ms)}) ends at its own time-out whether
 * or not the server is there. So after {@link #CHECK_EVERY_MS} without a notification the thread runs
 * {@code SELECT 1}, under a network timeout of {@link #CHECK_TIMEOUT_MS}; no answer in time closes the
 * connection and LISTENs again on a new one.
 */
final class PostgresWakeups implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresWakeups.class);
    /** Milliseconds without a notification after which the LISTEN connection is checked. */
    static final long CHECK_EVERY_MS = 30_000;
    /** Milliseconds the check, and a new connection's log-in, may wait for the server. */
    static final int CHECK_TIMEOUT_MS = 10_000;

    private final QueueConfig config;
    private final DataSource ds;
    private final SkipLockedStatements sql;
    private final Consumer<QueueName> listener;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Connection connection;

    private final long checkEveryNanos;

    PostgresWakeups(QueueConfig config, DataSource ds, SkipLockedStatements sql, Consumer<QueueName> listener) {
        this(config, ds, sql, listener, CHECK_EVERY_MS);
    }

    /** @param checkEveryMs milliseconds without a notification before the connection is checked (tests shorten it) */
    PostgresWakeups(QueueConfig config, DataSource ds, SkipLockedStatements sql, Consumer<QueueName> listener, long checkEveryMs) {
        this.checkEveryNanos = checkEveryMs * 1_000_000L;
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
                ? DriverManager.getConnection(config.url(), loginProperties())
                : ds.getConnection();
        c.setAutoCommit(true);
        try {
            bounded(c, sql.listen);
        } catch (SQLException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // broken already
            }
            throw e;
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
                long heard = System.nanoTime();
                while (running) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got == null || got.length == 0) {
                        if (System.nanoTime() - heard > checkEveryNanos) {
                            checkAlive(connection);
                            heard = System.nanoTime();
                        }
                        continue;
                    }
                    heard = System.nanoTime();
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

    /** User, password and a log-in bound (pgJDBC {@code loginTimeout}, seconds); a URL's own parameters win. */
    private java.util.Properties loginProperties() {
        java.util.Properties p = new java.util.Properties();
        if (config.user() != null) {
            p.setProperty("user", config.user());
        }
        if (config.password() != null) {
            p.setProperty("password", config.password());
        }
        p.setProperty("loginTimeout", Integer.toString(CHECK_TIMEOUT_MS / 1000));
        return p;
    }

    /** One round trip under a network timeout: a silent server fails it (see the class comment). */
    private static void checkAlive(Connection c) throws SQLException {
        bounded(c, "SELECT 1");
    }

    /**
     * {@code statement} under a network timeout of {@link #CHECK_TIMEOUT_MS}, then none again: pgJDBC 42.7's
     * {@code getNotifications(ms)} on a connection left with a network timeout of its own blocked for good (a
     * caller's HikariCP connection, seen in {@code LeaseAcksOnServerTest}), so the wait for notifications runs
     * with none, as it always did.
     */
    private static void bounded(Connection c, String statement) throws SQLException {
        c.setNetworkTimeout(Runnable::run, CHECK_TIMEOUT_MS);
        try (Statement st = c.createStatement()) {
            st.execute(statement);
        }
        c.setNetworkTimeout(Runnable::run, 0);
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
