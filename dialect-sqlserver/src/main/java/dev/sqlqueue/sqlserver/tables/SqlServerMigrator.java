package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.SqlQueueException;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates or upgrades the {@code sqlserver} backend's tables with Flyway (flyway-sqlserver): scripts in
 * {@value #LOCATION}, names filled in through placeholders from
 * {@link SqlServerStatements#placeholders}, history table {@code <prefix>schema_history} in the
 * configured schema. {@code baselineOnMigrate} with baseline version 0 lets a prefix be created in a
 * schema that already holds other objects (other prefixes, other applications): Flyway otherwise refuses
 * a non-empty schema without its history table. Flyway serializes concurrent migrations itself.
 * Thread-safe.
 */
public final class SqlServerMigrator {
    static final String LOCATION = "classpath:db/sqlqueue/sqlserver-tables";

    private SqlServerMigrator() {
    }

    /**
     * @param dataSource the pool connections are borrowed from
     * @param sql the statements of the queue-table backend
     * @param layout the schema layout to migrate to
     * @throws dev.sqlqueue.TransientBackendException if the database cannot be reached
     * @throws SqlQueueException if a migration fails
     */
    public static void migrate(DataSource dataSource, SqlServerStatements sql, SqlServerOptions.Layout layout) {
        try {
            Flyway.configure(SqlServerMigrator.class.getClassLoader())
                    .dataSource(dataSource)
                    .table(sql.flywayTable())
                    .defaultSchema(sql.schema())
                    .schemas(sql.schema())
                    .locations(LOCATION)
                    .placeholders(sql.placeholders(layout))
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    .load()
                    .migrate();
        } catch (FlywayException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException s) {
                    throw SqlServerErrors.map("migrating the sqlserver queue tables", s);
                }
            }
            throw new SqlQueueException("migrating the sqlserver queue tables failed: " + e.getMessage(), e);
        }
    }
}
