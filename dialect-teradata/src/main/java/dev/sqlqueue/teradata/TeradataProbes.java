package dev.sqlqueue.teradata;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The experiments {@code sqlqueue probe --backend teradata} runs: V1 to V12, what the documentation and
 * the pinned driver's code do not settle. Each creates only the tables of the queue {@code <prefix>probe}
 * (with {@link ProbeContext#prefix()}: the queue table, and its dead-letter or keys table where needed),
 * in {@code teradata.database} or the session's default database, and drops them before returning.
 * Every statement comes from {@link TeradataStatements}.
 *
 * <p>The Teradata JDBC driver is not bundled (its licence): the user puts it on the class path, for
 * example {@code java -cp sqlqueue.jar:terajdbc.jar dev.sqlqueue.cli.Main probe --backend teradata --url
 * jdbc:teradata://host/TMODE=ANSI,CHARSET=UTF8 --user U --password P}. Not thread-safe (one probe at a time).
 */
public final class TeradataProbes {
    private TeradataProbes() {
    }

    /**
     * V1 to V6 as the first review named them, then what the re-review's section 4 asks: V7 a query
     * timeout, V8 {@code Connection.abort}, V9 error 2801 in each session mode, V10 the edge code points,
     * V11 the QITS round trip, V12 a closed socket under a blocked consume.
     *
     * @return the twelve probes, V1 to V12 in order, each new
     */
    public static List<Probe> all() {
        return List.of(new KeysProbe(), new LargeRowProbe(), new RedriveProbe(), new CancelProbe(),
                new UncommittedRowProbe(), new HelpSessionProbe(), new TimeoutProbe(), new AbortProbe(),
                new SessionModeProbe(), new RepertoireProbe(), new TimeRoundTripProbe(), new ClosedSocketProbe());
    }

    /**
     * A connection with auto-commit off. For a {@code jdbc:teradata:} URL without a data source, the
     * driver class is loaded first, so a missing jar gives a clear message.
     *
     * @throws SqlQueueException when the driver is not on the class path
     */
    static Connection connect(ProbeContext context) throws SQLException {
        String url = context.config().url();
        if (context.config().dataSource() == null && url != null && url.startsWith("jdbc:teradata:")) {
            try {
                Class.forName(TeradataProvider.DRIVER_CLASS);
            } catch (ClassNotFoundException e) {
                throw new SqlQueueException("the Teradata JDBC driver (" + TeradataProvider.DRIVER_CLASS + ") is not on the"
                        + " class path; sqlqueue does not bundle it: run java -cp sqlqueue.jar:terajdbc.jar"
                        + " dev.sqlqueue.cli.Main probe ...", e);
            }
        }
        Connection c = context.connect();
        c.setAutoCommit(false);
        return c;
    }

    /** The names of the probe's queue table ({@code <prefix>probe}) in the database to use. */
    static TeradataNames names(ProbeContext context, Connection c) throws SQLException {
        String db = TeradataOptions.from(context.config()).database();
        if (db == null) {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(TeradataStatements.currentDatabase())) {
                rs.next();
                db = rs.getString(1).trim();
            }
            c.commit();
        }
        return TeradataNames.of(context.prefix(), db, QueueName.of("probe"));
    }

    /** A probe's work on its queue's tables, with a connection that created them (auto-commit off). */
    interface OnQueue {
        ProbeResult run(Connection admin, TeradataNames n) throws Exception;
    }

    /**
     * Connects, creates the probe's queue table (with its dead-letter and keys tables when asked), runs
     * {@code work}, then drops every table of the probe's queue and closes the connection, whatever happened.
     */
    static ProbeResult withQueue(ProbeContext context, boolean deadLetters, boolean keys, OnQueue work) throws Exception {
        Connection admin = null;
        TeradataNames n = null;
        try {
            admin = connect(context);
            n = names(context, admin);
            createQueueTable(admin, n);
            if (deadLetters) {
                createDeadLetterTable(admin, n);
            }
            if (keys) {
                createKeysTable(admin, n);
            }
            return work.run(admin, n);
        } finally {
            dropQuietly(admin, n);
            if (admin != null) {
                admin.close();
            }
        }
    }

    /** Creates the probe's queue table (NO FALLBACK: it lives for seconds) and commits. */
    static void createQueueTable(Connection c, TeradataNames n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createQueueTable(n, false));
        }
        c.commit();
    }

    /** Inserts a message whose one-byte payload is {@code marker} and commits. */
    static void insertCommitted(Connection c, TeradataNames n, int marker) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement(TeradataStatements.insertMessage(n))) {
            ps.setString(1, "");
            ps.setBytes(2, new byte[] {(byte) marker});
            ps.executeUpdate();
        }
        c.commit();
    }

    /** Creates the probe's dead-letter table (a normal table, NO FALLBACK) and commits. */
    static void createDeadLetterTable(Connection c, TeradataNames n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createDeadLetterTable(n, false));
        }
        c.commit();
    }

    /** Creates the probe's keys table (NO FALLBACK) and commits. */
    static void createKeysTable(Connection c, TeradataNames n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createKeysTable(n, false));
        }
        c.commit();
    }

    /** Rolls back, drops each table of the probe's queue that is there, commits; never throws. */
    static void dropQuietly(Connection c, TeradataNames n) {
        if (c == null || n == null) {
            return;
        }
        for (String table : List.of(n.queueTable(), n.deadLetterTable(), n.keysTable())) {
            try {
                c.rollback();
                try (Statement st = c.createStatement()) {
                    st.execute(TeradataStatements.dropTable(table));
                }
                c.commit();
            } catch (SQLException ignored) {
                // not created, or the session is gone; the runner reports what the probe saw
            }
        }
    }

    /** The first column of a one-row count, read and then rolled back (the probes' ACCESS-lock counts). */
    static long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } finally {
            c.rollback();
        }
    }

    /** {@code [code/state] message} of an error, for the report. */
    static String describe(SQLException e) {
        return "[" + e.getErrorCode() + "/" + e.getSQLState() + "] " + e.getMessage();
    }

    /** The exception's class, and {@link #describe} for an {@link SQLException}: the raw observation. */
    static String describe(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
        return t.getClass().getSimpleName() + " " + (t instanceof SQLException s ? describe(s) : String.valueOf(t.getMessage()));
    }

    /**
     * A connection in Teradata (BTET) transaction mode with auto-commit off: the configured URL with
     * {@code TMODE=TERA} (Teradata JDBC Driver, connection parameter TMODE), or null when the probe was given
     * no URL.
     */
    static Connection connectTeradataMode(ProbeContext context) throws SQLException {
        String url = context.config().url();
        if (url == null || !url.startsWith("jdbc:teradata://")) {
            return null;
        }
        String tera = SessionMode.urlParameter(url, "TMODE").isPresent()
                ? url.replaceAll("(?i)TMODE=[A-Za-z]+", "TMODE=TERA")
                : url + (url.substring("jdbc:teradata://".length()).contains("/") ? "," : "/") + "TMODE=TERA";
        Connection c = java.sql.DriverManager.getConnection(tera, context.config().user(), context.config().password());
        c.setAutoCommit(false);
        return c;
    }
}
