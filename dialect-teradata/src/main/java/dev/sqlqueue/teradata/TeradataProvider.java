package dev.sqlqueue.teradata;

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
 * The {@code teradata} backend provider, selected by name or by any {@code jdbc:teradata:} URL. The
 * Teradata JDBC driver ({@code com.teradata.jdbc:terajdbc}) is not bundled (Teradata's licence): users
 * put it on the class path. Thread-safe.
 */
public final class TeradataProvider implements BackendProvider {
    /** The provider name. */
    public static final String NAME = "teradata";
    /** The driver class loaded when the backend opens its own pool. */
    public static final String DRIVER_CLASS = "com.teradata.jdbc.TeraDriver";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl != null && jdbcUrl.startsWith("jdbc:teradata:");
    }

    @Override
    public String description() {
        return "Teradata queue tables consumed with SELECT AND CONSUME TOP 1 (transactional claims; driver not bundled)";
    }

    /** Teradata's driver, {@code com.teradata.jdbc:terajdbc}, which sqlqueue never bundles (its licence). */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.of(new dev.sqlqueue.spi.JdbcDriver(DRIVER_CLASS, "com.teradata.jdbc:terajdbc",
                "sqlqueue does not bundle it (Teradata licence): download it from Teradata and put the jar on the class"
                        + " path, for example java -cp sqlqueue.jar:terajdbc.jar dev.sqlqueue.cli.Main ..."));
    }

    /**
     * Opens the backend. With {@link QueueConfig#dataSource()} the caller's pool is used and never closed;
     * otherwise a HikariCP pool of {@link QueueConfig#poolSize()} connections with auto-commit off is opened.
     *
     * @throws SqlQueueException if the URL sets a TMODE other than ANSI, the driver is missing, or the
     *     session is not in ANSI mode with a Unicode character set
     * @throws TransientBackendException if the database cannot be reached
     * @throws dev.sqlqueue.InvalidInputException if a {@code teradata.*} option is malformed
     */
    @Override
    public QueueBackend open(QueueConfig config) {
        TeradataOptions options = TeradataOptions.from(config);
        if (config.url() != null) {
            SessionMode.checkUrl(config.url());
        }
        if (config.dataSource() != null) {
            return TeradataBackend.open(config, options, config.wrap(config.dataSource()), null);
        }
        HikariDataSource pool = pool(config);
        try {
            return TeradataBackend.open(config, options, config.wrap(pool), pool); // the wrapper for statements, the pool to close
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * The DDL of {@link TeradataDdl#forQueue}: the queue table, the dead-letter table ({@code $dl}) and the
     * deduplication keys table ({@code $dk}), in the database of the {@code teradata.database} option.
     */
    @Override
    public java.util.List<String> ddl(QueueConfig config, dev.sqlqueue.QueueName queue) {
        TeradataOptions options = TeradataOptions.from(config);
        String database = options.database();
        if (database == null) {
            throw new dev.sqlqueue.InvalidInputException("teradata.database",
                    "the DDL names the database that holds the queue tables: give the option teradata.database=NAME");
        }
        return TeradataDdl.forQueue(config.tablePrefix(), database, queue.value(), options.fallback());
    }

    /**
     * The probes V1 to V12 ({@link TeradataProbes}); they need the Teradata JDBC driver on the class path,
     * as the backend does.
     */
    @Override
    public java.util.List<dev.sqlqueue.spi.Probe> probes() {
        return TeradataProbes.all();
    }

    /**
     * Evicts a connection borrowed from {@code pool}, found under any wrappers of the config's
     * {@code dataSourceWrapper} by JDBC {@code unwrap}; HikariCP closes it when it is returned.
     *
     * @throws IllegalStateException when the connection is not one of HikariCP's
     */
    static java.util.function.Consumer<java.sql.Connection> evictor(HikariDataSource pool) {
        return c -> {
            try {
                java.sql.Connection at = c;
                for (int depth = 0; depth < 8; depth++) {
                    if (at.getClass().getName().startsWith("com.zaxxer.hikari.")) {
                        pool.evictConnection(at);
                        return;
                    }
                    if (!at.isWrapperFor(java.sql.Connection.class)) {
                        break;
                    }
                    java.sql.Connection next = at.unwrap(java.sql.Connection.class);
                    if (next == null || next == at) {
                        break;
                    }
                    at = next;
                }
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("cannot unwrap the connection: " + e.getMessage(), e);
            }
            throw new IllegalStateException("not a connection of the backend's pool");
        };
    }

    private static HikariDataSource pool(QueueConfig config) {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        try {
            Class.forName(DRIVER_CLASS, true, cl != null ? cl : TeradataProvider.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new SqlQueueException("the Teradata JDBC driver (" + DRIVER_CLASS + ", Maven com.teradata.jdbc:terajdbc)"
                    + " is not on the class path; sqlqueue does not bundle it (Teradata licence): download it and add"
                    + " it, for example java -cp sqlqueue.jar:terajdbc.jar dev.sqlqueue.cli.Main ...", e);
        }
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(config.url());
        hc.setUsername(config.user());
        hc.setPassword(config.password());
        hc.setDriverClassName(DRIVER_CLASS);
        hc.setAutoCommit(false);
        hc.setMaximumPoolSize(config.poolSize());
        hc.setPoolName("sqlqueue-teradata");
        try {
            return new HikariDataSource(hc);
        } catch (HikariPool.PoolInitializationException e) {
            throw new TransientBackendException("cannot connect to " + BackendDiscovery.redact(config.url()) + ": "
                    + Redaction.text(e.getMessage(), config.url(), config.password()),
                    Redaction.throwable(e, config.url(), config.password()));
        }
    }
}
