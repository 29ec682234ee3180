package dev.sqlqueue.skiplocked;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL, option {@code postgresql.vacuum-every} ({@link PostgresOptions#vacuumEvery()}): a daemon thread
 * that runs {@code VACUUM (SKIP_LOCKED) "<prefix>message"} at that interval on a connection of the backend's
 * pool, in auto-commit ({@code VACUUM} cannot run inside a transaction block, PostgreSQL manual, VACUUM).
 * {@code SKIP_LOCKED} (PostgreSQL 12+) makes a run give way when another process's vacuum of the table is
 * running, so several processes with the option do not queue up behind each other. A failed run is logged
 * (a warning, once per kind of failure) and retried at the next interval; a run that was refused for want of
 * ownership (the server's warning "only table or database owner can vacuum it") is logged the same way.
 * Thread-safe; {@link #close()} stops it and waits for a running {@code VACUUM} no longer than 10 s.
 */
final class PostgresVacuum implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresVacuum.class);

    private final DataSource ds;
    private final String statement;
    private final ScheduledExecutorService timer;
    private final AtomicBoolean warned = new AtomicBoolean();

    PostgresVacuum(DataSource ds, String prefix, Duration every) {
        this.ds = ds;
        // the prefix is validated by QueueConfig ([a-z][a-z0-9_]{0,23}) and quoted
        this.statement = "VACUUM (SKIP_LOCKED) \"" + prefix + "message\"";
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sqlqueue-pg-vacuum-" + prefix);
            t.setDaemon(true);
            return t;
        });
        long ms = every.toMillis();
        timer.scheduleWithFixedDelay(this::runOnce, ms, ms, TimeUnit.MILLISECONDS);
    }

    void runOnce() {
        try (Connection c = ds.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (!autoCommit) {
                c.setAutoCommit(true);
            }
            try (Statement st = c.createStatement()) {
                st.execute(statement);
                for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) {
                    warnOnce("the server answered " + statement + " with: " + w.getMessage());
                }
            } finally {
                if (!autoCommit) {
                    c.setAutoCommit(false);
                }
            }
        } catch (SQLException | RuntimeException e) {
            warnOnce(statement + " failed (retried every interval): " + e.getMessage());
        }
    }

    private void warnOnce(String message) {
        if (warned.compareAndSet(false, true)) {
            LOG.warn("{} ({}: later failures are logged at debug level)", message, PostgresOptions.VACUUM_EVERY);
        } else {
            LOG.debug(message);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
