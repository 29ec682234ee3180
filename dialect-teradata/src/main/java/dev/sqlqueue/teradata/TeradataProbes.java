package dev.sqlqueue.teradata;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The experiments {@code sqlqueue probe --backend teradata} runs: review points V1 to V6, which the
 * documentation does not settle. Each creates at most one queue table named {@code <prefix>probe} (with
 * {@link ProbeContext#prefix()}), in {@code teradata.database} or the session's default database, and
 * drops it before returning. Every statement comes from {@link TeradataStatements}.
 *
 * <p>The Teradata JDBC driver is not bundled (its licence): the user puts it on the class path, for
 * example {@code java -cp sqlqueue.jar:terajdbc.jar dev.sqlqueue.cli.Main probe --backend teradata --url
 * jdbc:teradata://host/TMODE=ANSI,CHARSET=UTF8 --user U --password P}. Not thread-safe (one probe at a time).
 */
public final class TeradataProbes {
    private TeradataProbes() {
    }

    /** V1 to V6, in the order of the review. */
    public static List<Probe> all() {
        return List.of(new KeysProbe(), new LargeRowProbe(), new RedriveProbe(), new CancelProbe(),
                new UncommittedRowProbe(), new HelpSessionProbe());
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

    /** Creates the probe's queue table (NO FALLBACK: it lives for seconds) and commits. */
    static void createQueueTable(Connection c, TeradataNames n) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(TeradataStatements.createQueueTable(n, false));
        }
        c.commit();
    }

    /** Rolls back, drops the probe's queue table if it is there, commits; never throws. */
    static void dropQuietly(Connection c, TeradataNames n) {
        if (c == null || n == null) {
            return;
        }
        try {
            c.rollback();
            try (Statement st = c.createStatement()) {
                st.execute(TeradataStatements.dropTable(n.queueTable()));
            }
            c.commit();
        } catch (SQLException ignored) {
            // nothing was created, or the session is gone; the runner reports what the probe saw
        }
    }

    /** {@code [code/state] message} of an error, for the report. */
    static String describe(SQLException e) {
        return "[" + e.getErrorCode() + "/" + e.getSQLState() + "] " + e.getMessage();
    }
}
