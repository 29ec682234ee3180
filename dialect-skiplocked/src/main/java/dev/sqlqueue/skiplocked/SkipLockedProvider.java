package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
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

    /** Prepares what the pool will open, before it connects (for example the folder of a file database). By default nothing. */
    void beforePoolOpens(QueueConfig config) {
    }

    /**
     * Checks the opened database before anything is written (for example that commits are durable);
     * throws to refuse it. By default nothing.
     */
    void checkOpened(javax.sql.DataSource ds, QueueConfig config) {
    }

    /**
     * How long opening is retried while {@link #retryOpen} says the failure is passing: 60 s (a hand-over of an
     * H2 file between processes waits on its lock file for seconds, docs/backends/h2.md).
     */
    static final long OPEN_RETRY_NANOS = 60_000_000_000L;

    /** Whether a failure to open the pool is worth retrying with back-off (by default none is). */
    boolean retryOpen(Throwable cause) {
        return false;
    }

    /**
     * Sleeps a jittered {@code pause} before the next attempt to open and returns the next pause (doubling, up to
     * 1 s); throws {@code failure} when {@code passing} is false or the pause would end past {@code deadline}.
     */
    private static long pauseOrFail(boolean passing, RuntimeException failure, long pause, long deadline, QueueConfig config) {
        long jittered = pause / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(pause / 2 + 1);
        if (!passing || System.nanoTime() + jittered * 1_000_000L >= deadline) {
            throw failure;
        }
        try {
            Thread.sleep(jittered);
        } catch (InterruptedException stop) {
            Thread.currentThread().interrupt();
            throw new TransientBackendException("interrupted while opening " + BackendDiscovery.redact(config.url()), stop);
        }
        return Math.min(pause * 2, 1_000);
    }

    /** Driver properties this database needs on our own pool. */
    void driverProperties(HikariConfig hc, QueueConfig config) {
    }

    @Override
    public QueueBackend open(QueueConfig config) {
        checkOptionKeys(config);
        MigrationLocks.from(config); // a bad value is refused before anything connects
        SkipLockedBackend backend;
        javax.sql.DataSource ds;
        if (config.dataSource() != null) {
            ds = config.dataSource();
            backend = new SkipLockedBackend(dialect, name, config.wrap(ds), null, config);
        } else {
            beforePoolOpens(config);
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
            long deadline = System.nanoTime() + OPEN_RETRY_NANOS;
            long pause = 50;
            int attempts = 0;
            while (true) {
                attempts++;
                HikariDataSource pool;
                try {
                    pool = new HikariDataSource(hc);
                } catch (HikariPool.PoolInitializationException | IllegalArgumentException | IllegalStateException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    String said = "cannot connect to " + BackendDiscovery.redact(config.url())
                            + (attempts > 1 ? " (tried " + attempts + " times in " + OPEN_RETRY_NANOS / 1_000_000_000L + " s)" : "")
                            + ": " + Redaction.text(cause.getMessage(), config.url(), config.password());
                    // a refused login or an unknown database is no passing failure: no retry can succeed
                    RuntimeException failure = JdbcErrors.isConfigurationRefused(cause)
                            ? new SqlQueueException(said, Redaction.throwable(e, config.url(), config.password()))
                            : new TransientBackendException(said, Redaction.throwable(e, config.url(), config.password()));
                    pause = pauseOrFail(retryOpen(cause), failure, pause, deadline, config);
                    continue;
                }
                backend = new SkipLockedBackend(dialect, name, config.wrap(pool), pool, config);
                try {
                    checkOpened(pool, config);
                    migrateOrCheck(backend, pool, config);
                    return backend;
                } catch (RuntimeException e) {
                    backend.close();
                    // the database went away while it was being opened (an H2 process serving a shared file
                    // exited): the whole open is tried again, while the provider says the failure is passing
                    pause = pauseOrFail(retryOpen(e), e, pause, deadline, config);
                }
            }
        }
        try {
            checkOpened(ds, config);
            migrateOrCheck(backend, ds, config);
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        return backend;
    }

    /**
     * Migrates with migrate on; with it off, refuses a schema older than this release needs
     * ({@link SchemaMigrator#requireVersion}, rule {@value SchemaMigrator#VERSION_RULE}).
     */
    private void migrateOrCheck(SkipLockedBackend backend, javax.sql.DataSource ds, QueueConfig config) {
        if (config.migrate()) {
            backend.migrate();
        } else {
            SchemaMigrator.requireVersion(ds, dialect, config.tablePrefix());
        }
    }

    /** The {@link QueueConfig#options()} keys this backend reads: by default the migration's ({@link MigrationLocks}). */
    java.util.Set<String> optionKeys() {
        return MigrationLocks.KEYS;
    }

    /**
     * @throws dev.sqlqueue.InvalidInputException (rule {@code option.unknown}) for an option key this backend does
     *     not read, naming the keys it reads: a misspelt {@code postgresql.transaction-poolr} was ignored, so the
     *     backend ran as if connected directly
     */
    void checkOptionKeys(QueueConfig config) {
        dev.sqlqueue.spi.OptionKeys.requireKnown(name(), config, optionKeys());
    }
}
