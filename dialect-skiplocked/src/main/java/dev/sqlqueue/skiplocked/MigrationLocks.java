package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The bound on the lock waits of a schema migration (issue 31 point 3). A migration's DDL asks for a table lock
 * that conflicts with every open transaction on the table (PostgreSQL {@code ACCESS EXCLUSIVE}, MariaDB's
 * exclusive metadata lock). While it waits, the server queues every later statement on that table behind it:
 * during a rolling upgrade the earlier release's transactional claims kept it waiting, and enqueues of other
 * processes waited with it (14 s and 13.4 s in the issue). Each attempt therefore waits at most
 * {@code migrate.lock-timeout} for a lock (PostgreSQL {@code lock_timeout}; MariaDB {@code lock_wait_timeout} and
 * {@code innodb_lock_wait_timeout}, whole seconds; H2 keeps its own {@code LOCK_TIMEOUT}, 2 s by default), set on
 * the migration's connections only and given back before they return to the pool; an attempt that gave up is
 * retried after a back-off (1 s, doubling, at most 16 s, jittered), {@code migrate.lock-attempts} times in all.
 * Immutable.
 *
 * @param lockTimeout {@code migrate.lock-timeout}: 100 ms to 10 min ({@code 2s}, {@code 500ms}, {@code 1m}, ISO-8601
 *     {@code PT2S}); default 2 s
 * @param attempts {@code migrate.lock-attempts}: 1 to 1,000; default 6
 */
