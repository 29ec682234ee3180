package dev.sqlqueue.teradata;

import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks that sessions run in ANSI transaction mode with a Unicode session character set.
 *
 * <p>Two sources: the URL parameter {@code TMODE} (Teradata JDBC Driver User Guide, "Connection
 * Parameters": {@code ANSI}, {@code TERA} or {@code DEFAULT}), checked before connecting; and the row of
 * {@code HELP SESSION} (SQL Data Definition Language, "HELP SESSION"), whose "Transaction Semantics"
 * column reads {@code ANSI} or {@code Teradata} and whose "Character Set" column names the session
 * character set. Auto-commit is not checked but set: the backend turns it off on every connection it
 * uses and restores it before giving the connection back.
 *
 * <p>Stateless and thread-safe.
 */
public final class SessionMode {
    private SessionMode() {
    }

    /**
     * The value of a {@code NAME=value} parameter of a Teradata JDBC URL ({@code jdbc:teradata://host/A=1,B=2}).
     *
     * @param url the JDBC URL, may be null
     * @param name the parameter's name, compared without regard to case
     * @return the parameter's value, trimmed; empty when the URL is null, not a {@code jdbc:teradata://} URL
     *     with a parameter part, or lacks the parameter
     */
    public static Optional<String> urlParameter(String url, String name) {
        if (url == null) {
            return Optional.empty();
        }
        int slash = url.indexOf('/', "jdbc:teradata://".length());
        if (!url.startsWith("jdbc:teradata://") || slash < 0) {
            return Optional.empty();
        }
        for (String part : url.substring(slash + 1).split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0 && part.substring(0, eq).trim().equalsIgnoreCase(name)) {
                return Optional.of(part.substring(eq + 1).trim());
            }
        }
        return Optional.empty();
    }

    /**
     * Rejects a URL that asks for a mode other than ANSI.
     *
     * @param url the JDBC URL, may be null (accepted: nothing to check)
     * @throws SqlQueueException if {@code TMODE} is present and not {@code ANSI}
     */
    public static void checkUrl(String url) {
        Optional<String> tmode = urlParameter(url, "TMODE");
        if (tmode.isPresent() && !tmode.get().equalsIgnoreCase("ANSI")) {
            throw new SqlQueueException("the teradata backend needs ANSI transaction mode, but the URL sets TMODE="
                    + tmode.get() + "; use TMODE=ANSI (in Teradata mode every consume would commit on its own,"
                    + " which loses messages on a crash)");
        }
    }

    /**
     * Reads {@code HELP SESSION} on the connection and fails unless the transaction semantics are ANSI and
     * the character set is UTF8 or UTF16.
     *
     * @param c an open connection to the Teradata session to check; left as it was
     * @throws SqlQueueException naming the setting to change
     * @throws SQLException if HELP SESSION itself fails
     */
    public static void checkSession(Connection c) throws SQLException {
        String semantics;
        String charset;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(TeradataStatements.helpSession())) {
            if (!rs.next()) {
                throw new SqlQueueException("HELP SESSION returned no row; cannot check the transaction mode");
            }
            semantics = column(rs, "Transaction Semantics");
            charset = column(rs, "Character Set");
        }
        if (semantics == null || !semantics.trim().equalsIgnoreCase("ANSI")) {
            throw new SqlQueueException("the teradata backend needs ANSI transaction mode, but HELP SESSION reports"
                    + " transaction semantics '" + semantics + "'; add TMODE=ANSI to the JDBC URL");
        }
        String cs = charset == null ? "" : charset.trim().toUpperCase(Locale.ROOT);
        if (!cs.equals("UTF8") && !cs.equals("UTF16")) {
            throw new SqlQueueException("the teradata backend needs a Unicode session character set for headers,"
                    + " but HELP SESSION reports '" + charset + "'; add CHARSET=UTF8 to the JDBC URL");
        }
    }

    private static String column(ResultSet rs, String label) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (label.equalsIgnoreCase(md.getColumnLabel(i).trim())) {
                return rs.getString(i);
            }
        }
        return null;
    }
}
