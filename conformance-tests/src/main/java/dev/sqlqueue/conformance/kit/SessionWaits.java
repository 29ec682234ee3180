package dev.sqlqueue.conformance.kit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a case is waiting, seen from the server: what the database reports about the sessions of a
 * timed-out case, asked on a new connection with the user's own rights (no extra privilege is asked
 * for; what the user cannot see is reported as the database answered). A case's sessions are those
 * whose statement names its table prefix, or (PostgreSQL, SQL Server) that carry its session tag
 * ({@link KitUrls#tag}).
 *
 * <ul>
 *   <li>PostgreSQL: {@code pg_stat_activity} (state, {@code wait_event_type}/{@code wait_event},
 *       {@code pg_blocking_pids}) and the blocking sessions' rows.</li>
 *   <li>MariaDB/MySQL: {@code information_schema.PROCESSLIST} (the thread's {@code STATE}, such as
 *       "Waiting for table metadata lock"), then InnoDB's lock waits ({@code INNODB_LOCK_WAITS}, MariaDB;
 *       needs {@code PROCESS}) when the server has them.</li>
 *   <li>H2: {@code INFORMATION_SCHEMA.SESSIONS} ({@code SESSION_STATE}, {@code BLOCKER_ID}) and the
 *       blockers' rows.</li>
 *   <li>SQL Server: {@code sys.dm_exec_requests} ({@code wait_type}, {@code wait_resource},
 *       {@code blocking_session_id}) and the waiting requests of {@code sys.dm_tran_locks}. Other
 *       sessions are visible with {@code VIEW SERVER STATE} only. Written from Microsoft's documentation
 *       of these views; not run against a SQL Server by the project.</li>
 *   <li>Teradata and other URLs: none; the report says so.</li>
 * </ul>
 */
final class SessionWaits {
    private static final int MAX_ROWS = 4;

    private enum Bind { TAG, PREFIX }

    private record Query(String label, String sql, List<Bind> binds) {
    }

    private static final List<Query> POSTGRES = List.of(
            new Query("pg_stat_activity", "SELECT a.pid, a.state, a.wait_event_type, a.wait_event,"
                    + " pg_blocking_pids(a.pid)::text AS blocked_by,"
                    + " round(extract(epoch FROM clock_timestamp() - a.query_start)::numeric, 1) AS running_s,"
                    + " left(a.query, 200) AS query FROM pg_stat_activity a"
                    + " WHERE a.pid <> pg_backend_pid() AND a.state <> 'idle'"
                    + " AND (a.application_name = ? OR strpos(a.query, ?) > 0) ORDER BY a.query_start",
                    List.of(Bind.TAG, Bind.PREFIX)),
            new Query("blocking sessions (pg_stat_activity)", "SELECT b.pid, b.usename, b.application_name, b.state,"
                    + " round(extract(epoch FROM clock_timestamp() - b.xact_start)::numeric, 1) AS in_transaction_s,"
                    + " left(b.query, 200) AS last_query FROM pg_stat_activity b WHERE b.pid IN"
                    + " (SELECT unnest(pg_blocking_pids(a.pid)) FROM pg_stat_activity a"
                    + " WHERE a.application_name = ? OR strpos(a.query, ?) > 0)",
                    List.of(Bind.TAG, Bind.PREFIX)));

    private static final List<Query> MARIADB = List.of(
            new Query("information_schema.PROCESSLIST", "SELECT ID AS id, USER AS user, COMMAND AS command, TIME AS seconds,"
                    + " STATE AS state, LEFT(INFO, 200) AS query FROM information_schema.PROCESSLIST"
                    + " WHERE ID <> CONNECTION_ID() AND INSTR(INFO, ?) > 0 ORDER BY TIME DESC", List.of(Bind.PREFIX)),
            new Query("InnoDB lock waits", "SELECT r.trx_mysql_thread_id AS waiting_id, b.trx_mysql_thread_id AS blocking_id,"
                    + " b.trx_state AS blocking_state, LEFT(b.trx_query, 200) AS blocking_query"
                    + " FROM information_schema.INNODB_LOCK_WAITS w"
                    + " JOIN information_schema.INNODB_TRX r ON r.trx_id = w.requesting_trx_id"
                    + " JOIN information_schema.INNODB_TRX b ON b.trx_id = w.blocking_trx_id"
                    + " WHERE INSTR(r.trx_query, ?) > 0", List.of(Bind.PREFIX)));

    private static final List<Query> H2 = List.of(
            new Query("INFORMATION_SCHEMA.SESSIONS", "SELECT SESSION_ID, SESSION_STATE, BLOCKER_ID, EXECUTING_STATEMENT_START,"
                    + " LEFT(EXECUTING_STATEMENT, 200) AS EXECUTING_STATEMENT FROM INFORMATION_SCHEMA.SESSIONS"
                    + " WHERE SESSION_ID <> SESSION_ID() AND LOCATE(?, EXECUTING_STATEMENT) > 0", List.of(Bind.PREFIX)),
            new Query("blocking sessions (INFORMATION_SCHEMA.SESSIONS)", "SELECT SESSION_ID, SESSION_STATE, CONTAINS_UNCOMMITTED,"
                    + " LEFT(EXECUTING_STATEMENT, 200) AS EXECUTING_STATEMENT FROM INFORMATION_SCHEMA.SESSIONS"
                    + " WHERE SESSION_ID IN (SELECT BLOCKER_ID FROM INFORMATION_SCHEMA.SESSIONS"
                    + " WHERE LOCATE(?, EXECUTING_STATEMENT) > 0)", List.of(Bind.PREFIX)));

    /** Not run against a SQL Server by the project (none exists here). */
    private static final List<Query> SQLSERVER = List.of(
            new Query("sys.dm_exec_requests", "SELECT r.session_id, r.status, r.command, r.wait_type, r.wait_time AS wait_ms,"
                    + " r.wait_resource, r.blocking_session_id, LEFT(t.text, 200) AS query"
                    + " FROM sys.dm_exec_requests r JOIN sys.dm_exec_sessions s ON s.session_id = r.session_id"
                    + " OUTER APPLY sys.dm_exec_sql_text(r.sql_handle) t"
                    + " WHERE r.session_id <> @@SPID AND (s.program_name = ? OR CHARINDEX(?, t.text) > 0)",
                    List.of(Bind.TAG, Bind.PREFIX)),
            new Query("sys.dm_tran_locks (waiting)", "SELECT l.request_session_id AS session_id, l.resource_type,"
                    + " l.resource_description, l.request_mode, l.request_status FROM sys.dm_tran_locks l"
                    + " JOIN sys.dm_exec_sessions s ON s.session_id = l.request_session_id"
                    + " WHERE l.request_status = 'WAIT' AND s.program_name = ?", List.of(Bind.TAG)));

    private final String url;
    private final String user;
    private final String password;

    SessionWaits(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    private List<Query> queries() {
        if (KitUrls.isPostgres(url)) {
            return POSTGRES;
        }
        if (KitUrls.isMariaDb(url)) {
            return MARIADB;
        }
        if (KitUrls.isH2(url)) {
            return H2;
        }
        if (KitUrls.isSqlServer(url)) {
            return SQLSERVER;
        }
        return List.of();
    }

    /** Visible to the tests: the statements asked for this URL's database. */
    List<String> statements() {
        return queries().stream().map(Query::sql).toList();
    }

    /**
     * What the database reports about the sessions of these prefixes, one line per view asked: each row
     * as {@code column=value} pairs (nulls left out), or why the database could not say.
     */
    String describe(List<String> prefixes) {
        List<Query> queries = queries();
        if (queries.isEmpty()) {
            return "the kit has no query for session waits on this database";
        }
        List<String> parts = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            c.setAutoCommit(true);
            for (Query q : queries) {
                List<String> rows = new ArrayList<>();
                String error = null;
                for (String p : prefixes) {
                    try (PreparedStatement ps = c.prepareStatement(q.sql())) {
                        ps.setQueryTimeout(10);
                        for (int i = 0; i < q.binds().size(); i++) {
                            ps.setString(i + 1, q.binds().get(i) == Bind.TAG ? KitUrls.tag(p) : p);
                        }
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                rows.add(row(rs));
                            }
                        }
                    } catch (SQLException e) {
                        error = ResultCollector.oneLine(e.getMessage());
                    }
                }
                String shown = String.join("; ", rows.subList(0, Math.min(MAX_ROWS, rows.size())))
                        + (rows.size() > MAX_ROWS ? "; (" + (rows.size() - MAX_ROWS) + " more)" : "");
                parts.add(q.label() + ": " + (!rows.isEmpty() ? shown
                        : error != null ? "not available (" + ResultCollector.shorten(error, 160) + ")"
                        : "no row (none, or not visible to this user)"));
            }
        } catch (SQLException e) {
            return "cannot ask the database (" + ResultCollector.oneLine(e.getMessage()) + ")";
        }
        return String.join(" | ", parts);
    }

    private static String row(ResultSet rs) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        List<String> cells = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            String v = rs.getString(i);
            if (v != null) {
                cells.add(md.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT) + "=" + ResultCollector.oneLine(v));
            }
        }
        return "[" + String.join(", ", cells) + "]";
    }
}