record MigrationLocks(Duration lockTimeout, int attempts) {
    /** The option key of {@link #lockTimeout()}. */
    static final String LOCK_TIMEOUT = "migrate.lock-timeout";
    /** The option key of {@link #attempts()}. */
    static final String LOCK_ATTEMPTS = "migrate.lock-attempts";
    /** The keys every provider of this module reads. */
    static final Set<String> KEYS = Set.of(LOCK_TIMEOUT, LOCK_ATTEMPTS);

    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)");

    /** @throws InvalidInputException naming the option when a value is out of its range */
    static MigrationLocks from(QueueConfig config) {
        Duration timeout = Duration.ofSeconds(2);
        String text = config.option(LOCK_TIMEOUT, null);
        if (text != null) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            timeout = null;
            Matcher m = SHORT_DURATION.matcher(t);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                timeout = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    default -> Duration.ofMinutes(n);
                };
            } else if (t.startsWith("pt")) {
                try {
                    timeout = Duration.parse(t.toUpperCase(Locale.ROOT));
                } catch (RuntimeException e) {
                    timeout = null;
                }
            }
            if (timeout == null || timeout.toMillis() < 100 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new InvalidInputException(LOCK_TIMEOUT, "option " + LOCK_TIMEOUT + " must be a duration of 100ms to 10m"
                        + " (such as 2s, 500ms, PT2S), was '" + text + "'");
            }
        }
        int attempts = 6;
        String n = config.option(LOCK_ATTEMPTS, null);
        if (n != null) {
            try {
                attempts = Integer.parseInt(n.trim());
            } catch (NumberFormatException e) {
                attempts = 0;
            }
            if (attempts < 1 || attempts > 1000) {
                throw new InvalidInputException(LOCK_ATTEMPTS, "option " + LOCK_ATTEMPTS + " must be 1..1000, was '" + n + "'");
            }
        }
        return new MigrationLocks(timeout, attempts);
    }

    /** The pause before attempt {@code next} (2, 3, ...): 1 s doubling to at most 16 s, jittered to 50-100 %. */
    static long backoffMillis(int next) {
        long full = Math.min(16_000L, 1_000L << Math.min(4, next - 2));
        return full / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(full / 2 + 1);
    }

    /** Whether {@code t} (or a cause) is the server giving up a lock wait: PostgreSQL 55P03, MariaDB 1205, H2 50200. */
    static boolean isLockTimeout(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && ("55P03".equals(s.getSQLState()) || s.getErrorCode() == 1205
                    || s.getErrorCode() == 50200)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code ds} for Flyway: each connection it hands out waits at most {@link #lockTimeout()} for a lock, and
     * gets the session's earlier setting back when it is closed (it goes back to the pool the claims use).
     */
    DataSource bounded(DataSource ds, SkipLockedDialect dialect, boolean transactionPooler) {
        // through a transaction pooler a session setting would stay on a server connection that other clients'
        // transactions then use (pgbouncer 1.18 does not track lock_timeout): the role's own setting applies there
        if (dialect == SkipLockedDialect.H2 || transactionPooler) {
            return ds;
        }
        return new BoundedDataSource(ds, dialect, lockTimeout);
    }

    private static final class BoundedDataSource implements DataSource {
        private final DataSource ds;
        private final SkipLockedDialect dialect;
        private final Duration timeout;

        BoundedDataSource(DataSource ds, SkipLockedDialect dialect, Duration timeout) {
            this.ds = ds;
            this.dialect = dialect;
            this.timeout = timeout;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return bound(ds.getConnection());
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return bound(ds.getConnection(user, password));
        }

        private Connection bound(Connection c) throws SQLException {
            List<String> restore = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                if (dialect == SkipLockedDialect.POSTGRES) {
                    try (ResultSet rs = st.executeQuery("SELECT current_setting('lock_timeout')")) {
                        rs.next();
                        restore.add("SELECT set_config('lock_timeout', '" + rs.getString(1).replace("'", "''") + "', false)");
                    }
                    st.execute("SET lock_timeout = " + timeout.toMillis());
                } else {
                    try (ResultSet rs = st.executeQuery("SELECT @@SESSION.lock_wait_timeout, @@SESSION.innodb_lock_wait_timeout")) {
                        rs.next();
                        restore.add("SET SESSION lock_wait_timeout = " + rs.getBigDecimal(1).toPlainString()
                                + ", innodb_lock_wait_timeout = " + rs.getLong(2));
                    }
                    long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
                    st.execute("SET SESSION lock_wait_timeout = " + seconds + ", innodb_lock_wait_timeout = " + seconds);
                }
                if (!c.getAutoCommit()) {
                    c.commit();
                }
            } catch (SQLException e) {
                c.close();
                throw e;
            }
            return (Connection) Proxy.newProxyInstance(MigrationLocks.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("close") && method.getParameterCount() == 0) {
                            try {
                                if (!c.isClosed()) {
                                    if (!c.getAutoCommit()) {
                                        c.rollback();
                                    }
                                    try (Statement st = c.createStatement()) {
                                        for (String s : restore) {
                                            st.execute(s);
                                        }
                                    }
                                    if (!c.getAutoCommit()) {
                                        c.commit();
                                    }
                                }
                            } catch (SQLException e) {
                                // a broken connection: the pool drops it; nothing to give back
                            } finally {
                                c.close();
                            }
                            return null;
                        }
                        try {
                            return method.invoke(c, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return ds.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            ds.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            ds.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return ds.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws java.sql.SQLFeatureNotSupportedException {
            return ds.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return ds.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return ds.isWrapperFor(iface);
        }
    }

    /**
     * The sessions that hold what the migration waited for, one line each, for the error and the log: PostgreSQL,
     * the sessions with a granted lock on a table of the prefix; MariaDB, the sessions with an open InnoDB
     * transaction (a metadata lock's holder is not listed without the METADATA_LOCK_INFO plugin); H2, the
     * sessions with uncommitted changes. Empty when they cannot be read.
     */
    static List<String> blockers(DataSource ds, SkipLockedDialect dialect, String prefix) {
        String sql = switch (dialect) {
            case POSTGRES -> "SELECT DISTINCT a.pid, a.application_name, a.usename, a.client_addr::text, a.state,"
                    + " floor(extract(epoch FROM now() - a.xact_start))::bigint, left(a.query, 120)"
                    + " FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_stat_activity a ON a.pid = l.pid"
                    + " WHERE l.granted AND c.relnamespace = current_schema()::regnamespace AND left(c.relname, length(?)) = ?"
                    + " AND a.pid <> pg_backend_pid() ORDER BY 1";
            case MARIADB -> "SELECT t.trx_mysql_thread_id, '', p.USER, p.HOST, p.COMMAND,"
                    + " TIMESTAMPDIFF(SECOND, t.trx_started, NOW()), LEFT(p.INFO, 120)"
                    + " FROM information_schema.INNODB_TRX t LEFT JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
                    + " WHERE t.trx_mysql_thread_id <> CONNECTION_ID() AND ? = ? ORDER BY 1";
            case H2 -> "SELECT SESSION_ID, '', USER_NAME, '', STATE, DATEDIFF('SECOND', SESSION_START, CURRENT_TIMESTAMP),"
                    + " LEFT(EXECUTING_STATEMENT, 120) FROM INFORMATION_SCHEMA.SESSIONS"
                    + " WHERE CONTAINS_UNCOMMITTED AND SESSION_ID <> SESSION_ID() AND ? = ? ORDER BY 1";
        };
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, prefix);
                ps.setString(2, prefix);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next() && out.size() < 20) {
                        String app = rs.getString(2);
                        out.add("session " + rs.getLong(1) + (app == null || app.isEmpty() ? "" : " (" + app + ")")
                                + " user " + rs.getString(3) + (rs.getString(4) == null || rs.getString(4).isEmpty() ? "" : "@" + rs.getString(4))
                                + ", " + rs.getString(5) + ", transaction open " + rs.getLong(6) + " s"
                                + (rs.getString(7) == null ? "" : ", last statement: " + rs.getString(7).replaceAll("\\s+", " ")));
                    }
                }
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        } catch (SQLException e) {
            out.add("(the sessions holding the locks could not be read: " + e.getMessage() + ")");
        }
        return out;
    }
}
