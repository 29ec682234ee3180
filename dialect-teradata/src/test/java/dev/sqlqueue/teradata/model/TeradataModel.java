package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * An executable model of the documented Teradata session rules, for tests: it interprets exactly the
 * statement forms the backend sends (and nothing else: an unknown statement is a {@link ModelViolation}),
 * keeps tables and rows, and applies these rules, each cited where it is applied:
 *
 * <ul>
 *   <li><b>ANSI transactions</b> (SQL Request and Transaction Processing, "ANSI Mode Transactions"):
 *   every request joins the open transaction until COMMIT or ROLLBACK; a request that fails with a
 *   request-level error (6706, 3803, 3807, 3996, 3604, 3810) undoes only itself and the transaction stays
 *   open with its locks and consumes; a deadlock (2631), the delay limit (3128) or an abort ends the whole
 *   transaction. Closing or aborting a session rolls its transaction back.</li>
 *   <li><b>Rule U</b>, Unicode 6.0 BMP and error 6706 ({@link SessionRules#checkUnicodeColumn}).</li>
 *   <li><b>Queue tables</b> (SQL DML, "SELECT AND CONSUME", "Performance Characteristics of SELECT AND
 *   CONSUME Statements"; SQL DDL, "Browsing a Queue Table"): a consume takes the row with the oldest QITS
 *   and deletes it in its transaction; with no row it enters the delay state until a row is committed or
 *   the request is aborted; at most {@link #delayLimit} sessions may wait (3128); a browse never waits.</li>
 *   <li><b>Rule C</b>, 2,210 consumes per transaction ({@link SessionRules#checkConsumeCount}).</li>
 *   <li><b>Rule K</b>, case-specific parameters in ANSI mode ({@link SessionRules#equalsParameter}).</li>
 *   <li><b>Locks</b> (SQL Request and Transaction Processing, "DML Requests and Locks"): INSERT ... VALUES
 *   and access by primary index lock a row hash; DELETE or SELECT without a primary-index condition and
 *   INSERT ... SELECT lock whole tables; {@code LOCKING ... FOR ACCESS} reads uncommitted rows and never
 *   waits ("About Lock Contentions"). Locks are held until the transaction ends.</li>
 * </ul>
 *
 * <p>What the documentation leaves open is a switch, so a test states which answer it assumes:
 * {@link #cancelHonoured} (V4), {@link #cacheListsUncommitted} (V5), {@link #keys} (V1). Time: QITS and
 * {@code CURRENT_TIMESTAMP} come from {@link #sessionZone}; a zone-less TIMESTAMP travels through JDBC as
 * JVM-local fields, a TIMESTAMP WITH TIME ZONE as an instant. Thread-safe: one monitor guards everything.
 */
public final class TeradataModel {
    /** How the driver answers {@code getGeneratedKeys()} after an insert (V1: not documented for terajdbc). */
    public enum Keys {
        /** One result set, one row per inserted row, one column {@code seq}. */
        ONE_ROW_PER_INSERT,
        /** Only the first inserted row of a batch comes back (the others would be in further result sets). */
        FIRST_OF_BATCH_ONLY,
        /** Whole inserted rows, every column, QITS first. */
        WHOLE_ROWS
    }

    /** V4: whether {@code Statement.cancel()} aborts a blocked request (default true). */
    public volatile boolean cancelHonoured = true;
    /** V5: whether a consume sees (and waits on) a row another transaction inserted and has not committed. */
    public volatile boolean cacheListsUncommitted = true;
    /** Whether a cancel that arrives while no request runs aborts the session's next request. */
    public volatile boolean lateCancelHitsNextRequest;
    /**
     * When set, {@code Statement.cancel()} does not touch the running request and aborts the session's
     * next request instead: the worst case of an asynchronous abort that arrives late (CLIv2 aborts the
     * whole transaction; how terajdbc times the abort is not documented).
     */
    public volatile boolean cancelArrivesLate;
    /** When set, CURRENT_TIMESTAMP starts here (session-zone wall clock) and advances 1 microsecond per request. */
    public volatile LocalDateTime clockStart;
    /** V1: the driver's generated-keys behaviour. */
    public volatile Keys keys = Keys.ONE_ROW_PER_INSERT;
    /** The session time zone (CURRENT_TIMESTAMP, default QITS). */
    public volatile ZoneId sessionZone = ZoneId.systemDefault();
    /** Sessions allowed in the delay state at once (20% of a PE's 120 sessions: 24). */
    public volatile int delayLimit = 24;
    /** Unicode Pass Through for new sessions. */
    public volatile boolean passThroughAtLogon;
    /** The error number a cancelled request reports (not documented for terajdbc: V4). */
    public volatile int cancelErrorCode = 3110;
    /**
     * The query timeout ({@code Statement.setQueryTimeout}) of the last execution of each SQL text, seconds
     * (0 = none). A request blocked on a lock or in the delay state longer than its query timeout ends:
     * the driver aborts it, which (like every abort, CLIv2) rolls the transaction back, and throws
     * {@link java.sql.SQLTimeoutException} with {@link #cancelErrorCode}. How terajdbc reports an expired
     * query timeout is not in its reference (open point in docs/backends/teradata.md); this is the
     * model's assumption, and the backend rolls back explicitly whatever the driver did.
     */
    private final Map<String, Integer> queryTimeouts = new java.util.concurrent.ConcurrentHashMap<>();

    /** The query timeout (seconds, 0 = none) of the last execution of {@code sql}, or null if it never ran. */
    public Integer queryTimeoutOf(String sql) {
        return queryTimeouts.get(sql);
    }

    void queryTimeout(ModelSession s, String sql, int seconds) {
        queryTimeouts.put(sql, seconds);
        s.queryTimeoutSeconds = seconds;
    }

    /** How long a request may stay blocked before the model fails the test (nobody would release it). */
    public volatile long maxBlockMillis = 15_000;
    /** {@code DBC.SessionInfoV.LogonRedrive} of every session: blank = not taking part in Redrive (Data Dictionary, SessionInfoV). */
    public volatile String logonRedrive = "";
    /** Labels and values of the HELP SESSION row. */
    public volatile Map<String, String> helpSession = defaultHelpSession();

    /** Requests in order of arrival: {@code s<session> <sql>}, {@code s<n> commit|rollback|cancel|abort}. */
    public final List<String> log = new CopyOnWriteArrayList<>();

    final Object monitor = new Object();
    final Map<String, ModelTable> tables = new LinkedHashMap<>();
    final List<Lock> locks = new ArrayList<>();
    final String defaultDatabase;
    private final List<Hook> hooks = new CopyOnWriteArrayList<>();
    private final AtomicInteger sessionIds = new AtomicInteger();
    private LocalDateTime lastNow = LocalDateTime.MIN;
    /** 0 = none; 1 = the next COMMIT is applied and then the connection is lost; 2 = lost before applying. */
    volatile int commitFault;

    record Lock(ModelSession owner, String table, Object row, boolean write) {
    }

    private record Hook(Predicate<String> sql, Runnable action) {
    }

    /** A model whose sessions' default database is {@code defaultDatabase} (dictionary spelling). */
    public TeradataModel(String defaultDatabase) {
        this.defaultDatabase = defaultDatabase;
    }

    private static Map<String, String> defaultHelpSession() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("User Name", "QUSER");
        m.put("Transaction Semantics", "ANSI");
        m.put("Character Set", "UTF8");
        m.put("Redrive", "N");
        return m;
    }

    /** A data source whose every connection is a new session in ANSI mode, auto-commit on (JDBC default). */
    public DataSource dataSource() {
        return ModelJdbc.dataSource(this);
    }

    ModelSession logon() {
        ModelSession s = new ModelSession(sessionIds.incrementAndGet());
        s.passThrough = passThroughAtLogon;
        return s;
    }

    /**
     * The dictionary spelling of a database named in SQL text (names are case-blind there).
     *
     * @throws SQLException 3802 when no such database exists
     */
    String database(String named) throws SQLException {
        if (!named.equalsIgnoreCase(defaultDatabase)) {
            throw new SQLException("[Error 3802] Database '" + named + "' does not exist.", "42000", 3802);
        }
        return defaultDatabase;
    }

    /** Runs {@code action} once, in the requesting thread, just before the next request whose SQL matches (hooks run in the order given, one per request). */
    public void beforeNext(Predicate<String> sql, Runnable action) {
        hooks.add(new Hook(sql, action));
    }

    /** The next COMMIT is applied, then the connection is lost (the client cannot know it committed). */
    public void loseConnectionAfterNextCommit() {
        commitFault = 1;
    }

    void runHooks(String sql) {
        for (Hook h : hooks) {
            if (h.sql().test(sql) && hooks.remove(h)) {
                h.action().run();
                return;
            }
        }
    }

    // ---- inspection for tests -------------------------------------------------------------------

    /** Committed rows of a table (by dictionary name), oldest QITS first for queue tables. */
    public List<Map<String, Object>> committedRows(String table) {
        synchronized (monitor) {
            ModelTable t = inspected(table);
            List<Map<String, Object>> out = new ArrayList<>();
            for (ModelTable.Row r : t.rows) {
                if (r.insertedBy == null) {
                    out.add(Map.copyOf(withoutNulls(r.values)));
                }
            }
            return out;
        }
    }

    /** Whether the table exists (names compare case-blind, as in SQL text). */
    public boolean exists(String table) {
        synchronized (monitor) {
            return tables.containsKey(SessionRules.objectKey(defaultDatabase, table));
        }
    }

    /** Whether the table was created with FALLBACK. */
    public boolean fallback(String table) {
        synchronized (monitor) {
            return inspected(table).fallback;
        }
    }

    /** How many sessions are blocked right now (delay state or waiting for a lock). */
    public int blockedSessions() {
        synchronized (monitor) {
            return blocked;
        }
    }

    private int blocked;

    private static Map<String, Object> withoutNulls(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (v != null) {
                out.put(k, v);
            }
        });
        return out;
    }

    // ---- transactions ---------------------------------------------------------------------------

    void commit(ModelSession s) throws SQLException {
        synchronized (monitor) {
            checkOpen(s);
            int fault = commitFault;
            commitFault = 0;
            if (fault == 2) {
                endSession(s);
                throw lost();
            }
            for (ModelTable t : tables.values()) {
                t.rows.removeIf(r -> r.deletedBy == s);
                for (ModelTable.Row r : t.rows) {
                    if (r.insertedBy == s) {
                        r.insertedBy = null;
                    }
                }
            }
            endTransaction(s);
            if (fault == 1) {
                endSession(s);
                throw lost();
            }
        }
    }

    void rollback(ModelSession s) throws SQLException {
        synchronized (monitor) {
            checkOpen(s);
            rollbackNow(s);
        }
    }

    private void rollbackNow(ModelSession s) {
        for (int i = s.undo.size() - 1; i >= 0; i--) {
            s.undo.get(i).run();
        }
        endTransaction(s);
    }

    private void endTransaction(ModelSession s) {
        s.undo.clear();
        s.consumes = 0;
        locks.removeIf(l -> l.owner() == s);
        monitor.notifyAll();
    }

    /** Logoff or abort: the open transaction is rolled back (SQL Request and Transaction Processing, "Transaction Rollback"). */
    void endSession(ModelSession s) {
        synchronized (monitor) {
            if (!s.closed) {
                rollbackNow(s);
                s.closed = true;
                monitor.notifyAll();
            }
        }
    }

    void cancel(ModelSession s) {
        synchronized (monitor) {
            if (cancelArrivesLate) {
                s.cancelPending = true;
                return;
            }
            if (s.running) {
                s.cancelRequested = true;
            } else if (lateCancelHitsNextRequest) {
                s.cancelPending = true;
            }
            monitor.notifyAll();
        }
    }

    private static SQLException lost() {
        return new SQLNonTransientConnectionException("[Teradata model] session lost", "08S01", 0);
    }

    private static void checkOpen(ModelSession s) throws SQLException {
        if (s.closed) {
            throw new SQLNonTransientConnectionException("[Teradata model] connection is closed", "08003", 0);
        }
    }

    // ---- requests -------------------------------------------------------------------------------

    /** The answer of one request. */
    record Answer(List<String> labels, List<Object[]> rows, int count, List<Object[]> keys, List<String> keyLabels) {
        static Answer count(int n) {
            return new Answer(null, null, n, List.of(), List.of());
        }

        static Answer rows(List<String> labels, List<Object[]> rows) {
            return new Answer(labels, rows, -1, List.of(), List.of());
        }
    }

    /**
     * Executes one request: one statement with one or more rows of parameters (an iterated request).
     */
    Answer execute(ModelSession s, String sql, List<List<Object>> paramRows) throws SQLException {
        runHooks(sql);
        synchronized (monitor) {
            checkOpen(s);
            s.running = true;
            s.requestUndo = new ArrayList<>();
            try {
                if (s.cancelPending) {
                    s.cancelPending = false;
                    throw abort(s);
                }
                Answer a = ModelStatements.run(this, s, sql, paramRows);
                s.undo.addAll(s.requestUndo);
                if (s.autoCommit) {
                    commit(s);
                }
                return a;
            } catch (SQLException e) {
                if (!s.closed && !transactionEnding(e.getErrorCode())) {
                    List<Runnable> u = s.requestUndo;
                    for (int i = u.size() - 1; i >= 0; i--) {
                        u.get(i).run();
                    }
                    if (s.autoCommit) {
                        rollbackNow(s);
                    }
                }
                throw e;
            } finally {
                s.running = false;
                s.cancelRequested = false;
                s.delayed = false;
            }
        }
    }

    private static boolean transactionEnding(int code) {
        return code == 2631 || code == 3128 || code == 3110 || code == 2646;
    }

    /** Aborts the session's transaction (cancel honoured, 3128, deadlock): rolls back, returns the error to throw. */
    SQLException abortWith(ModelSession s, int code, String text) {
        for (int i = s.requestUndo.size() - 1; i >= 0; i--) {
            s.requestUndo.get(i).run();
        }
        s.requestUndo.clear();
        rollbackNow(s);
        return new SQLException("[Teradata model] [Error " + code + "] " + text, "HY000", code);
    }

    private SQLException abort(ModelSession s) {
        return abortWith(s, cancelErrorCode, "The transaction was aborted by the user (request cancelled).");
    }

    /**
     * Waits on the monitor (caller holds it) for a change; throws when the request was cancelled (and the
     * model honours cancels), the session was closed or aborted, or nobody released it in time.
     */
    void block(ModelSession s, long since, String why) throws SQLException {
        if (s.cancelRequested && cancelHonoured) {
            throw abort(s);
        }
        checkOpen(s);
        if (s.queryTimeoutSeconds > 0 && System.currentTimeMillis() - since >= s.queryTimeoutSeconds * 1000L) {
            log.add("s" + s.id + " query timeout (" + s.queryTimeoutSeconds + " s)");
            SQLException aborted = abortWith(s, cancelErrorCode, "The request was aborted: its query timeout ran out.");
            throw new java.sql.SQLTimeoutException(aborted.getMessage(), aborted.getSQLState(), aborted.getErrorCode());
        }
        if (System.currentTimeMillis() - since > maxBlockMillis) {
            throw new ModelViolation(s + " blocked for " + maxBlockMillis + " ms: " + why);
        }
        blocked++;
        try {
            monitor.wait(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", "HY000", 0);
        } finally {
            blocked--;
        }
        if (s.cancelRequested && cancelHonoured) {
            throw abort(s);
        }
        checkOpen(s);
    }

    /** Takes a lock, waiting while another transaction holds a conflicting one. Row null = the whole table. */
    void lock(ModelSession s, ModelTable t, Object row, boolean write) throws SQLException {
        long since = System.currentTimeMillis();
        while (true) {
            Lock conflict = null;
            for (Lock l : locks) {
                if (l.owner() != s && l.table().equals(key(t)) && (l.row() == null || row == null || l.row().equals(row))
                        && (l.write() || write)) {
                    conflict = l;
                    break;
                }
            }
            if (conflict == null) {
                locks.add(new Lock(s, key(t), row, write));
                return;
            }
            block(s, since, (write ? "WRITE" : "READ") + " lock on " + t.name + (row == null ? "" : " row hash " + row)
                    + " held by " + conflict.owner());
        }
    }

    static String key(ModelTable t) {
        return SessionRules.objectKey(t.database, t.name);
    }

    /** A table named in a request; a missing one is error 3807, as on a real system. */
    ModelTable table(String database, String name) throws SQLException {
        ModelTable t = tables.get(SessionRules.objectKey(database, name));
        if (t == null) {
            throw new SQLException("[Error 3807] Object '" + database + "." + name + "' does not exist.", "42S02", 3807);
        }
        return t;
    }

    private ModelTable inspected(String name) {
        ModelTable t = tables.get(SessionRules.objectKey(defaultDatabase, name));
        if (t == null) {
            throw new ModelViolation("the test inspects a table that does not exist: " + name);
        }
        return t;
    }

    /** CURRENT_TIMESTAMP(6) of a request: the session zone's wall clock, strictly increasing. */
    LocalDateTime now() {
        LocalDateTime n = clockStart != null ? clockStart : LocalDateTime.now(sessionZone).truncatedTo(ChronoUnit.MICROS);
        if (!n.isAfter(lastNow)) {
            n = lastNow.plus(1, ChronoUnit.MICROS);
        }
        lastNow = n;
        return n;
    }

    OffsetDateTime nowWithZone(LocalDateTime local) {
        return local.atZone(sessionZone).toOffsetDateTime();
    }

    static final Comparator<ModelTable.Row> FIFO = Comparator
            .comparing((ModelTable.Row r) -> (LocalDateTime) r.get("qits"))
            .thenComparing(r -> (Long) r.get("seq"));

    static final Pattern TABLE = Pattern.compile("\"([^\"]+)\"\\.\"([^\"]+)\"");

    static Matcher match(Pattern p, String sql) {
        Matcher m = p.matcher(sql);
        return m.matches() ? m : null;
    }

    static Object bindValue(Object v) {
        if (v instanceof Timestamp ts) {
            return ts.toLocalDateTime();
        }
        return v;
    }
}
