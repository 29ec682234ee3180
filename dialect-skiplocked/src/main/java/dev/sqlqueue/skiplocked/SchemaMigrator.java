package dev.sqlqueue.skiplocked;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Creates and upgrades the schema of one table prefix with Flyway. Each prefix has its own Flyway
 * history table ({@code <prefix>schema_history}), so several prefixes, and other applications'
 * tables, live side by side in one schema; Flyway's own lock makes concurrent migrations safe.
 */
final class SchemaMigrator {
    private SchemaMigrator() {
    }

    /** @return how many migrations were applied (0 when the schema was current) */
    static int migrate(DataSource ds, SkipLockedDialect dialect, String prefix) {
        try {
            MigrateResult result = Flyway.configure()
                    .dataSource(ds)
                    .locations(dialect.migrations())
                    .table(SkipLockedStatements.flywayTable(prefix))
                    .placeholders(Map.of("prefix", prefix))
                    // the schema may hold other prefixes' and other applications' tables
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    // Flyway's info messages at DEBUG, as the CLI keeps them (QuietLibraryLogs)
                    .loggers(QuietLibraryLogs.class.getName())
                    .load()
                    .migrate();
            return result.migrationsExecuted;
        } catch (FlywayException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException s && JdbcErrors.isConnectionLoss(s)) {
                    throw new TransientBackendException("schema migration failed: " + s.getMessage(), e);
                }
            }
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException s && JdbcErrors.isPreparedStatementLost(s)) {
                    throw new SqlQueueException("schema migration failed: " + e.getMessage() + JdbcErrors.POOLER_HINT, e);
                }
            }
            throw new SqlQueueException("schema migration failed: " + e.getMessage(), e);
        }
    }
}
