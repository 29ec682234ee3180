package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.sqlserver.broker.probe.BrokerProbe;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.QueueBackend;
import dev.sqlqueue.spi.Redaction;
import javax.sql.DataSource;

/**
 * Provider of the {@code sqlserver-broker} backend. Opening checks that the broker is enabled in the
 * database (and provisions when {@link QueueConfig#migrate()} is set). Chosen by name only: {@link #acceptsUrl} is false
 * for every URL, because a {@code jdbc:sqlserver:} URL alone selects the queue-table backend
 * ({@code sqlserver}). Opens its own HikariCP pool of {@link QueueConfig#poolSize()} connections unless
 * the config carries a DataSource. Thread-safe.
 */
public final class ServiceBrokerProvider implements BackendProvider {
    @Override
    public String name() {
        return ServiceBrokerBackend.NAME;
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return false;
    }

    @Override
    public String description() {
        return "SQL Server Service Broker: pooled dialogs, WAITFOR (RECEIVE ...), adapter-side poison handling";
    }

    /** Microsoft's JDBC driver, {@code com.microsoft.sqlserver:mssql-jdbc}. */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.of(dev.sqlqueue.spi.JdbcDriver.of("com.microsoft.sqlserver.jdbc.SQLServerDriver",
                "com.microsoft.sqlserver:mssql-jdbc"));
    }

    /**
     * The experiments V1..V8 of the Service Broker review ({@code docs/backends/sqlserver-broker.md},
     * "Open points"): each provisions the backend's objects under its own prefix and drops them again.
     */
    @Override
    public java.util.List<dev.sqlqueue.spi.Probe> probes() {
        return BrokerProbe.all();
    }

    /**
     * @throws dev.sqlqueue.InvalidInputException if a broker option is invalid
     * @throws TransientBackendException if the database cannot be reached
     * @throws dev.sqlqueue.SqlQueueException if the broker is disabled in the database or provisioning fails
     */
    @Override
    public QueueBackend open(QueueConfig config) {
        BrokerOptions options = BrokerOptions.from(config);
        DataSource ds = config.dataSource();
        HikariDataSource own = null;
        if (ds == null) {
            HikariConfig h = new HikariConfig();
            h.setJdbcUrl(config.url());
            h.setUsername(config.user());
            h.setPassword(config.password());
            h.setMaximumPoolSize(config.poolSize());
            h.setPoolName("sqlqueue-broker");
            try {
                own = new HikariDataSource(h);
            } catch (RuntimeException e) {
                throw new TransientBackendException("cannot reach " + BackendDiscovery.redact(config.url()) + ": "
                        + Redaction.text(e.getMessage(), config.url(), config.password()),
                        Redaction.throwable(e, config.url(), config.password()));
            }
            ds = own;
        }
        ds = config.wrap(ds); // once, on the pool used (the kit's statement tracking, metrics)
        ServiceBrokerBackend backend = new ServiceBrokerBackend(ds, own, config, options, true);
        try {
            if (config.migrate()) {
                backend.migrate();
            } else {
                backend.requireBrokerEnabled();
            }
        } catch (RuntimeException e) {
            backend.close();
            throw e;
        }
        return backend;
    }
}
