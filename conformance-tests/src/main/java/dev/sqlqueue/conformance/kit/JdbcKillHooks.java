package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.QueueConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kit's own session-kill hooks, plain JDBC chosen by URL prefix. Each kills only the sessions of
 * one case when it can single them out by the session tag ({@link KitUrls}); the hooks that cannot
 * (MariaDB without the performance schema, H2 in server mode) kill every other session of the same
 * user and database, and only when the user passed {@code --allow-kill}.
 *
 * <ul>
 *   <li>PostgreSQL: {@code pg_terminate_backend} on {@code pg_stat_activity} rows whose
 *       {@code application_name} is the tag (PostgreSQL manual, 9.28.2 Server Signaling Functions; the
 *       same role may signal its own backends).</li>
 *   <li>SQL Server: {@code KILL} on {@code sys.dm_exec_sessions} rows whose {@code program_name} is the
 *       tag (needs VIEW SERVER STATE and ALTER ANY CONNECTION). Not run here: no SQL Server exists on the
 *       project's machines.</li>
 *   <li>MariaDB/MySQL: {@code KILL CONNECTION} of the ids whose connection attribute
 *       {@code program_name} is the tag when {@code @@performance_schema} is on; else, with
 *       {@code --allow-kill}, of every other session of the same user on the same database.</li>
 *   <li>H2: {@code ABORT_SESSION} on every other session: in embedded mode they are all the kit's own;
 *       over TCP only with {@code --allow-kill}.</li>
 * </ul>
 */
final class JdbcKillHooks {
    private final String url;
    private final String user;
    private final String password;
    private final String backend;
    private final boolean allowKill;
    private volatile Boolean performanceSchema;

    JdbcKillHooks(String url, String user, String password, String backend, boolean allowKill) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.backend = backend;
        this.allowKill = allowKill;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    Optional<String> unavailable() {
        if (KitUrls.isPostgres(url) || KitUrls.isSqlServer(url)) {
            return KitUrls.userSetsTag(url)
                    ? Optional.of("the URL sets the application name, which the kit needs to tell its sessions apart")
                    : Optional.empty();
        }
        if (KitUrls.isMariaDb(url)) {
            if (KitUrls.userSetsTag(url) && !allowKill) {
                return Optional.of("the URL sets connectionAttributes, which the kit needs; killing sessions needs --allow-kill");
            }
            if (allowKill || performanceSchemaOn()) {
                return Optional.empty();
            }
            return Optional.of("killing sessions needs --allow-kill and a backend hook: performance_schema is off, so the kit"
                    + " cannot tell its sessions from others on this server; --allow-kill lets it kill every other"
                    + " session of this user on this database");
        }
        if (KitUrls.isH2(url)) {
            boolean server = url.startsWith("jdbc:h2:tcp:") || url.startsWith("jdbc:h2:ssl:");
            return server && !allowKill
                    ? Optional.of("killing sessions needs --allow-kill and a backend hook: an H2 server may have other clients")
                    : Optional.empty();
        }
        return Optional.of("killing sessions needs --allow-kill and a backend hook: the kit has no session-kill hook for backend "
                + backend);
    }

    private boolean performanceSchemaOn() {
        Boolean on = performanceSchema;
        if (on == null) {
            try (Connection c = connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT @@performance_schema")) {
                on = rs.next() && rs.getInt(1) == 1;
            } catch (SQLException e) {
                on = false;
            }
            performanceSchema = on;
        }
        return on;
    }

    int kill(QueueConfig config) throws SQLException {
        Optional<String> why = unavailable();
        if (why.isPresent()) {
            throw new UnsupportedOperationException(why.get());
        }
        String tag = KitUrls.tag(config.tablePrefix());
        try (Connection c = connect()) {
            c.setAutoCommit(true);
            if (KitUrls.isPostgres(url)) {
                int killed = 0;
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
                    ps.setString(1, tag);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            killed += rs.getBoolean(1) ? 1 : 0;
                        }
                    }
                }
                return killed;
            }
            if (KitUrls.isSqlServer(url)) {
                return killIds(c, ids(c, "SELECT session_id FROM sys.dm_exec_sessions WHERE program_name = ? AND session_id <> @@SPID",
                        tag), "KILL ");
            }
            if (KitUrls.isMariaDb(url)) {
                List<Long> ids = !KitUrls.userSetsTag(url) && performanceSchemaOn()
                        ? ids(c, "SELECT PROCESSLIST_ID FROM performance_schema.session_connect_attrs"
                                + " WHERE ATTR_NAME = 'program_name' AND ATTR_VALUE = ? AND PROCESSLIST_ID <> CONNECTION_ID()", tag)
                        : ids(c, "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = SUBSTRING_INDEX(USER(), '@', 1)"
                                + " AND DB = DATABASE() AND ID <> CONNECTION_ID() AND COMMAND <> 'Killed'", null);
                return killIds(c, ids, "KILL CONNECTION ");
            }
            if (KitUrls.isH2(url)) {
                List<Long> ids = ids(c, "SELECT SESSION_ID FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()", null);
                int killed = 0;
                try (Statement st = c.createStatement()) {
                    for (long id : ids) {
                        try (ResultSet rs = st.executeQuery("SELECT ABORT_SESSION(" + id + ")")) {
                            killed += rs.next() && rs.getBoolean(1) ? 1 : 0;
                        }
                    }
                }
                return killed;
            }
        }
        throw new UnsupportedOperationException("no session-kill hook for " + backend);
    }

    private static List<Long> ids(Connection c, String sql, String tag) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (tag != null) {
                ps.setString(1, tag);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }

    /** Ids are numbers read from the server, so they are safe to concatenate. */
    private static int killIds(Connection c, List<Long> ids, String verb) throws SQLException {
        int killed = 0;
        try (Statement st = c.createStatement()) {
            for (long id : ids) {
                try {
                    st.execute(verb + id);
                    killed++;
                } catch (SQLException goneAlready) {
                    // the session ended between the listing and the kill
                }
            }
        }
        return killed;
    }
}
