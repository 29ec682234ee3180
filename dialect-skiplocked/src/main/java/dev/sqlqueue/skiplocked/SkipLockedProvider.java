package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.QueueBackend;
import dev.sqlqueue.spi.Redaction;

/**
 * Base of the three providers of this module. Opens a HikariCP pool (auto-commit off, READ
 * COMMITTED) unless the config brings a {@code DataSource}, passes it through
 * {@link QueueConfig#wrap} (instrumentation such as the conformance kit's statement tracker), then
 * migrates the schema when asked.
 */
abstract class SkipLockedProvider implements BackendProvider {
    private final String name;
    private final SkipLockedDialect dialect;

    SkipLockedProvider(String name, SkipLockedDialect dialect) {
        this.name = name;
        this.dialect = dialect;
    }

    @Override
    public String name() {
        return name;
    }

    /** The URL our own pool connects with; by default the config's. */
    String poolUrl(QueueConfig config) {
        return config.url();
    }

    /**
     * Checks the opened database before anything is written (for example that commits are durable);
     * throws to refuse it. By default nothing.
     */
    void checkOpened(javax.sql.DataSource ds, QueueConfig config) {
    }

    /** How long opening the pool is retried while {@link #retryOpen} says the failure is passing: 15 s. */
    static final long OPEN_RETRY_NANOS = 15_000_000_000L;

    /** Whether a failure to open the pool is worth retrying with back-off (by default none is). */
    boolean retryOpen(Throwable cause) {
        return false;
    }

    /** Driver properties this database needs on our own pool. */
    void driverProperties(HikariConfig hc, QueueConfig config) {
    }

    @Override
    public QueueBackend open(QueueConfig config) {
        SkipLockedBackend backend;
        javax.sql.DataSource ds;
        if (config.dataSource() != null) {
            ds = config.dataSource();
            backend = new SkipLockedBackend(dialect, name, config.wrap(ds), null, config);
        } else {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(poolUrl(config));
            hc.setUsername(config.user());
            hc.setPassword(config.password());
            hc.setMaximumPoolSize(config.poolSize());
            hc.setAutoCommit(false);
            hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            hc.setPoolName("sqlqueue-" + name + "-" + config.tablePrefix());
            hc.setConnectionTimeout(10_000);
            hc.setExceptionOverrideClassName(EvictOnConnectionLoss.class.getName());
            driverProperties(hc, config);
            HikariDataSource pool = null;
            long deadline = System.nanoTime() + OPEN_RETRY_NANOS;
            long pause = 50;
            int attempts = 0;
            while (pool == null) {
                try {
                    attempts++;
                    pool = new HikariDataSource(hc);
                } catch (HikariPool.PoolInitializationException | IllegalArgumentException | IllegalStateException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    long jittered = pause / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(pause / 2 + 1);
                    if (retryOpen(cause) && System.nanoTime() + jittered * 1_000_000L < deadline) {
                        try {
                            Thread.sleep(jittered);
                        } catch (InterruptedException stop) {
                            Thread.currentThread().interrupt();
                            throw new TransientBackendException("interrupted while opening " + BackendDiscovery.redact(config.url()), stop);
                        }
                        pause = Math.min(pause * 2, 1_000);
                        continue;
                    }
                    throw new TransientBackendException("cannot connect to " + BackendDiscovery.redact(config.url())
                            + (attempts > 1 ? " (tried " + attempts + " times in " + OPEN_RETRY_NANOS / 1_000_000_000L + " s)" : "")
                            + ": " + Redaction.text(cause.getMessage(), config.url(), config.password()),
                            Redaction.throwable(e, config.url(), config.password()));
                }
            }
            ds = pool;
            backend = new SkipLockedBackend(dialect, name, config.wrap(pool), pool, config);
        }
        try {
            checkOpened(ds, config);
            if (config.migrate()) {
                backend.migrate();
            }
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        return backend;
    }

}
