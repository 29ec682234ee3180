package dev.sqlqueue.skiplocked;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
            SQLException cause = null;
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof SQLException s) {
                    cause = s;
                }
            }
            if (dialect == SkipLockedDialect.POSTGRES && cause != null && "42501".equals(cause.getSQLState())) {
                checkCreateRight(ds, prefix, e);
            }
            // Flyway's own text ends with "Run Flyway with -X option to see the actual statement", which a
            // user of this library cannot do: the server's message is what says what went wrong
            throw new SqlQueueException("schema migration failed: " + (cause == null ? e.getMessage()
                    : cause.getMessage() + " (SQLState " + cause.getSQLState() + ")"), e);
        }
    }

    /**
     * PostgreSQL, after a migration refused with SQLState 42501: whether the user may create tables in the
     * schema Flyway used (the current schema), so that the error says who lacks which right where. (Checked
     * after the failure, not before: a check on its own connection first changed which server connection
     * Flyway's statements met behind a transaction pooler; Flyway tries to create its history table ten times,
     * a second apart, before it gives up.)
     *
     * @throws SqlQueueException naming the schema and the user when the history table is missing and the
     *     user lacks {@code CREATE} on the schema
     */
    private static void checkCreateRight(DataSource ds, String prefix, FlywayException failure) {
        try (Connection c = ds.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT current_schema(), current_user,"
                     + " has_schema_privilege(current_schema(), 'CREATE'),"
                     + " to_regclass(quote_ident(current_schema()) || '.' || quote_ident(?)) IS NOT NULL")) {
            ps.setString(1, SkipLockedStatements.flywayTable(prefix));
            String schema;
            String user;
            boolean mayCreate;
            boolean migrated;
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                schema = rs.getString(1);
                user = rs.getString(2);
                mayCreate = rs.getBoolean(3);
                migrated = rs.getBoolean(4);
            }
            if (!c.getAutoCommit()) {
                c.rollback();
            }
            if (schema != null && !migrated && !mayCreate) {
                throw new SqlQueueException("schema migration failed: role \"" + user + "\" may not create tables in"
                        + " schema \"" + schema + "\" (the first schema of its search_path); grant it CREATE on that"
                        + " schema, or let a role that may run the migration once (sqlqueue migrate) and open with"
                        + " migrate off (SQLState 42501)", failure);
            }
        } catch (SQLException e) {
            // no verdict: the migration itself reports what the server says
        }
    }
}
