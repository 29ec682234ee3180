package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.Jdbc;
import dev.sqlqueue.sqlserver.tables.SqlServerEngine;
import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerNames;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.ProbeContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A probe's own set of queue tables: created with the backend's migration under
 * {@code context.prefix() + code}, for one ordering and layout, with one queue {@value #QUEUE}; dropped
 * by {@link #close()} with the backend's {@code dropSchema} statement. The statements are those of the engine
 * that answers ({@link SqlServerStatements#DETECT_ENGINE}, as the backend reads it), so on Babelfish the
 * probes run the claim the backend runs there. Not thread-safe (connections it hands out are independent).
 */
final class ProbeTables implements AutoCloseable {
    static final String QUEUE = "probe";

    final ProbeContext context;
    final SqlServerStatements sql;
    final String prefix;
    final Layout layout;

    private ProbeTables(ProbeContext context, SqlServerStatements sql, String prefix, Layout layout) {
        this.context = context;
        this.sql = sql;
        this.prefix = prefix;
        this.layout = layout;
    }

    /**
     * Create the tables. {@code code} is 1 to 8 characters {@code [a-z0-9_]}; the full prefix must stay
     * within the 24 characters QueueConfig allows.
     *
     * @throws SQLException if the queue row cannot be written (the tables are dropped again)
     * @throws SqlQueueException if the migration fails (the tables are dropped again)
     */
    static ProbeTables create(ProbeContext context, String code, ClaimOrder order, Layout layout) throws SQLException {
        return create(context, code, order, layout, SqlServerMigrator::migrate);
    }

    /** How the tables are created: the backend's Flyway migration (tests on the model record it instead). */
    interface Migration {
        void migrate(DataSource ds, SqlServerStatements sql, Layout layout);
    }

    static ProbeTables create(ProbeContext context, String code, ClaimOrder order, Layout layout, Migration migration)
            throws SQLException {
        String prefix = context.prefix() + code;
        if (!prefix.matches("[a-z][a-z0-9_]{0,23}")) {
            throw new IllegalArgumentException("probe table prefix '" + prefix + "' is not [a-z][a-z0-9_]{0,23}");
        }
        String schema = context.config().option("schema", "dbo");
        SqlServerEngine engine;
        try (Connection c = context.connect()) {
            engine = engine(c);
        }
        ProbeTables t = new ProbeTables(context, new SqlServerStatements(prefix, schema, order, engine), prefix, layout);
        try {
            migration.migrate(t.dataSource(), t.sql, layout);
            try (Connection c = context.connect();
                 PreparedStatement ps = Jdbc.prepare(c, t.sql.get("createQueue"), QUEUE, QUEUE, QUEUE)) {
                ps.execute();
            }
            return t;
        } catch (SQLException | RuntimeException e) {
            t.dropQuietly(e);
            throw e;
        }
    }

    /** {@link SqlServerEngine#BABELFISH} when {@code SERVERPROPERTY('Babelfish')} is 1, else SQL Server. */
    static SqlServerEngine engine(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SqlServerStatements.DETECT_ENGINE); ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getInt(1) == 1 ? SqlServerEngine.BABELFISH : SqlServerEngine.SQL_SERVER;
        }
    }

    /**
     * Run {@code sql} as a plain batch ({@code Statement.execute}, never an RPC): a SET in it stays on the session
     * ("SET Statements (Transact-SQL)", Considerations).
     */
    static void plain(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** The message table as the showplan names it: {@code [<prefix>messages]}. */
    String messagesInPlan() {
        return SqlServerNames.quote(prefix + "messages");
    }

    /** The message table, schema-qualified, for OBJECT_ID and sp_autostats. */
    String messagesQualified() {
        return sql.messagesTable();
    }

    /** The deduplication key table, schema-qualified, for OBJECT_ID. */
    String keysQualified() {
        return sql.dedupeKeysTable();
    }

    /** Fill the queue with {@code rows} rows: even ones priority 5 and delayed one hour, odd ones priority 0 and ready. */
    void fill(Connection c, int rows) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.probe("probeFill"), QUEUE, rows)) {
            ps.execute();
        }
    }

    /** Locks held by {@code c}'s session in this database, one line per type, mode and index, and the total. */
    static List<String> locks(Connection c, SqlServerStatements sql) throws SQLException {
        List<String> out = new ArrayList<>();
        long total = 0;
        try (PreparedStatement ps = c.prepareStatement(sql.probe("probeLocks")); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long n = rs.getLong("n");
                total += n;
                out.add(rs.getString("resource_type") + " " + rs.getString("request_mode") + " " + rs.getString("index_name")
                        + " " + n);
            }
        }
        out.add("total " + total);
        return out;
    }

    /** The number in the {@code total N} line of {@link #locks}. */
    static long total(List<String> locks) {
        String last = locks.get(locks.size() - 1);
        return Long.parseLong(last.substring("total ".length()));
    }

    /** Run one claim of up to {@code n} rows on {@code c} in its current transaction; returns the rows claimed. */
    int claim(Connection c, int n, int leaseMs) throws SQLException {
        try (PreparedStatement ps = Jdbc.prepare(c, sql.get("claim"), n, QUEUE, leaseMs); ResultSet rs = ps.executeQuery()) {
            int rows = 0;
            while (rs.next()) {
                rows++;
            }
            return rows;
        }
    }

    private void dropQuietly(Throwable cause) {
        try {
            close();
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /** Drop every table of the prefix (the backend's {@code dropSchema}). */
    @Override
    public void close() throws SQLException {
        try (Connection c = context.connect(); PreparedStatement ps = c.prepareStatement(sql.get("dropSchema"))) {
            ps.execute();
        }
    }

    /** The context as a DataSource, for Flyway and the backend's pool: a new connection each time. */
    DataSource dataSource() {
        ProbeContext ctx = context;
        return new ProbeDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return ctx.connect();
            }
        };
    }
}
