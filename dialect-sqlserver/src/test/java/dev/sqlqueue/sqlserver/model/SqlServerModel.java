package dev.sqlqueue.sqlserver.model;

import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A model of mssql-jdbc and SQL Server that keeps the state the documentation defines, for call-sequence
 * tests: per session {@code @@TRANCOUNT}, IMPLICIT_TRANSACTIONS, NOCOUNT, XACT_ABORT, LOCK_TIMEOUT, the
 * isolation level, savepoints, whether the transaction is uncommittable, and every change a statement made
 * with the transaction it belongs to; server-wide, application locks, and the rows and row locks of the
 * tables a test asks it to keep ({@link #track}). Statements are read by {@link Tsql}; results of
 * statements the model does not compute are scripted by the test ({@link #rows}); a script the model can
 * prove impossible is rejected ({@link ImpossibleResultException}). Broker rules are a separate
 * {@link Extension} ({@link BrokerModel}).
 *
 * <p>The rules, each with its source at the class that applies it:
 * <ul>
 *   <li>{@link DriverCommands}: what mssql-jdbc sends for auto-commit, commit, rollback and savepoints.</li>
 *   <li>{@link Results}: several results per execution, read as mssql-jdbc reads them (an error of a later
 *       statement is thrown when the reading reaches it; closing discards the rest).</li>
 *   <li>{@link Batch}: IF, WHILE, TRY...CATCH, which errors end a statement, a batch or a transaction,
 *       uncommittable transactions (XACT_STATE -1, errors 3930, 3931, 3998).</li>
 *   <li>{@link StatementRules}: "SET IMPLICIT_TRANSACTIONS" (only the listed statements open a
 *       transaction: ALTER TABLE, BEGIN TRANSACTION, CREATE, DELETE, DROP, FETCH, GRANT, INSERT, MERGE, OPEN,
 *       REVOKE, SELECT from a table, TRUNCATE TABLE, UPDATE; SEND, RECEIVE, BEGIN DIALOG, END CONVERSATION,
 *       SET, DECLARE, EXEC do not), BEGIN/COMMIT/ROLLBACK/SAVE TRANSACTION (3902, 3903, 6401, 628),
 *       sp_getapplock (-999 outside a transaction), THROW, and READPAST outside READ COMMITTED / REPEATABLE
 *       READ (error 650).</li>
 *   <li>{@link TableAccess} and {@link Locks}: S, U, X and key-range locks with the documented
 *       compatibility matrix, READPAST, NOWAIT, row versioning (READ_COMMITTED_SNAPSHOT, SNAPSHOT), 2627 and
 *       2601, deadlocks (1205).</li>
 *   <li>"SET Statements (Transact-SQL)", Considerations: a SET option changed inside a batch run by
 *       sp_executesql is restored when it returns; set in an ordinary batch it stays. mssql-jdbc sends a
 *       PreparedStatement through sp_executesql/sp_prepexec unless {@code prepareMethod=none} (a plain batch;
 *       "sqlserver-tables" review, finding 1, quoting {@code SQLServerPreparedStatement.doPrepExec}); a
 *       plain {@code Statement} is a plain batch. That sp_prepexec restores SETs as sp_executesql does is the
 *       implementation's assumption (review V2).</li>
 *   <li>A statement waiting for a lock ({@link #blocks}, or a lock conflict on a kept table) returns only
 *       when its query timeout runs out: mssql-jdbc sends an attention and throws
 *       {@link java.sql.SQLTimeoutException} "The query has timed out." (13.2.1 {@code SQLServerStatement},
 *       driver error 9, SQLState HY008); the statement's work is undone and the open transaction is left
 *       open (Microsoft Learn does not document what an attention does to it; third-party sources say it
 *       stays open: MSDN blog "Attention events can cause open transactions and blocking", 2010). With
 *       {@code SET LOCK_TIMEOUT n} it ends with error 1222 instead; with neither it would wait for ever
 *       ({@link WouldHangError}). In {@link #waitForLocks} mode it waits until the holder ends.</li>
 * </ul>
 * Conditions the model cannot decide run neither branch ({@link Batch}): the model does not claim work the
 * documentation cannot decide for it.
 *
 * <p>Thread-safe: every call takes the model's lock (a statement is atomic in the model, except that in
 * {@link #waitForLocks} mode a statement waiting for a lock lets other sessions run).
 */
public final class SqlServerModel {
    /** How mssql-jdbc sends a PreparedStatement (connection property {@code prepareMethod}). */
    public enum PrepareMethod { PREPEXEC, PREPARE, NONE }

    /** mssql-jdbc's isolation level SNAPSHOT ({@code SQLServerConnection.TRANSACTION_SNAPSHOT}, 0x1000). */
    public static final int TRANSACTION_SNAPSHOT = 0x1000;

    private final Map<String, Deque<Object>> scripts = new HashMap<>();
    private final Map<String, List<String>> labels = new HashMap<>();
    private final Map<String, List<Tsql.Node>> parsed = new ConcurrentHashMap<>();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private final List<Effect> effects = new ArrayList<>();
    private final List<Session> sessions = new ArrayList<>();
    private final List<Extension> extensions = new ArrayList<>();
    /** Application locks held: resource (lower case) to holder session id (negative: owned by its transaction). */
    private final Map<String, Integer> applocks = new HashMap<>();
    private final Set<String> blocked = new HashSet<>();
    private final Map<String, Integer> queryTimeouts = new HashMap<>();
    private final Tables tables = new Tables();
    private final Locks locks = new Locks();
    private final Map<String, long[]> sequences = new HashMap<>();
    final DriverCommands driver = new DriverCommands(this);
    final LockWaits waits = new LockWaits(this, locks);
    private Integer applockRefusal;
    private PrepareMethod prepareMethod = PrepareMethod.PREPEXEC;
    private boolean readCommittedSnapshot;
    private int sessionIsolation = java.sql.Connection.TRANSACTION_READ_COMMITTED;
    boolean waitForLocks;
    private LocalDateTime clock = LocalDateTime.of(2025, 1, 1, 0, 0);
    private volatile BiConsumer<Integer, String> beforeExecute = (c, sql) -> { };

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
     * The next execution of {@code sql} returns these rows as its first result set the model does not
     * compute (the last script of a text repeats). Rejected for a text whose result the model computes
     * (RECEIVE, sp_getapplock, a kept table).
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
     * escalated lock): it ends only by its query timeout, or with none it would hang ({@link WouldHangError}).
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
        WouldHangError(String what) {
            super("this statement waits on a lock held by another session and has no query timeout: it would hang"
                    + " (LOCK_TIMEOUT -1 by default): " + what);
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

    /** Every later sp_getapplock that would be granted returns this instead (-1 time-out, -2 cancelled, -3 deadlock). */
    public synchronized SqlServerModel refuseApplocks(int result) {
        if (result >= 0 || result == -999) {
            throw new ImpossibleResultException("a refusal is -1, -2 or -3; -999 is the model's answer outside a transaction");
        }
        applockRefusal = result;
        return this;
    }

    /**
     * Keeps the rows of a table (as the statements write its name, e.g. {@code [dbo].[sqlq_bk_keys]}) with this
     * clustered key: the model then computes what statements read from it and change in it, and the locks
     * they take ({@link TableAccess}). Results of such statements can no longer be scripted.
     */
    public synchronized TableSpec track(String table, String... keyColumns) {
        return new TableSpec(this, tables.track(table, List.of(keyColumns)));
    }

    /** The committed rows of a kept table, in clustered key order (column names lower case). */
    public synchronized List<Map<String, Object>> committedRows(String table) {
        return tables.get(table).rows.values().stream().filter(r -> r.committed != null).map(r -> Map.copyOf(nonNull(r.committed)))
                .collect(Collectors.toList());
    }

    private static Map<String, Object> nonNull(Map<String, Object> m) {
        Map<String, Object> out = new HashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** {@code NEXT VALUE FOR name} returns {@code next}, then counts up by 1 (otherwise its values are unknown). */
    public synchronized SqlServerModel sequence(String name, long next) {
        sequences.put(Tables.canonical(name), new long[] {next});
        return this;
    }

    /** The isolation level new sessions start at (a pool configured so; READ COMMITTED by default). */
    public synchronized SqlServerModel sessionIsolation(int level) {
        sessionIsolation = level;
        return this;
    }

    /** The database option READ_COMMITTED_SNAPSHOT (OFF by default on SQL Server; ON on Azure SQL Database). */
    public synchronized SqlServerModel readCommittedSnapshot(boolean on) {
        readCommittedSnapshot = on;
        return this;
    }

    /**
     * A statement that waits for a lock on a kept table waits until the holder's transaction ends (other
     * threads go on), and a cycle of waits ends one of them with error 1205; query and lock timeouts are not
     * applied. For tests with one thread per session.
     */
    public synchronized SqlServerModel waitForLocks() {
        waitForLocks = true;
        return this;
    }

    /** Called with the connection number and the SQL before each execution, outside the model's lock. */
    public SqlServerModel beforeExecute(BiConsumer<Integer, String> hook) {
        beforeExecute = hook;
        return this;
    }

    /** The database clock ({@code SYSUTCDATETIME()}, UTC). */
    public synchronized LocalDateTime clock() {
        return clock;
    }

    /** Moves the database clock ({@code SYSUTCDATETIME()}) on. */
    public synchronized SqlServerModel advance(Duration d) {
        clock = clock.plus(d);
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

    /** Every lock granted on a kept table, in order. */
    public synchronized List<Lock> locksTaken() {
        return locks.log();
    }

    /** The locks a session holds now. */
    public synchronized List<Lock> locksHeld(int connection) {
        return locks.held(connection);
    }

    /** Whether a session is waiting for a lock ({@link #waitForLocks} mode). */
    public synchronized boolean waiting(int connection) {
        return locks.waiting(connection);
    }

    /**
     * The next {@code Connection.rollback()} fails with this error and sends nothing (a session that is
     * alive but whose rollback request failed, for example on a network time-out).
     */
    public SqlServerModel failNextRollback(int errorCode) {
        driver.failNextRollback(errorCode);
        return this;
    }

    // ---- sessions ---------------------------------------------------------------------------------

    synchronized Session open() {
        Session s = new Session(sessions.size() + 1);
        s.prepareMethod = prepareMethod;
        s.isolation = sessionIsolation;
        s.driverIsolation = sessionIsolation;
        sessions.add(s);
        return s;
    }

    void note(Session s, String what) {
        log.add("c" + s.id + " " + what);
    }

    /** The session ended (close, abort): its session-owned application locks and row locks go. */
    synchronized void endSession(Session s) {
        applocks.values().removeIf(v -> v == s.id);
        locks.releaseAll(s.id);
        notifyAll();
    }

    // ---- batches -----------------------------------------------------------------------------------

    void beforeExecute(Session s, String sql) {
        beforeExecute.accept(s.id, sql);
    }

    /**
     * Runs a batch from the code under test: logs it, applies a scripted failure, then every statement's
     * rules, and returns what the driver will read.
     *
     * @param rpc true if sent through sp_executesql/sp_prepexec (SET options are restored after it)
     * @param queryTimeout the statement's query timeout in seconds (0: none)
     */
    synchronized Results execute(Session s, String sql, List<Object> params, boolean rpc, int queryTimeout) throws SQLException {
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
            driver.close(s);
            throw new SQLException("Read timed out", "08S01", 0);
        }
        if (blocked.contains(sql)) {
            if (queryTimeout == 0) {
                throw new WouldHangError(sql);
            }
            note(s, "  (blocked on a lock; query timeout " + queryTimeout + " s ran out: attention sent, the batch"
                    + " stopped, the open transaction is left open at @@TRANCOUNT = " + s.tranCount + ")");
            throw new java.sql.SQLTimeoutException("The query has timed out.", "HY008", 0);
        }
        Object script = next(sql);
        if (script instanceof SQLException e) {
            if (s.tranCount > 0 && (s.xactAbort || e.getErrorCode() == 1205)) {
                endTransaction(s, false);
                note(s, "transaction rolled back by error " + e.getErrorCode() + (s.xactAbort ? " (XACT_ABORT ON)" : ""));
            }
            throw e;
        }
        Results r = run(s, sql, params, rpc, queryTimeout);
        if (script != null) {
            @SuppressWarnings("unchecked")
            List<Object[]> rows = (List<Object[]>) script;
            for (Extension e : extensions) {
                e.checkScripted(sql, rows);
            }
            r.script(rows, labels.get(sql));
        }
        return r;
    }

    private Results run(Session s, String sql, List<Object> params, boolean rpc, int queryTimeout) {
        boolean nocount = s.nocount;
        boolean xactAbort = s.xactAbort;
        int isolation = s.isolation;
        int lockTimeout = s.lockTimeout;
        Ctx ctx = new Ctx(this, s, params, queryTimeout);
        try {
            Batch.run(ctx, parse(sql));
        } finally {
            if (rpc) {
                // "SET Statements (Transact-SQL)", Considerations: restored when sp_executesql returns
                s.nocount = nocount;
                s.xactAbort = xactAbort;
                s.isolation = isolation;
                s.lockTimeout = lockTimeout;
            }
        }
        return ctx.results;
    }

    /** One of the driver's own batches: its first error is thrown. */
    void command(Session s, String sql) throws SQLException {
        Results r = run(s, sql, List.of(), false, 0);
        for (Results.Item i : r.items) {
            if (i instanceof Results.Failure f) {
                throw f.error();
            }
        }
    }

    private List<Tsql.Node> parse(String sql) {
        return parsed.computeIfAbsent(sql, Tsql::parse);
    }

    List<Extension> extensions() {
        return extensions;
    }

    Tables tables() {
        return tables;
    }

    boolean readCommittedSnapshot() {
        return readCommittedSnapshot;
    }

    LocalDateTime now() {
        return clock;
    }

    /** {@code NEXT VALUE FOR name}: sequence numbers are taken outside the transaction ("CREATE SEQUENCE", General Remarks). */
    Object nextValue(String name) {
        long[] next = sequences.get(Tables.canonical(name));
        return next == null ? Expressions.UNKNOWN : next[0]++;
    }

    // ---- changes, transactions and locks -----------------------------------------------------------------

    /** "SET IMPLICIT_TRANSACTIONS (Transact-SQL)": a listed statement at @@TRANCOUNT = 0 in implicit mode opens one. */
    void implicitOpen(Session s, Tsql.Stmt st) {
        if (s.implicitTransactions && s.tranCount == 0) {
            s.tranCount = 1;
            s.tx = new Transaction();
            note(s, "  (implicit transaction opened by " + st.upper(0) + ")");
        }
    }

    /** A change of the running statement: part of the open transaction, or committed when the statement ends. */
    Effect change(Ctx ctx, String kind, String text, Runnable undo, Runnable onCommit) {
        Session s = ctx.session;
        boolean inTx = s.tranCount > 0;
        Effect e = new Effect(s.id, kind, text, inTx, undo, onCommit);
        effects.add(e);
        ctx.statementEffects.add(e);
        if (inTx) {
            s.tx.effects.add(e);
        }
        return e;
    }

    /** A statement ended: a failed one's work is undone; an autocommitted one's is committed; its short locks go. */
    void endStatement(Ctx ctx, boolean ok) {
        List<Effect> done = new ArrayList<>(ctx.statementEffects);
        if (!ok) {
            Collections.reverse(done);
            done.forEach(Effect::rollBack);
        } else {
            done.stream().filter(e -> !e.inTransaction()).forEach(Effect::commit);
        }
        ctx.statementLocks.forEach(Runnable::run);
        ctx.statementLocks.clear();
        ctx.statementGrants.clear();
        ctx.statementEffects.clear();
        notifyAll();
    }

    void endTransaction(Session s, boolean commit) {
        Transaction tx = s.tx;
        s.tranCount = 0;
        s.tx = null;
        s.doomed = false;
        if (tx != null) {
            for (Extension e : extensions) {
                e.ending(s, tx, commit);
            }
            if (commit) {
                tx.commit();
            } else {
                tx.rollBack();
            }
        }
        applocks.values().removeIf(v -> v == -s.id);
        locks.releaseAll(s.id);
        notifyAll();
    }

    /** {@code ROLLBACK TRANSACTION name}: undoes the work after the savepoint and releases the locks taken after it. */
    boolean rollbackTo(Session s, String name) {
        boolean ok = s.tx.rollbackTo(name);
        notifyAll();
        return ok;
    }

    /** "sp_getapplock (Transact-SQL)": -999 for a transaction-owned lock outside a transaction. */
    int applock(Ctx ctx, Tsql.Stmt st) {
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
        List<String> t = st.tokens();
        if (t.size() > 2 && t.get(1).startsWith("@")) {
            ctx.vars.put(t.get(1).toLowerCase(Locale.ROOT), (long) r);
        }
        return r;
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
