package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.sqlserver.tables.probe.SqlServerProbes;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import dev.sqlqueue.spi.Redaction;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.QueueBackend;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Provider {@code sqlserver}: SQL Server queue tables claimed with {@code READPAST}. Selected by name
 * or by any {@code jdbc:sqlserver:} URL. Opens a HikariCP pool of {@link QueueConfig#poolSize()}
 * connections unless {@link QueueConfig#dataSource()} is given (that pool is used and never closed).
 * Needs mssql-jdbc on the class path. Options: {@link SqlServerOptions}. Thread-safe.
 */
public final class SqlServerProvider implements BackendProvider {
    static final String DRIVER = "com.microsoft.sqlserver.jdbc.SQLServerDriver";

    @Override
    public String name() {
        return "sqlserver";
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl != null && jdbcUrl.regionMatches(true, 0, "jdbc:sqlserver:", 0, "jdbc:sqlserver:".length());
    }

    @Override
    public String description() {
        return "SQL Server queue tables claimed with READPAST (lease and transactional claims)";
    }

    /** Microsoft's JDBC driver, {@code com.microsoft.sqlserver:mssql-jdbc}. */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.of(dev.sqlqueue.spi.JdbcDriver.of("com.microsoft.sqlserver.jdbc.SQLServerDriver",
                "com.microsoft.sqlserver:mssql-jdbc"));
    }

    /** The probes V1..V10 of the queue tables ({@link SqlServerProbes}); run by {@code sqlqueue probe --backend sqlserver}. */
    @Override
    public java.util.List<dev.sqlqueue.spi.Probe> probes() {
        return SqlServerProbes.all();
    }

    /**
     * @throws InvalidInputException for a bad option, or an ordering/layout option that contradicts the
     *     one the prefix's tables were created with
     * @throws TransientBackendException if the server cannot be reached
     * @throws SqlQueueException if mssql-jdbc is missing or the migration fails
     */
    @Override
    public QueueBackend open(QueueConfig config) {
        SqlServerOptions options = SqlServerOptions.from(config);
        HikariDataSource pool = config.dataSource() == null ? pool(config) : null;
        // wrapped once (the kit's statement tracking, metrics): every statement of the backend goes through it
        DataSource ds = config.wrap(pool != null ? pool : config.dataSource());
        try {
            Sessions sessions = new Sessions(ds, options.deadlockRetries(), Backoff.JITTERED);
            SqlServerEngine engine = engine(sessions);
            SqlServerStatements sql = new SqlServerStatements(config.tablePrefix(), options.schema(), options.ordering(), engine);
            if (config.migrate()) {
                SqlServerMigrator.migrate(ds, sql, options.layout());
            }
            ClaimOrder order = resolve(config, options, readSettings(sessions, sql));
            SqlServerStatements used = order == options.ordering() ? sql
                    : new SqlServerStatements(config.tablePrefix(), options.schema(), order, engine);
            return new SqlServerQueueBackend(used, sessions, config.history(),
                    () -> SqlServerMigrator.migrate(ds, used, options.layout()), pool, order, config.deduplicationWindow());
        } catch (RuntimeException e) {
            if (pool != null) {
                pool.close();
            }
            throw e;
        }
    }

    /** The claim order the tables were built for wins; an explicit option that contradicts it is an error. */
    static ClaimOrder resolve(QueueConfig config, SqlServerOptions options, Map<String, String> stored) {
        String storedLayout = stored.get("layout");
        if (config.options().containsKey("layout") && storedLayout != null && !storedLayout.equals(options.layout().key())) {
            throw new InvalidInputException("option.layout", "the tables of prefix '" + config.tablePrefix()
                    + "' were created with layout '" + storedLayout + "'; layout '" + options.layout().key()
                    + "' cannot change them");
        }
        String storedOrder = stored.get("ordering");
        if (storedOrder == null || storedOrder.equals(options.ordering().key())) {
            return options.ordering();
        }
        if (config.options().containsKey("ordering")) {
            throw new InvalidInputException("option.ordering", "the tables of prefix '" + config.tablePrefix()
                    + "' were created for ordering '" + storedOrder + "' (their claim index serves it); ordering '"
                    + options.ordering().key() + "' cannot be used with them");
        }
        for (ClaimOrder o : ClaimOrder.values()) {
            if (o.key().equals(storedOrder)) {
                return o;
            }
        }
        throw new SqlQueueException("the settings table of prefix '" + config.tablePrefix() + "' names an unknown ordering '"
                + storedOrder + "'");
    }

    /** The oldest SQL Server this backend runs on: 2017, major version 14 ({@code docs/backends/sqlserver.md}). */
    static final int MIN_MAJOR_VERSION = 14;

    /**
     * Which T-SQL engine answers ({@link SqlServerStatements#DETECT_ENGINE}).
     *
     * @throws SqlQueueException for a SQL Server older than 2017 (Azure SQL Database and Managed Instance pass:
     *     they report version 12 whatever their engine)
     */
    static SqlServerEngine engine(Sessions sessions) {
        return sessions.inTransaction("reading the server's engine", c -> {
            try (PreparedStatement ps = c.prepareStatement(SqlServerStatements.DETECT_ENGINE); ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return SqlServerEngine.SQL_SERVER;
                }
                if (rs.getInt("babelfish") == 1) {
                    return SqlServerEngine.BABELFISH;
                }
                int major = rs.getInt("major");
                int edition = rs.getInt("edition");
                if (edition != 5 && edition != 8 && major < MIN_MAJOR_VERSION) {
                    throw new SqlQueueException("backend sqlserver needs SQL Server 2017 (major version " + MIN_MAJOR_VERSION
                            + ") or later, Azure SQL Database or Azure SQL Managed Instance; this server reports major version "
                            + (major == 0 ? "unknown (before 2012)" : Integer.toString(major)) + " and engine edition " + edition
                            + " (SERVERPROPERTY)");
                }
                return SqlServerEngine.SQL_SERVER;
            }
        });
    }

    /** The settings row written by the migration, or empty when the tables do not exist yet ({@link SqlServerErrors#isMissingObject}). */
    static Map<String, String> readSettings(Sessions sessions, SqlServerStatements sql) {
        try {
            return sessions.inTransaction("reading the queue table settings", c -> {
                Map<String, String> out = new HashMap<>();
                try (PreparedStatement ps = c.prepareStatement(sql.get("readSettings")); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getString("name"), rs.getString("value"));
                    }
                }
                return out;
            });
        } catch (SqlQueueException e) {
            if (e.getCause() instanceof SQLException s && SqlServerErrors.isMissingObject(s)) {
                return Map.of();
            }
            throw e;
        }
    }

    private static HikariDataSource pool(QueueConfig config) {
        HikariConfig hc = new HikariConfig();
        try {
            hc.setDriverClassName(DRIVER);
        } catch (RuntimeException e) {
            throw new SqlQueueException("backend sqlserver needs the Microsoft JDBC driver (com.microsoft.sqlserver:mssql-jdbc)"
                    + " on the class path: " + e.getMessage(), e);
        }
        hc.setJdbcUrl(config.url());
        if (config.user() != null) {
            hc.setUsername(config.user());
        }
        if (config.password() != null) {
            hc.setPassword(config.password());
        }
        hc.setMaximumPoolSize(config.poolSize());
        hc.setPoolName("sqlqueue-sqlserver-" + config.tablePrefix());
        hc.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        try {
            return new HikariDataSource(hc);
        } catch (HikariPool.PoolInitializationException e) {
            throw new TransientBackendException("cannot connect to SQL Server at " + BackendDiscovery.redact(config.url())
                    + ": " + Redaction.text(e.getMessage(), config.url(), config.password()),
                    Redaction.throwable(e, config.url(), config.password()));
        }
    }
}
