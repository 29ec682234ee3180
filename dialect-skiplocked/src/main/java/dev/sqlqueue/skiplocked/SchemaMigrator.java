package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.FlywayException;

/**
 * Creates and upgrades the schema of one table prefix with Flyway. Each prefix has its own Flyway
 * history table ({@code <prefix>schema_history}), so several prefixes, and other applications'
 * tables, live side by side in one schema; Flyway's own lock makes concurrent migrations safe.
 */
final class SchemaMigrator {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SchemaMigrator.class);

    /** The rule named when a library opened with migrate off meets a schema older than it needs. */
    static final String VERSION_RULE = "schema.version";

    private SchemaMigrator() {
    }

    /**
     * With migrate off, at open: reads the highest successful version in the prefix's Flyway history and
     * refuses a schema older than {@link SkipLockedDialect#schemaVersion()}: it would open and fail later, at
     * the first statement that needs what the missing migrations add (issue 31: {@code enqueueDeduplicated} met
     * "..._dedupe_key does not exist"). A newer schema (a later release migrated it) is accepted: migrations only
     * add (tables, columns that may be null, indexes), so a release keeps working on the next one's schema,
     * which is what a rolling upgrade needs. No history table (nothing created yet) is left to the first
     * statement, as before (logged at DEBUG): a drop or a probe of an empty prefix opens that way.
     *
     * @throws InvalidInputException rule {@value #VERSION_RULE}, naming the versions and the command to run
     */
    static void requireVersion(DataSource ds, SkipLockedDialect dialect, String prefix) {
        String q = dialect == SkipLockedDialect.MARIADB ? "`" : "\"";
        String table = SkipLockedStatements.flywayTable(prefix);
        MigrationVersion found = null;
        MigrationVersion failed = null;
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + q + "version" + q + ", " + q + "success" + q
                    + " FROM " + q + table + q + " WHERE " + q + "version" + q + " IS NOT NULL");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    MigrationVersion v = MigrationVersion.fromVersion(rs.getString(1));
                    if (rs.getBoolean(2)) {
                        found = found == null || v.compareTo(found) > 0 ? v : found;
                    } else {
                        failed = failed == null || v.compareTo(failed) > 0 ? v : failed;
                    }
                }
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("42")) {
                    throw e;
                }
                // DEBUG: the conformance kit's probe and a clean-up open an empty prefix this way on purpose
                LOG.debug("no sqlqueue schema for table prefix {} (no table {}) and migrate is off: statements will fail until"
                        + " it is created with 'sqlqueue migrate' (or QueueClient.migrate())", prefix, table);
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        } catch (SQLException e) {
            throw JdbcErrors.isConnectionLoss(e)
                    ? new TransientBackendException("cannot read the schema version: " + e.getMessage(), e)
                    : new SqlQueueException("cannot read the schema version from " + table + ": " + e.getMessage(), e);
        }
        MigrationVersion required = MigrationVersion.fromVersion(Integer.toString(dialect.schemaVersion()));
        if (found == null && failed == null) {
            return;
        }
        if (found == null || found.compareTo(required) < 0 || failed != null && failed.compareTo(required) <= 0) {
            String at = found == null ? "has no successful migration" : "is at version " + found;
            String half = failed == null ? "" : "; migration " + failed + " failed half-way (see docs/backends/"
                    + dialect.migrations().substring(dialect.migrations().lastIndexOf('/') + 1) + ".md, \"Upgrades\")";
            throw new InvalidInputException(VERSION_RULE, "the sqlqueue schema of table prefix " + prefix + " " + at
                    + " (table " + table + ")" + half + ", but this release needs version " + required
                    + " and was opened with migrate off: run 'sqlqueue migrate --url <JDBC_URL> --table-prefix " + prefix
                    + "' (or QueueClient.migrate(), or open once with migrate on) as a user that may alter the tables,"
                    + " then open again; workers of the earlier release keep working on the upgraded schema");
        }
        if (found.compareTo(required) > 0) {
            LOG.info("the sqlqueue schema of table prefix {} is at version {}, newer than the {} this release needs: a"
                    + " later release migrated it; migrations only add, so this release runs on it", prefix, found, required);
        }
    }

    /**
     * Migrates with each lock wait bounded by {@code locks} ({@link MigrationLocks}): an attempt whose lock
     * request timed out is retried after a back-off, and when the attempts run out the error names the sessions
     * that hold the locks. Each migration runs in its own transaction on H2 and PostgreSQL, so a timed-out one
     * left nothing and those applied before it stay. MariaDB commits each DDL statement: Flyway records the
     * migration as failed, which is repaired and retried only when its first statement was the one that timed out
     * (nothing of it was applied); otherwise the error says the migration is half-applied. Through a transaction
     * pooler ({@code transactionPooler}) no session setting is made, the retry still applies.
     *
     * @return how many migrations were applied (0 when the schema was current)
     */
    static int migrate(DataSource ds, SkipLockedDialect dialect, String prefix, MigrationLocks locks, boolean transactionPooler) {
        Flyway flyway = Flyway.configure()
                .dataSource(locks.bounded(ds, dialect, transactionPooler))
                .locations(dialect.migrations())
                .table(SkipLockedStatements.flywayTable(prefix))
                .placeholders(Map.of("prefix", prefix))
                // the schema may hold other prefixes' and other applications' tables
                .baselineOnMigrate(true)
                .baselineVersion("0")
                // Flyway's info messages at DEBUG, as the CLI keeps them (QuietLibraryLogs)
                .loggers(QuietLibraryLogs.class.getName())
                .load();
        int applied = 0;
        for (int attempt = 1; ; attempt++) {
            try {
                return applied + flyway.migrate().migrationsExecuted;
            } catch (FlywayException e) {
                if (!MigrationLocks.isLockTimeout(e)) {
                    throw failure(e, ds, dialect, prefix);
                }
                java.util.List<String> blockers = MigrationLocks.blockers(ds, dialect, prefix);
                String who = blockers.isEmpty() ? "no session holds a lock any more" : String.join("; ", blockers);
                String half = halfApplied(e, dialect);
                if (half != null) {
                    throw new SqlQueueException("schema migration failed: " + half + " timed out waiting for a lock after"
                            + " some of its statements were applied (MariaDB commits each DDL statement); the sessions"
                            + " holding locks: " + who + ". Undo that migration's applied statements by hand, then run"
                            + " 'sqlqueue migrate' (it repairs Flyway's record of the failure); docs/backends/mariadb.md,"
                            + " \"Upgrades\"", e);
                }
                if (dialect == SkipLockedDialect.MARIADB) {
                    flyway.repair(); // the failed record of a migration none of whose statements ran
                }
                if (attempt >= locks.attempts()) {
                    throw new SqlQueueException("schema migration failed: " + locks.attempts() + " attempts each gave up"
                            + " waiting " + locks.lockTimeout().toMillis() + " ms for a lock (" + MigrationLocks.LOCK_TIMEOUT
                            + ", " + MigrationLocks.LOCK_ATTEMPTS + "): " + cause(e) + ". The sessions holding locks on the"
                            + " tables of prefix " + prefix + ": " + who + ". Workers of an earlier release in transactional"
                            + " mode hold such locks for each batch: stop them (or let them finish) and run 'sqlqueue migrate'"
                            + " again; migrations applied so far are kept", e);
                }
                long pause = MigrationLocks.backoffMillis(attempt + 1);
                LOG.warn("schema migration of prefix {}: attempt {} of {} gave up waiting {} ms for a lock ({}); holding"
                        + " locks: {}; trying again in {} ms", prefix, attempt, locks.attempts(),
                        locks.lockTimeout().toMillis(), cause(e), who, pause);
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    throw new TransientBackendException("interrupted while waiting to retry the schema migration", e);
                }
            }
        }
    }

    /** The innermost SQL error's message, else the exception's. */
    private static String cause(Throwable e) {
        String said = e.getMessage();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                said = s.getMessage();
            }
        }
        return said;
    }

    /**
     * MariaDB: the migration a lock time-out stopped after its first statement had run (and was committed), as
     * "migration V2__message_groups.sql (line 6)"; null when the first statement timed out (nothing ran) or the
     * database undoes a failed migration.
     */
    private static String halfApplied(FlywayException e, SkipLockedDialect dialect) {
        if (dialect != SkipLockedDialect.MARIADB) {
            return null;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.flywaydb.core.internal.sqlscript.FlywaySqlScriptException s && s.getResource() != null) {
                String file = s.getResource().getFilename();
                int first = firstStatementLine(dialect, file);
                return first == s.getLineNumber() ? null : "migration " + file + " (line " + s.getLineNumber() + ")";
            }
        }
        return "a migration";
    }

    /** The line of the first statement of a migration script: its first line that is neither blank nor a comment. */
    private static int firstStatementLine(SkipLockedDialect dialect, String file) {
        String path = dialect.migrations().substring("classpath:".length()) + "/" + file;
        try (java.io.InputStream in = SchemaMigrator.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return -1;
            }
            String[] lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\\R");
            for (int i = 0; i < lines.length; i++) {
                String l = lines[i].trim();
                if (!l.isEmpty() && !l.startsWith("--")) {
                    return i + 1;
                }
            }
            return -1;
        } catch (java.io.IOException io) {
            return -1;
        }
    }

    private static RuntimeException failure(FlywayException e, DataSource ds, SkipLockedDialect dialect, String prefix) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && JdbcErrors.isConnectionLoss(s)) {
                return new TransientBackendException("schema migration failed: " + s.getMessage(), e);
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && JdbcErrors.isPreparedStatementLost(s)) {
                return new SqlQueueException("schema migration failed: " + e.getMessage() + JdbcErrors.POOLER_HINT, e);
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
        return new SqlQueueException("schema migration failed: " + (cause == null ? e.getMessage()
                : cause.getMessage() + " (SQLState " + cause.getSQLState() + ")"), e);
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
