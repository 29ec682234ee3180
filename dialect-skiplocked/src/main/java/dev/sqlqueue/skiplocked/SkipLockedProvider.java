package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.QueueBackend;

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

    /** Driver properties this database needs on our own pool. */
    void driverProperties(HikariConfig hc, QueueConfig config) {
    }

    @Override
    public QueueBackend open(QueueConfig config) {
        SkipLockedBackend backend;
        if (config.dataSource() != null) {
            backend = new SkipLockedBackend(dialect, name, config.wrap(config.dataSource()), null, config);
        } else {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(config.url());
            hc.setUsername(config.user());
            hc.setPassword(config.password());
            hc.setMaximumPoolSize(config.poolSize());
            hc.setAutoCommit(false);
            hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            hc.setPoolName("sqlqueue-" + name + "-" + config.tablePrefix());
            hc.setConnectionTimeout(10_000);
            hc.setExceptionOverrideClassName(EvictOnConnectionLoss.class.getName());
            driverProperties(hc, config);
            HikariDataSource pool;
            try {
                pool = new HikariDataSource(hc);
            } catch (HikariPool.PoolInitializationException | IllegalArgumentException | IllegalStateException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new TransientBackendException("cannot connect to " + BackendDiscovery.redact(config.url())
                        + ": " + cause.getMessage(), e);
            }
            backend = new SkipLockedBackend(dialect, name, config.wrap(pool), pool, config);
        }
        try {
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
