package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A model of mssql-jdbc and SQL Server that keeps the state the documentation defines, for call-sequence
 * tests: per session {@code @@TRANCOUNT}, IMPLICIT_TRANSACTIONS, NOCOUNT, XACT_ABORT, savepoints, and
 * every change a statement made with the transaction it belongs to; server-wide, application locks.
 * Statements are read by {@link Tsql}; results of statements the model does not compute are scripted by
 * the test ({@link #rows}); a script the model can prove impossible is rejected
 * ({@link ImpossibleResultException}). Broker rules are a separate {@link Extension} ({@link BrokerModel}).
 *
 * <p>Rules and their sources (each also at the code that applies it):
 * <ul>
 *   <li>mssql-jdbc 13.2.1 ({@code SQLServerConnection}, strings in the jar as the Service Broker review
 *       quotes them): {@code setAutoCommit(false)} sends {@code set implicit_transactions on};
 *       {@code setAutoCommit(true)} sends {@code IF @@TRANCOUNT > 0 COMMIT TRAN} then
 *       {@code set implicit_transactions off}, and nothing when the mode does not change;
 *       {@code commit()} sends {@code IF @@TRANCOUNT > 0 COMMIT TRAN} (nothing in auto-commit mode);
 *       {@code rollback()} sends {@code IF @@TRANCOUNT > 0 ROLLBACK TRAN} and throws in auto-commit
 *       mode; {@code setSavepoint} throws in auto-commit mode and otherwise sends {@code IF @@TRANCOUNT = 0
 *       BEGIN BEGIN TRAN IF @@TRANCOUNT = 2 COMMIT TRAN END SAVE TRAN name}, so it opens a transaction
 *       when none is open; {@code rollback(Savepoint)} sends {@code IF @@TRANCOUNT > 0 ROLLBACK TRAN name}.</li>
 *   <li>"SET IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks: with the option ON and {@code @@TRANCOUNT = 0},
 *       only ALTER TABLE, BEGIN TRANSACTION, CREATE, DELETE, DROP, FETCH, GRANT, INSERT, MERGE, OPEN,
 *       REVOKE, SELECT (from a table), TRUNCATE TABLE and UPDATE open a transaction. Every other
 *       statement (SET, DECLARE, EXEC, SELECT without FROM, SEND, RECEIVE, BEGIN DIALOG, END
 *       CONVERSATION, ALTER QUEUE) runs and commits on its own.</li>
 *   <li>"BEGIN TRANSACTION (Transact-SQL)" / "SET IMPLICIT_TRANSACTIONS", Remarks: in implicit mode a
 *       BEGIN TRANSACTION at {@code @@TRANCOUNT = 0} opens the implicit and the explicit transaction
 *       ({@code @@TRANCOUNT} becomes 2; this is why the driver's savepoint batch commits once at 2).</li>
 *   <li>"COMMIT TRANSACTION (Transact-SQL)": at {@code @@TRANCOUNT > 1} it only decrements; at 1 it
 *       commits; at 0 it fails with error 3902. "ROLLBACK TRANSACTION (Transact-SQL)": without a name it
 *       rolls back everything and sets {@code @@TRANCOUNT} to 0 (3903 at 0); with a savepoint name it
 *       undoes the work after the savepoint and leaves {@code @@TRANCOUNT} alone (6401 for an unknown
 *       name). "SAVE TRANSACTION (Transact-SQL)": error 628 without an active transaction.</li>
 *   <li>"sp_getapplock (Transact-SQL)", Arguments: with {@code @LockOwner = 'Transaction'} (the default)
 *       it must run inside a transaction; outside one it returns -999 (the procedure's body raises
 *       informational message 15626, severity 10, which JDBC does not throw). A transaction-owned lock
 *       is released when the transaction ends.</li>
 *   <li>"SET Statements (Transact-SQL)", Considerations: a SET option changed inside a dynamic SQL batch
 *       run by sp_executesql is restored when it returns; set in an ordinary batch it stays for the
 *       session. mssql-jdbc sends a PreparedStatement through sp_executesql/sp_prepexec unless the
 *       connection property {@code prepareMethod=none} (13.4.0+), which sends it as a plain batch with
 *       the parameters substituted ("sqlserver-tables" review, finding 1, quoting
 *       {@code SQLServerPreparedStatement.doPrepExec}). A plain {@code Statement} is a plain batch.</li>
 *   <li>mssql-jdbc {@code prepareMethod} is a property of each connection: {@code ISQLServerConnection}
 *       (13.2.1) has {@code getPrepareMethod}/{@code setPrepareMethod}; a PreparedStatement decides at
 *       creation whether it is a plain batch ({@link Session#prepareMethod}). {@code Connection.abort}
 *       ends the session like a close: the server rolls back its open transaction.</li>
 *   <li>"SET XACT_ABORT (Transact-SQL)": with ON, a run-time error rolls back the whole transaction.
 *       Error 1205 (deadlock victim) always rolls back the victim's transaction ("Deadlocks guide").</li>
 *   <li>"THROW (Transact-SQL)": ends the batch with the given error number.</li>
 *   <li>Query timeout ({@link #blocks}): a statement that waits on a lock held elsewhere (READPAST skips
 *       row locks only; "SET LOCK_TIMEOUT (Transact-SQL)": the default -1 waits for ever) returns only
 *       when its query timeout ({@code Statement.setQueryTimeout}, 0 = none) runs out. mssql-jdbc then
 *       sends a TDS attention ("MS-TDS" 2.2.1.7 / 3.2.5.x, Attention: the only way to interrupt a request
 *       already sent; the client reads until the attention acknowledgement) and throws
 *       {@link java.sql.SQLTimeoutException} "The query has timed out." (13.2.1: {@code SQLServerStatement}
 *       rethrows driver error 9 as {@code SQLTimeoutException}, read from the jar with {@code javap};
 *       SQLState HY008 as its resource string). The interrupted statement's work is undone; the open
 *       transaction is <em>not</em> ended by the model. Microsoft Learn does not document what an
 *       attention does to an open transaction ("SET XACT_ABORT (Transact-SQL)" speaks of run-time
 *       errors only; the "Attention Event Class" page says only that driver time-outs appear as
 *       attentions). Third-party sources say it stays open, blocking others ("Attention events can cause
 *       open transactions and blocking in SQL Server", MSDN blog, 2010; dba.stackexchange.com questions
 *       10912 and 338852), and the same answers say {@code XACT_ABORT ON} rolls it back. The model keeps
 *       it open whatever XACT_ABORT is: the case code must survive by rolling back itself. Without a
 *       query timeout the statement would wait for ever: the model throws {@link WouldHangError}.</li>
 * </ul>
 * Conditions the model cannot evaluate (anything but {@code @@TRANCOUNT} and {@code XACT_STATE()}
 * comparisons) run neither branch, and a WHILE body never runs: the model does not claim work the
 * documentation cannot decide for it.
 *
 * <p>Thread-safe: every call takes the model's lock (a statement is atomic in the model).
 */
public final class SqlServerModel {
    /** How mssql-jdbc sends a PreparedStatement (connection property {@code prepareMethod}). */
    public enum PrepareMethod { PREPEXEC, PREPARE, NONE }

    /** Scripts the next result of a statement text. */
    private final Map<String, Deque<Object>> scripts = new HashMap<>();
    private final Map<String, List<String>> labels = new HashMap<>();
    private final Map<String, List<Tsql.Node>> parsed = new ConcurrentHashMap<>();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private final List<Effect> effects = new ArrayList<>();
    private final List<Session> sessions = new ArrayList<>();
    private final List<Extension> extensions = new ArrayList<>();
    /** Application locks held: resource (lower case) to holder session id. */
    private final Map<String, Integer> applocks = new HashMap<>();
    private Integer applockRefusal;
    private PrepareMethod prepareMethod = PrepareMethod.PREPEXEC;

    // ---- configuration and scripts -------------------------------------------------------------

    /** The driver's {@code prepareMethod} for every connection (default {@code prepexec}). */
    public synchronized SqlServerModel prepareMethod(PrepareMethod m) {
        this.prepareMethod = m;
        return this;
    }

    public synchronized PrepareMethod prepareMethod() {
        return prepareMethod;
    }

    /**
     * The next execution of {@code sql} returns these rows as its first result set (the last script of a
     * text repeats). Rejected for a text whose result the model computes (RECEIVE, sp_getapplock).
     */
    public synchronized SqlServerModel rows(String sql, Object[]... rows) {
        checkScript(sql);
        scripts.computeIfAbsent(sql, k -> new ArrayDeque<>()).add(List.of(rows));
        return this;
    }

    /** As {@link #rows}, with column labels for {@code ResultSet.getXxx(String)}. */
    public synchronized SqlServerModel labelled(String sql, List<String> columnLabels, Object[]... rows) {
        labels.put(sql, List.copyOf(columnLabels));
        return rows(sql, rows);
    }

    /**
     * The next execution of {@code sql} fails with this error before any of its statements runs. The
     * failure's documented consequences apply: 1205 or XACT_ABORT ON roll the whole transaction back.
     */
    public synchronized SqlServerModel fail(String sql, int errorCode, String sqlState) {
        scripts.computeIfAbsent(sql, k -> new ArrayDeque<>()).add(new SQLException("scripted failure " + errorCode, sqlState, errorCode));
        return this;
    }

    /**
     * Every later execution of {@code sql} waits on a lock another session holds (a table lock, an
     * escalated lock): it ends only by its query timeout (the driver's attention and
     * {@link java.sql.SQLTimeoutException}; the open transaction stays open), or, with none, it would
     * hang: {@link WouldHangError}.
     */
    public synchronized SqlServerModel blocks(String sql) {
        blocked.add(sql);
        return this;
    }

    /** The query timeout (seconds, 0 = none) of the last execution of {@code sql}, or null if it never ran. */
    public synchronized Integer queryTimeoutOf(String sql) {
        return queryTimeouts.get(sql);
    }

    /** A statement that would wait for ever: no query timeout while it waits on a lock held elsewhere. */
    public static final class WouldHangError extends AssertionError {
        WouldHangError(String sql) {
            super("this statement waits on a lock held by another session and has no query timeout: it would hang"
                    + " (LOCK_TIMEOUT -1 by default): " + sql);
        }
    }

    /**
     * From now on the server stops answering without closing any connection (a network partition, a dropped NAT
     * entry, a frozen host; review N4): a statement in {@link #blocks} then never gets its attention answered,
     * so its query timeout does not return ({@code TDSTimeoutTask}: "If TCP Connection to server is silently
     * dropped, exceeding the query timeout on the same connection does not throw SQLTimeoutException"). Only
     * the connection's network timeout ends it: mssql-jdbc {@code TDSChannel.read} catches the socket's
     * {@link java.net.SocketTimeoutException} and calls {@code SQLServerConnection.terminate(ERROR_SOCKET_TIMEOUT,
     * ...)}, which closes the connection and throws {@code SQLServerException} "Read timed out" with SQLState
     * 08S01 (08006 mapped by {@code SQLServerException.mapFromXopen}) and error code 0. The server rolls the
     * session's transaction back when it ends the session. Without a network timeout the statement would wait
     * for ever: {@link WouldHangError}.
     */
    public synchronized SqlServerModel silentServer() {
        silent = true;
        return this;
    }

    private boolean silent;
    private final java.util.Set<String> blocked = new java.util.HashSet<>();
    private final Map<String, Integer> queryTimeouts = new HashMap<>();

    /** Every later sp_getapplock that would be granted returns this instead (-1 time-out, -2 cancelled, -3 deadlock). */
    public synchronized SqlServerModel refuseApplocks(int result) {
        if (result >= 0 || result == -999) {
            throw new ImpossibleResultException("a refusal is -1, -2 or -3; -999 is the model's answer outside a transaction");
        }
        applockRefusal = result;
        return this;
    }

    synchronized void install(Extension e) {
        extensions.add(e);
    }

    private void checkScript(String sql) {
        for (Extension e : extensions) {
            e.checkScript(sql);
        }
        for (Tsql.Node n : parse(sql)) {
            if (n instanceof Tsql.Simple s && s.stmt().kind() == Tsql.Kind.APPLOCK) {
                throw new ImpossibleResultException("sp_getapplock's return value is computed by the model (-999 outside a"
                        + " transaction, 0 granted); use refuseApplocks(-1) for a time-out: " + sql);
            }
        }
    }

    // ---- observation ------------------------------------------------------------------------------

    /** A DataSource whose every getConnection() opens a new session. */
    public DataSource dataSource() {
        return ModelJdbc.dataSource(this);
    }

    /**
     * Every recorded call, in order: {@code cN exec <sql> <-- [params]}, {@code cN commit}, ... The
     * driver's calls say what they did ({@code cN commit (no-op: @@TRANCOUNT = 0, nothing was open)}).
     */
    public List<String> log() {
        synchronized (log) {
            return log.stream().filter(x -> !x.contains(NOTE)).collect(Collectors.toList());
        }
    }

    /** {@link #log()} with the model's notes between the calls (which statement opened a transaction, ...). */
    public List<String> trace() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    private static final String NOTE = "   (";

    public List<String> logContaining(String fragment) {
        return log().stream().filter(c -> c.contains(fragment)).collect(Collectors.toList());
    }

    /** The SQL texts executed by the code under test (not the driver's own commands), in order. */
    public List<String> executedSql() {
        return log().stream().filter(c -> c.contains(" exec ")).map(c -> c.substring(c.indexOf(" exec ") + 6, c.indexOf(" <-- ")))
                .collect(Collectors.toList());
    }

    public synchronized List<Effect> effects() {
        return List.copyOf(effects);
    }

    /** Changes of this kind (INSERT, SEND, RECEIVE, ...) whose text contains {@code fragment}. */
    public synchronized List<Effect> effects(String kind, String fragment) {
        return effects.stream().filter(e -> e.kind().equals(kind) && e.text().contains(fragment)).collect(Collectors.toList());
    }

    public synchronized Session session(int id) {
        return sessions.get(id - 1);
    }

    public synchronized int sessionsOpened() {
        return sessions.size();
    }

    // ---- sessions and the driver's commands --------------------------------------------------------

    synchronized Session open() {
        Session s = new Session(sessions.size() + 1);
        s.prepareMethod = prepareMethod;
        sessions.add(s);
        return s;
    }

    /** mssql-jdbc setPrepareMethod on one connection ({@link Session#prepareMethod}). */
    synchronized void setPrepareMethod(Session s, PrepareMethod m) {
        s.prepareMethod = m;
        note(s, "prepareMethod=" + m.name().toLowerCase(Locale.ROOT));
    }

    /**
     * JDBC {@code Connection.abort}: the driver closes the physical connection; the server ends the
     * session and rolls back its open transaction ("KILL (Transact-SQL)"/session end: uncommitted work is
     * rolled back), like {@link #close}.
     */
    synchronized void abort(Session s) {
        note(s, "abort");
        close(s);
    }

    void note(Session s, String what) {
        log.add("c" + s.id + " " + what);
    }

    /** mssql-jdbc setAutoCommit: nothing when unchanged; ON commits an open transaction first. */
    synchronized void setAutoCommit(Session s, boolean on) throws SQLException {
        checkOpen(s);
        if (on == s.driverAutoCommit) {
            return;
        }
        int before = s.tranCount;
        command(s, on ? "IF @@TRANCOUNT > 0 COMMIT TRAN set implicit_transactions off" : "set implicit_transactions on");
        s.driverAutoCommit = on;
        note(s, "autoCommit=" + on + (on && before > 0 && s.tranCount == 0 ? " (committed the open transaction)" : ""));
    }

    /** mssql-jdbc commit(): nothing in auto-commit mode; otherwise commits one level if any is open. */
    synchronized void commit(Session s) throws SQLException {
        checkOpen(s);
        if (s.driverAutoCommit) {
            note(s, "commit (auto-commit mode: nothing sent)");
            return;
        }
        int before = s.tranCount;
        command(s, "IF @@TRANCOUNT > 0 COMMIT TRAN");
        note(s, before == 0 ? "commit (no-op: @@TRANCOUNT = 0, nothing was open)" : before == 1 ? "commit" : "commit (one level of " + before + ")");
    }

    private Integer rollbackFailure;

    /**
     * The next {@code Connection.rollback()} fails with this error and sends nothing (a session that is
     * alive but whose rollback request failed, for example on a network time-out).
     */
    public synchronized SqlServerModel failNextRollback(int errorCode) {
        rollbackFailure = errorCode;
        return this;
    }

    synchronized void rollback(Session s) throws SQLException {
        checkOpen(s);
        if (rollbackFailure != null) {
            int code = rollbackFailure;
            rollbackFailure = null;
            note(s, "rollback failed (scripted, error " + code + "; nothing was sent)");
            throw new SQLException("scripted rollback failure " + code, "08S01", code);
        }
        if (s.driverAutoCommit) {
            throw new SQLException("The rollback method is not valid when auto-commit mode is set to true.", "S0011", 0);
        }
        int before = s.tranCount;
        command(s, "IF @@TRANCOUNT > 0 ROLLBACK TRAN");
        note(s, before == 0 ? "rollback (no-op: @@TRANCOUNT = 0)" : "rollback");
    }

    synchronized void setSavepoint(Session s, String label) throws SQLException {
        checkOpen(s);
        if (s.driverAutoCommit) {
            throw new SQLException("The savepoint cannot be set when auto-commit mode is on.", "S0011", 0);
        }
        int before = s.tranCount;
        command(s, "IF @@TRANCOUNT = 0 BEGIN BEGIN TRAN IF @@TRANCOUNT = 2 COMMIT TRAN END SAVE TRAN " + label);
        note(s, "savepoint " + label + (before == 0 ? " (opened the transaction)" : ""));
    }

    synchronized void rollbackTo(Session s, String label) throws SQLException {
        checkOpen(s);
        if (s.driverAutoCommit) {
            throw new SQLException("The rollback method is not valid when auto-commit mode is set to true.", "S0011", 0);
        }
        command(s, "IF @@TRANCOUNT > 0 ROLLBACK TRAN " + label);
        note(s, "rollback to " + label);
    }

    /**
     * mssql-jdbc on a closed connection (closed by {@code close}, {@code abort} or the driver's own
     * {@code SQLServerConnection.terminate} after a network failure): {@code checkClosed} throws
     * "The connection is closed." with SQLState 08S01 from every method that would talk to the server.
     */
    private static void checkOpen(Session s) throws SQLException {
        if (s.closed) {
            throw new SQLException("The connection is closed.", "08S01", 0);
        }
    }

    synchronized void setIsolation(Session s, int level) {
        s.isolation = level;
        note(s, "isolation=" + level);
    }

    /** Closing a session ends it: the server rolls back an open transaction and frees session locks. */
    synchronized void close(Session s) {
        if (s.closed) {
            return;
        }
        boolean open = s.tranCount > 0;
        if (open) {
            endTransaction(s, false);
        }
        applocks.values().removeIf(v -> v == s.id);
        s.closed = true;
        note(s, "close" + (open ? " (the server rolled back the open transaction)" : ""));
    }

    private void command(Session s, String sql) throws SQLException {
        run(s, sql, List.of(), false);
    }

    // ---- batches -----------------------------------------------------------------------------------

    /** What the executing batch can see: the session, its parameters, and its variables. */
    final class Ctx {
        final Session session;
        final List<Object> params;
        final Map<String, Object> vars = new HashMap<>();

        Ctx(Session session, List<Object> params) {
            this.session = session;
            this.params = params;
        }

        /** The value of a variable bound from a parameter, or a parameter by 1-based marker number. */
        Object value(String variable) {
            return vars.get(variable.toLowerCase(Locale.ROOT));
        }

        Object param(int marker) {
            return marker - 1 < params.size() ? params.get(marker - 1) : null;
        }

        /** Records a change in the open transaction, or commits it at once at {@code @@TRANCOUNT = 0}. */
        Effect change(String kind, String text, Runnable undo, Runnable onCommit) {
            return SqlServerModel.this.change(session, kind, text, undo, onCommit);
        }

        SqlServerModel model() {
            return SqlServerModel.this;
        }
    }

    /** The outcome of a batch: its first result set's rows (null: none) and column labels. */
    record Outcome(List<Object[]> rows, List<String> labels) {
    }

    /**
     * Runs a batch from the code under test: logs it, applies a scripted failure, then every statement's
     * rules, and returns the first result set.
     *
     * @param rpc true if sent through sp_executesql/sp_prepexec (SET options are restored after it)
     */
    synchronized Outcome execute(Session s, String sql, List<Object> params, boolean rpc) throws SQLException {
        return execute(s, sql, params, rpc, 0);
    }

    /** As above, with the statement's query timeout in seconds (0: none). */
    synchronized Outcome execute(Session s, String sql, List<Object> params, boolean rpc, int queryTimeout) throws SQLException {
        if (s.closed) {
            throw new SQLException("The connection is closed.", "08S01", 0);
        }
        log.add("c" + s.id + " exec " + sql + " <-- " + render(params));
        queryTimeouts.put(sql, queryTimeout);
        if (blocked.contains(sql) && silent) {
            if (s.networkTimeoutMs == 0) {
                throw new WouldHangError(sql + " (the server is silent and the connection has no network timeout)");
            }
            note(s, "  (silent server: no answer within the network timeout of " + s.networkTimeoutMs
                    + " ms; the driver closed the connection)");
            close(s);
            throw new SQLException("Read timed out", "08S01", 0);
        }
        if (blocked.contains(sql)) {
            if (queryTimeout == 0) {
                throw new WouldHangError(sql);
            }
            // the attention: the batch stops, its statement's work is undone (nothing ran yet here), the
            // open transaction stays as it was (see the class comment)
            note(s, "  (blocked on a lock; query timeout " + queryTimeout + " s ran out: attention sent, the batch"
                    + " stopped, the open transaction is left open at @@TRANCOUNT = " + s.tranCount + ")");
            throw new java.sql.SQLTimeoutException("The query has timed out.", "HY008", 0);
        }
        Object script = next(sql);
        if (script instanceof SQLException e) {
            failed(s, e);
            throw e;
        }
        List<Object[]> produced = run(s, sql, params, rpc);
        if (script != null) {
            if (produced != null) {
                throw new ImpossibleResultException("the model computes this statement's result; a scripted one was given: " + sql);
            }
            @SuppressWarnings("unchecked")
            List<Object[]> rows = (List<Object[]>) script;
            return new Outcome(rows, labels.get(sql));
        }
        return new Outcome(produced, labels.get(sql));
    }

    private List<Object[]> run(Session s, String sql, List<Object> params, boolean rpc) throws SQLException {
        boolean nocount = s.nocount;
        boolean xactAbort = s.xactAbort;
        Ctx ctx = new Ctx(s, params);
        List<Object[]> out = null;
        try {
            for (Tsql.Node n : parse(sql)) {
                List<Object[]> r = node(ctx, n);
                if (out == null && r != null) {
                    out = r;
                }
            }
            return out;
        } catch (SQLException e) {
            failed(s, e);
            throw e;
        } finally {
            if (rpc) {
                // "SET Statements (Transact-SQL)", Considerations: restored when sp_executesql returns
                s.nocount = nocount;
                s.xactAbort = xactAbort;
            }
        }
    }

    private void failed(Session s, SQLException e) {
        if (s.tranCount > 0 && (s.xactAbort || e.getErrorCode() == 1205)) {
            endTransaction(s, false);
            note(s, "transaction rolled back by error " + e.getErrorCode() + (s.xactAbort ? " (XACT_ABORT ON)" : ""));
        }
    }

    private List<Tsql.Node> parse(String sql) {
        return parsed.computeIfAbsent(sql, Tsql::parse);
    }

    private List<Object[]> nodes(Ctx ctx, List<Tsql.Node> nodes) throws SQLException {
        List<Object[]> out = null;
        for (Tsql.Node n : nodes) {
            List<Object[]> r = node(ctx, n);
            if (out == null) {
                out = r;
            }
        }
        return out;
    }

    private List<Object[]> node(Ctx ctx, Tsql.Node n) throws SQLException {
        if (n instanceof Tsql.Simple simple) {
            return statement(ctx, simple.stmt());
        }
        if (n instanceof Tsql.If f) {
            Boolean c = evaluate(ctx.session, f.condition());
            if (c == null) {
                note(ctx.session, "  (model: IF " + f.condition() + " cannot be evaluated; neither branch runs)");
                return null;
            }
            return nodes(ctx, c ? f.then() : f.otherwise());
        }
        if (n instanceof Tsql.While w) {
            note(ctx.session, "  (model: WHILE " + w.condition() + " body not run)");
            return null;
        }
        Tsql.Block b = (Tsql.Block) n;
        return b.isCatch() ? null : nodes(ctx, b.body());
    }

    /** The conditions the model knows: comparisons of {@code @@TRANCOUNT} or {@code XACT_STATE()} with a number. */
    private static Boolean evaluate(Session s, String condition) {
        String c = condition.replace(" ", "").toUpperCase(Locale.ROOT);
        int value;
        String rest;
        if (c.startsWith("@@TRANCOUNT")) {
            value = s.tranCount;
            rest = c.substring("@@TRANCOUNT".length());
        } else if (c.startsWith("XACT_STATE()")) {
            // "XACT_STATE (Transact-SQL)": 1 active and committable, 0 none (the model never dooms a transaction)
            value = s.tranCount > 0 ? 1 : 0;
            rest = c.substring("XACT_STATE()".length());
        } else {
            return null;
        }
        for (String op : List.of("<>", ">=", "<=", "!=", "=", ">", "<")) {
            if (rest.startsWith(op)) {
                int k;
                try {
                    k = Integer.parseInt(rest.substring(op.length()));
                } catch (NumberFormatException e) {
                    return null;
                }
                return switch (op) {
                    case "<>", "!=" -> value != k;
                    case ">=" -> value >= k;
                    case "<=" -> value <= k;
                    case "=" -> value == k;
                    case ">" -> value > k;
                    default -> value < k;
                };
            }
        }
        return null;
    }

    private List<Object[]> statement(Ctx ctx, Tsql.Stmt st) throws SQLException {
        Session s = ctx.session;
        bindVariables(ctx, st);
        switch (st.kind()) {
            case SET_OPTION -> setOption(s, st);
            case NO_DATA, EXEC, ALTER_OTHER, UNKNOWN -> {
                // not on the implicit-transaction list: runs (and commits) on its own
                if (st.upper(0).equals("SELECT")) {
                    return selectVariables(ctx, st);
                }
                for (Extension e : extensions) {
                    if (e.execute(ctx, st) != null) {
                        return null;
                    }
                }
            }
            case OPENS_TRANSACTION, SELECT_FROM -> {
                implicitOpen(s, st);
                if (st.kind() == Tsql.Kind.OPENS_TRANSACTION) {
                    change(s, st.upper(0), st.text(), null, null);
                }
            }
            case BEGIN_TRAN -> {
                // implicit mode at @@TRANCOUNT = 0: the implicit and the explicit transaction (2)
                int add = s.implicitTransactions && s.tranCount == 0 ? 2 : 1;
                if (s.tranCount == 0) {
                    s.tx = new Transaction();
                }
                s.tranCount += add;
            }
            case COMMIT -> {
                if (s.tranCount == 0) {
                    throw new SQLException("The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3902);
                }
                if (s.tranCount == 1) {
                    endTransaction(s, true);
                } else {
                    s.tranCount--;
                }
            }
            case ROLLBACK -> {
                if (s.tranCount == 0) {
                    throw new SQLException("The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3903);
                }
                endTransaction(s, false);
            }
            case ROLLBACK_TO -> {
                String name = Tsql.unquote(st.tokens().get(2)).replace("[", "").replace("]", "");
                if (s.tranCount == 0) {
                    throw new SQLException("The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.", "S0001", 3903);
                }
                if (!s.tx.rollbackTo(name)) {
                    throw new SQLException("Cannot roll back " + name + ". No transaction or savepoint of that name was found.", "S0001", 6401);
                }
            }
            case SAVE_TRAN -> {
                if (s.tranCount == 0) {
                    throw new SQLException("Cannot issue SAVE TRANSACTION when there is no active transaction.", "S0001", 628);
                }
                s.tx.save(st.tokens().get(2).replace("[", "").replace("]", ""));
            }
            case APPLOCK -> {
                int r = applock(ctx, st);
                return List.<Object[]>of(new Object[] {r});
            }
            case THROW -> {
                if (st.tokens().size() < 4) {
                    throw new SQLException("THROW without arguments outside CATCH", "S0001", 10704);
                }
                int number = Integer.parseInt(st.tokens().get(1));
                throw new SQLException(Tsql.unquote(st.tokens().get(3)), "S0001", number);
            }
            default -> {
                for (Extension e : extensions) {
                    List<Object[]> r = e.execute(ctx, st);
                    if (r == Extension.NO_RESULT) {
                        return null;
                    }
                    if (r != null) {
                        return r;
                    }
                }
                // SEND, RECEIVE, BEGIN DIALOG, END CONVERSATION without a broker model: a change, not on the list
                change(s, st.upper(0) + (st.kind() == Tsql.Kind.END_CONVERSATION ? " CONVERSATION" : ""), st.text(), null, null);
            }
        }
        return null;
    }

    /**
     * A SELECT without FROM whose items are variables or {@code @@TRANCOUNT} ({@code SELECT @id AS
     * message_id}): one row of their values, or null (no result the model knows) if one is unknown.
     */
    private static List<Object[]> selectVariables(Ctx ctx, Tsql.Stmt st) {
        List<Object> row = new ArrayList<>();
        List<String> t = st.tokens();
        boolean expectItem = true;
        for (int i = 1; i < t.size(); i++) {
            String tok = t.get(i);
            if (tok.equals(",")) {
                expectItem = true;
            } else if (expectItem) {
                if (tok.equalsIgnoreCase("@@TRANCOUNT")) {
                    row.add(ctx.session.tranCount);
                } else if (tok.startsWith("@") && ctx.vars.containsKey(tok.toLowerCase(Locale.ROOT))) {
                    row.add(ctx.vars.get(tok.toLowerCase(Locale.ROOT)));
                } else {
                    return null;
                }
                expectItem = false;
            } else if (!tok.equalsIgnoreCase("AS") && !(i > 0 && t.get(i - 1).equalsIgnoreCase("AS"))) {
                return null; // an expression, not a plain variable
            }
        }
        return row.isEmpty() ? null : List.<Object[]>of(row.toArray());
    }

    /** DECLARE @x type = ? and SET @x = ? bind a parameter to a variable. */
    private static void bindVariables(Ctx ctx, Tsql.Stmt st) {
        if (st.params().isEmpty() || !(st.upper(0).equals("DECLARE") || st.upper(0).equals("SET"))) {
            return;
        }
        List<String> t = st.tokens();
        int marker = 0;
        for (int i = 0; i < t.size(); i++) {
            if (!t.get(i).equals("?")) {
                continue;
            }
            int number = st.params().get(marker++);
            if (i >= 1 && t.get(i - 1).equals("=")) {
                for (int j = i - 2; j >= 0; j--) {
                    if (t.get(j).startsWith("@") && !t.get(j).startsWith("@@")) {
                        if (j + 1 < t.size() && (t.get(j + 1).equals("=") || j + 2 == i || st.upper(0).equals("DECLARE"))) {
                            ctx.vars.put(t.get(j).toLowerCase(Locale.ROOT), ctx.param(number));
                        }
                        break;
                    }
                    if (t.get(j).equals(",")) {
                        break;
                    }
                }
            }
        }
    }

    private static void setOption(Session s, Tsql.Stmt st) {
        String option = st.upper(1);
        boolean on = st.upper(2).equals("ON");
        switch (option) {
            case "NOCOUNT" -> s.nocount = on;
            case "XACT_ABORT" -> s.xactAbort = on;
            case "IMPLICIT_TRANSACTIONS" -> s.implicitTransactions = on;
            default -> {
                // TRANSACTION ISOLATION LEVEL, LOCK_TIMEOUT, ...: no transaction rule
            }
        }
    }

    /** "SET IMPLICIT_TRANSACTIONS (Transact-SQL)": a listed statement at @@TRANCOUNT = 0 in implicit mode opens one. */
    private void implicitOpen(Session s, Tsql.Stmt st) {
        if (s.implicitTransactions && s.tranCount == 0) {
            s.tranCount = 1;
            s.tx = new Transaction();
            note(s, "  (implicit transaction opened by " + st.upper(0) + ")");
        }
    }

    Effect change(Session s, String kind, String text, Runnable undo, Runnable onCommit) {
        boolean inTx = s.tranCount > 0;
        Effect e = new Effect(s.id, kind, text, inTx, undo, onCommit);
        effects.add(e);
        if (inTx) {
            s.tx.effects.add(e);
        } else {
            e.commit();
        }
        return e;
    }

    private void endTransaction(Session s, boolean commit) {
        Transaction tx = s.tx;
        s.tranCount = 0;
        s.tx = null;
        if (tx == null) {
            return;
        }
        for (Extension e : extensions) {
            e.ending(s, tx, commit);
        }
        if (commit) {
            tx.commit();
        } else {
            tx.rollBack();
        }
        applocks.values().removeIf(v -> v == -s.id);
    }

    /** "sp_getapplock (Transact-SQL)": -999 for a transaction-owned lock outside a transaction. */
    private int applock(Ctx ctx, Tsql.Stmt st) {
        Session s = ctx.session;
        String owner = Tsql.argument(st, "@LockOwner");
        boolean transactionOwned = owner == null || owner.equalsIgnoreCase("Transaction");
        String resource = String.valueOf(Tsql.argument(st, "@Resource")).toLowerCase(Locale.ROOT);
        int r;
        if (transactionOwned && s.tranCount == 0) {
            r = -999;
            note(s, "  (sp_getapplock: owner Transaction at @@TRANCOUNT = 0 returns -999, message 15626)");
        } else if (applockRefusal != null) {
            r = applockRefusal;
        } else {
            Integer holder = applocks.get(resource);
            int me = transactionOwned ? -s.id : s.id;
            if (holder != null && Math.abs(holder) != s.id) {
                r = -1; // the model does not wait: the time-out
            } else {
                r = holder == null ? 0 : 1;
                applocks.put(resource, me);
            }
        }
        ctx.vars.put(resultVariable(st), r);
        return r;
    }

    private static String resultVariable(Tsql.Stmt st) {
        return st.tokens().size() > 2 && st.tokens().get(1).startsWith("@") ? st.tokens().get(1).toLowerCase(Locale.ROOT) : "";
    }

    private Object next(String sql) {
        Deque<Object> d = scripts.get(sql);
        if (d == null || d.isEmpty()) {
            return null;
        }
        return d.size() > 1 ? d.poll() : d.peek();
    }

    private static String render(List<Object> params) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < params.size(); i++) {
            Object v = params.get(i);
            b.append(i > 0 ? ", " : "").append(v instanceof byte[] bytes ? "bytes" + Arrays.toString(bytes) : String.valueOf(v));
        }
        return b.append("]").toString();
    }
}
