package dev.sqlqueue.conformance.kit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings of the server and of the JVM that change a conformance run's results, for the report header: the
 * isolation level a new connection gets, and per backend the settings the cases lean on (PostgreSQL's
 * {@code autovacuum}, MariaDB's {@code innodb_lock_wait_timeout}, H2's lock timeout). A setting that cannot be read
 * is reported as {@code unreadable}, never guessed.
 */
final class ServerSettings {
    /** Per backend: label to the query that reads it (one row, one column). */
    private static final Map<String, List<String[]>> QUERIES = Map.of(
            "postgresql", List.<String[]>of(
                    new String[] {"default_transaction_isolation", "SHOW default_transaction_isolation"},
                    new String[] {"autovacuum", "SHOW autovacuum"},
                    new String[] {"lock_timeout", "SHOW lock_timeout"}),
            "mariadb", List.<String[]>of(
                    new String[] {"tx_isolation", "SELECT @@tx_isolation"},
                    new String[] {"innodb_lock_wait_timeout", "SELECT @@innodb_lock_wait_timeout"},
                    new String[] {"lock_wait_timeout", "SELECT @@lock_wait_timeout"}),
            "h2", List.<String[]>of(
                    new String[] {"DEFAULT_LOCK_TIMEOUT", "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS"
                            + " WHERE SETTING_NAME = 'DEFAULT_LOCK_TIMEOUT'"},
                    new String[] {"MODE", "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'MODE'"}),
            "sqlserver", List.<String[]>of(
                    new String[] {"READ_COMMITTED_SNAPSHOT", "SELECT is_read_committed_snapshot_on FROM sys.databases"
                            + " WHERE name = DB_NAME()"}));

    private ServerSettings() {
    }

    /** The JVM: {@code java.version} and {@code java.vendor}. */
    static String java() {
        return System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")";
    }

    /** The OS: {@code os.name}, {@code os.version}, {@code os.arch}. */
    static String os() {
        return System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch");
    }

    /** {@code isolation <level of a new connection>; name=value; ...} read on {@code c}, for {@code backend}. */
    static String read(Connection c, String backend) {
        List<String> parts = new ArrayList<>();
        try {
            parts.add("isolation " + isolation(c.getTransactionIsolation()));
        } catch (SQLException e) {
            parts.add("isolation unreadable");
        }
        for (String[] q : QUERIES.getOrDefault(backend.startsWith("sqlserver") ? "sqlserver" : backend, List.of())) {
            parts.add(q[0] + "=" + value(c, q[1]));
        }
        return String.join("; ", parts);
    }

    private static String value(Connection c, String sql) {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? String.valueOf(rs.getString(1)) : "unreadable";
        } catch (SQLException e) {
            return "unreadable";
        }
    }

    private static String isolation(int level) {
        return switch (level) {
            case Connection.TRANSACTION_NONE -> "NONE";
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "READ UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "READ COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
            default -> "level " + level;
        };
    }
}
