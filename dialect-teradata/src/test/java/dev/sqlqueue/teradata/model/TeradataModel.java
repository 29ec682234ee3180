package dev.sqlqueue.teradata.model;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
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
 *   request-level error (6706, 3803, 3807, 3996, 3604, 3810, 2801) undoes only itself and the transaction
 *   stays open with its locks and consumes; a deadlock (2631), the delay limit (3128) or an abort ends the
 *   whole transaction. A session that logs off rolls its transaction back.</li>
 *   <li><b>Teradata (BTET) mode</b> ({@link #ansiSessions} false; Database Administration, "Transaction
 *   Processing in Teradata Session Mode": "If an error occurs, the request fails, the entire transaction is
 *   aborted and all locks are released"): any error rolls the whole transaction back. With auto-commit
 *   off the driver opens a transaction with BT before a request when none is open and ends it with ET
 *   ({@link Terajdbc}).</li>
 *   <li><b>Deadlocks</b> ({@link Deadlocks}): 2631 at once on one AMP, after {@link #deadlockTimeoutMillis}
 *   across AMPs.</li>
 *   <li><b>The driver</b> ({@link Terajdbc}, {@link ModelJdbc}): cancel, query timeout, abort, close,
 *   auto-commit, error numbers and time conversion as terajdbc {@value Terajdbc#VERSION} does them.</li>
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
 * {@link #abortHonoured} (V4), {@link #cacheListsUncommitted} (V5), {@link #keys} (V1),
 * {@link #cancelArrivesLate}. Time: QITS and {@code CURRENT_TIMESTAMP} come from {@link #sessionZone}; the
 * driver hands a zone-less TIMESTAMP out through the JVM's zone ({@link Terajdbc#timestamp}). Thread-safe:
 * one monitor guards everything.
 */
public final class TeradataModel {
    /**
     * How the database answers {@code getGeneratedKeys()} after an insert. terajdbc 20.00.00.51 asks for
     * the identity column only when the statement was prepared with {@code RETURN_GENERATED_KEYS}
     * (generated-key type {@code 'C'}) and for whole rows when it was prepared with column names
     * ({@code 'R'}): {@code jdbc_4.statemachine.StatementSendState}. What an iterated request gets back is
     * not documented (V1), hence the switch.
     */
    public enum Keys {
        /** One result set, one row per inserted row, one column {@code seq}. */
        ONE_ROW_PER_INSERT,
        /** Only the first inserted row of a batch comes back (the others would be in further result sets). */
        FIRST_OF_BATCH_ONLY,
        /** Whole inserted rows, every column, QITS first. */
        WHOLE_ROWS,
        /** One key per row, but the keys of a batch in the reverse order of its rows. */
        BATCH_REVERSED
    }

    /**
     * V4: whether the server answers an Abort parcel (sent by {@code Statement.cancel()} or by an expired
     * query timeout) for a request waiting in the delay state or on a lock, by failing it and rolling the
     * transaction back ("Application-initiated, asynchronous aborts also cause full transaction rollback":
     * "ANSI Mode Transactions"). Not documented for a delayed consume; default true.
     */
    public volatile boolean abortHonoured = true;
    /** V5: whether a consume sees (and waits on) a row another transaction inserted and has not committed. */
    public volatile boolean cacheListsUncommitted = true;
    /**
     * When set, an Abort that {@code Statement.cancel()} sends while a request runs reaches the server
     * after that request ended and aborts the session's next request instead: the worst case of an
     * asynchronous abort that arrives late (the driver names the request in the Abort,
     * {@code jdbc_4.statemachine.StatementAbortState}; what the server does with one for a finished
     * request is not documented).
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
    /** Transaction mode of new sessions: ANSI (true) or Teradata (false); the URL's TMODE decides it on a real system. */
    public volatile boolean ansiSessions = true;
    /** DBS Control DeadLockTimeout, ms: how long a deadlock across AMPs lasts before it is found (default 240 s). */
    public volatile long deadlockTimeoutMillis = 240_000;
    /**
     * N12: how long the database keeps a session and its open transaction after its connection dropped,
     * waiting for the driver to reconnect (Recoverable Network Protocol; 0: not negotiated, the session
     * ends and its transaction is rolled back at once). "With the RNP/Redrive feature, the database keeps the
     * transactions open" (ODBC Driver for Teradata 17.20, "Recoverable Network Protocol and Redrive
     * Capability"); terajdbc asks for it by default (REDRIVE level 3,
     * {@code GenericTeradataConnection.connectionTypeDefaultRedriveLevel}). A system's window is not
     * documented here.
     */
    public volatile long reconnectWindowMillis;
    /** AMPs the row hashes spread over ({@link Deadlocks#amp}). */
    public volatile int amps = 4;
    /**
     * The query timeout ({@code Statement.setQueryTimeout}) of the last execution of each SQL text, seconds
     * (0 = none). How the driver ends a request that outlives it is {@link Terajdbc#TIMEOUT}.
     */
    private final Map<String, Integer> queryTimeouts = new java.util.concurrent.ConcurrentHashMap<>();

    /** The query timeout (seconds, 0 = none) of the last execution of {@code sql}, or null if it never ran. */
    public Integer queryTimeoutOf(String sql) {
        return queryTimeouts.get(sql);
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

    /** A data source whose every connection is a new session in the mode of {@link #ansiSessions}, auto-commit on (JDBC default). */
    public DataSource dataSource() {
        return ModelJdbc.dataSource(this);
    }

    ModelSession logon() {
        ModelSession s = new ModelSession(sessionIds.incrementAndGet(), ansiSessions);
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

    /**
     * The next request whose SQL matches fails with error {@code code}, as the database would report it: one
     * of the transaction-ending numbers rolls the whole transaction back, any other undoes the request.
     */
    public void failNext(Predicate<String> sql, int code) {
        failures.add(new Hook(sql, () -> { }));
        failureCodes.add(code);
    }

    private final List<Hook> failures = new CopyOnWriteArrayList<>();
    private final List<Integer> failureCodes = new CopyOnWriteArrayList<>();

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

    /** The AMP a row hash of {@code table} (dictionary name) lives on, as the model spreads them ({@link Deadlocks#amp}). */
    public int amp(String table, Object rowHashValue) {
        return Deadlocks.amp(SessionRules.objectKey(defaultDatabase, table), rowHashValue, amps);
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

    /** COMMIT (ANSI: {@code COMMIT WORK}; Teradata mode: {@code ET}), sent by the driver only while a transaction is open. */
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

    /** ROLLBACK (ANSI: {@code ROLLBACK WORK}; Teradata mode: {@code ABORT}, whose 3514 the driver swallows: {@code TDSession.rollback}). */
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
        s.inTransaction = false;
        locks.removeIf(l -> l.owner() == s);
        monitor.notifyAll();
    }

    /** Logoff, or a dropped connection: the open transaction is rolled back (SQL Request and Transaction Processing, "Transaction Rollback"). */
    void endSession(ModelSession s) {
        synchronized (monitor) {
            if (!s.closed) {
                rollbackNow(s);
                s.closed = true;
                s.waiting = null;
                monitor.notifyAll();
            }
        }
    }

    /**
     * The connection's socket closed without a logoff (the driver gave up on an Abort, or a network
     * failure): the client cannot use the session any more; the database ends it and rolls its transaction
     * back, at once or, with RNP ({@link #reconnectWindowMillis}), when the reconnect window has passed.
     */
    void dropConnection(ModelSession s) {
        synchronized (monitor) {
            if (s.closed) {
                return;
            }
            s.closed = true;
            s.socketClosed = true;
            s.waiting = null;
            monitor.notifyAll();
            long window = reconnectWindowMillis;
            if (window <= 0) {
                rollbackNow(s);
                return;
            }
            log.add("s" + s.id + " connection dropped: the session is kept " + window + " ms for a reconnect");
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(window);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (monitor) {
                    log.add("s" + s.id + " reconnect window over: rolled back");
                    rollbackNow(s);
                }
            }, "teradata-model-reconnect-window");
            t.setDaemon(true);
            t.start();
        }
    }

    /**
     * {@code Connection.close()}: {@code jdbc_4.TDSession.close} waits for the session lock, which a running
     * request holds, then logs off. So a close from another thread cannot end a blocked request.
     */
    void close(ModelSession s) {
        synchronized (monitor) {
            long since = System.currentTimeMillis();
            while (s.request != null && !s.closed) {
                if (System.currentTimeMillis() - since > maxBlockMillis) {
                    throw new ModelViolation("Connection.close waited " + maxBlockMillis + " ms for the running request of "
                            + s + " (terajdbc's close waits for the session lock)");
                }
                waitOnMonitor();
            }
            log.add("s" + s.id + " logoff");
            endSession(s);
        }
    }

    /**
     * {@code Statement.cancel()}: {@code jdbc_4.TDStatement.cancel} acts only on its own statement's
     * request. ACTIVE (not yet sent): the state becomes ABORTED and the executing thread is interrupted;
     * the request then fails with 751 before it is sent. REQUEST_SENT: an Abort parcel is sent
     * ({@code StatementAbortState}) and the state becomes ABORT_SENT. Any other state: nothing.
     */
    void cancel(ModelSession s, Object statement) {
        synchronized (monitor) {
            ModelRequest r = s.request;
            if (r == null || r.statement != statement) {
                return;
            }
            if (r.state == ModelRequest.ACTIVE) {
                r.state = ModelRequest.ABORTED;
                r.thread.interrupt();
            } else if (r.state == ModelRequest.REQUEST_SENT) {
                if (cancelArrivesLate) {
                    s.cancelPending = true;
                } else {
                    r.state = ModelRequest.ABORT_SENT;
                }
            }
            monitor.notifyAll();
        }
    }

    private static SQLException lost() {
        return new SQLNonTransientConnectionException("[Teradata model] session lost", "08S01", 0);
    }

    static void checkOpen(ModelSession s) throws SQLException {
        if (s.socketClosed) {
            throw Terajdbc.socketFailure();
        }
        if (s.closed) {
            throw Terajdbc.connectionClosed();
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
     * Executes one request of {@code statement}: one SQL statement with one or more rows of parameters (an
     * iterated request), with the statement's query timeout. Hooks run while the request is ACTIVE (before
     * it is sent). Then, as the driver does: BT first in Teradata mode with auto-commit off and no open
     * transaction ({@code TDSession.beforeExecuteStatement}); COMMIT after it with auto-commit on
     * ({@code TDSession.afterExecuteStatement}).
     */
    Answer execute(ModelSession s, Object statement, String sql, List<List<Object>> paramRows, int timeoutSeconds)
            throws SQLException {
        queryTimeouts.put(sql, timeoutSeconds);
        ModelRequest r = new ModelRequest(statement, Thread.currentThread(), timeoutSeconds);
        synchronized (monitor) {
            checkOpen(s);
            s.request = r;
        }
        try {
            runHooks(sql);
            synchronized (monitor) {
                checkOpen(s);
                if (r.state == ModelRequest.ABORTED) {
                    throw Terajdbc.cancelled(); // TDStatement.checkAborted: never sent, the transaction untouched
                }
                r.sent();
                if (!s.ansi && !s.autoCommit && !s.inTransaction) {
                    log.add("s" + s.id + " BT");
                }
                s.inTransaction = true;
                return run(s, sql, paramRows);
            }
        } finally {
            synchronized (monitor) {
                s.request = null;
                monitor.notifyAll();
            }
        }
    }

    private Answer run(ModelSession s, String sql, List<List<Object>> paramRows) throws SQLException {
        s.requestUndo = new ArrayList<>();
        try {
            if (s.cancelPending) {
                s.cancelPending = false;
                throw abortByUser(s);
            }
            for (int i = 0; i < failures.size(); i++) {
                if (failures.get(i).sql().test(sql)) {
                    failures.remove(i);
                    int code = failureCodes.remove(i);
                    String text = "Failure " + code + " injected by the test.";
                    throw transactionEnding(code) ? abortWith(s, code, text) : new SQLException("[Teradata Database] [Error "
                            + code + "] " + text, "HY000", code);
                }
            }
            Answer a = ModelStatements.run(this, s, sql, paramRows);
            s.undo.addAll(s.requestUndo);
            if (s.autoCommit) {
                commit(s);
            }
            return a;
        } catch (SQLException e) {
            log.add("s" + s.id + " error " + e.getErrorCode());
            if (!s.closed && !transactionEnding(e.getErrorCode())) {
                List<Runnable> u = s.requestUndo;
                for (int i = u.size() - 1; i >= 0; i--) {
                    u.get(i).run();
                }
                if (s.autoCommit || !s.ansi) {
                    rollbackNow(s); // an implicit transaction ends; Teradata mode: any error aborts the transaction
                }
            }
            throw e;
        } finally {
            s.delayed = false;
            s.waiting = null;
        }
    }

    /** Error numbers after which the server has rolled the whole transaction back (also in ANSI mode). */
    private static boolean transactionEnding(int code) {
        return code == 2631 || code == 3128 || code == 3110 || code == 2646 || code == 7423
                || code == Terajdbc.CANCELLED || code == Terajdbc.TIMEOUT;
    }

    /** Aborts the session's transaction (3128, deadlock, an answered Abort): rolls back, returns the error to throw. */
    SQLException abortWith(ModelSession s, int code, String text) {
        rollbackRequestAndTransaction(s);
        return new SQLException("[Teradata Database] [Error " + code + "] " + text, code == 2631 ? "40001" : "HY000", code);
    }

    private void rollbackRequestAndTransaction(ModelSession s) {
        for (int i = s.requestUndo.size() - 1; i >= 0; i--) {
            s.requestUndo.get(i).run();
        }
        s.requestUndo.clear();
        rollbackNow(s);
    }

    /** An Abort the server answered: 3110 on the wire, which the driver reports as 751 ({@code ErrorAnalyzer.analyzeError}). */
    private SQLException abortByUser(ModelSession s) {
        rollbackRequestAndTransaction(s);
        return Terajdbc.cancelled();
    }

    /**
     * Waits on the monitor (caller holds it) for a change, as the driver's socket read waits for the
     * answer. An Abort the server answers ends the request and rolls the transaction back: 751 after a
     * cancel, the stored 802 after a query timeout. When the read outlives the query timeout, the driver
     * sends an Abort and reads again for another query timeout; when that one runs out too, or the read
     * after a cancel runs out, the driver closes the socket (TJ782/TJ783, 08S01) and the session ends
     * (RNP, which could keep it, is not modelled). Without a query timeout the read never ends by itself.
     */
    void block(ModelSession s, long since, String why) throws SQLException {
        ModelRequest r = s.request;
        checkOpen(s);
        if (r != null && abortHonoured && r.state == ModelRequest.ABORT_SENT) {
            log.add("s" + s.id + " aborted by cancel");
            throw abortByUser(s);
        }
        if (r != null && abortHonoured && r.state == ModelRequest.ABORT_TIMEOUT_SENT) {
            log.add("s" + s.id + " aborted by query timeout (" + r.timeoutSeconds + " s)");
            rollbackRequestAndTransaction(s);
            throw Terajdbc.timedOut();
        }
        long now = System.currentTimeMillis();
        if (r != null && r.readDeadline > 0 && now >= r.readDeadline) {
            if (r.state == ModelRequest.REQUEST_SENT) {
                log.add("s" + s.id + " query timeout (" + r.timeoutSeconds + " s): Abort sent");
                r.state = ModelRequest.ABORT_TIMEOUT_SENT;
                r.readDeadline = now + r.timeoutSeconds * 1000L;
                return;
            }
            boolean afterCancel = r.state == ModelRequest.ABORT_SENT;
            log.add("s" + s.id + " socket closed by the driver: Abort unanswered");
            s.requestUndo.clear();
            dropConnection(s);
            throw Terajdbc.abortUnanswered(afterCancel);
        }
        if (now - since > maxBlockMillis) {
            throw new ModelViolation(s + " blocked for " + maxBlockMillis + " ms: " + why);
        }
        blocked++;
        try {
            waitOnMonitor();
        } finally {
            blocked--;
        }
    }

    /** One wait of up to 10 ms. A socket read is not interruptible: an interrupt flag is kept, not acted on. */
    private void waitOnMonitor() {
        boolean interrupted = Thread.interrupted();
        try {
            monitor.wait(10);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes a lock, waiting while another transaction holds a conflicting one. Row null = the whole table.
     * A wait that closes a cycle of waits is a deadlock ({@link Deadlocks}): the victim's transaction is
     * rolled back with 2631.
     */
    void lock(ModelSession s, ModelTable t, Object row, boolean write) throws SQLException {
        long since = System.currentTimeMillis();
        try {
            while (true) {
                checkOpen(s);
                Lock conflict = null;
                for (Lock l : locks) {
                    if (l.owner() != s && l.table().equals(key(t)) && (l.row() == null || row == null || sameRow(l.row(), row))
                            && (l.write() || write)) {
                        conflict = l;
                        break;
                    }
                }
                if (conflict == null) {
                    locks.add(new Lock(s, key(t), row, write));
                    return;
                }
                Object at = row != null ? row : conflict.row();
                waitFor(s, conflict.owner(), Deadlocks.amp(key(t), at, amps), since);
                block(s, since, (write ? "WRITE" : "READ") + " lock on " + t.name + (row == null ? "" : " row hash " + row)
                        + " held by " + conflict.owner());
            }
        } finally {
            s.waiting = null;
        }
    }

    /** Records that {@code s} waits for {@code holder}, and ends a deadlock this wait is part of, if it is time. */
    void waitFor(ModelSession s, ModelSession holder, int amp, long since) throws SQLException {
        s.waiting = new Deadlocks.Wait(holder, amp, since);
        List<ModelSession> cycle = Deadlocks.cycle(s);
        if (cycle == null) {
            return;
        }
        boolean found = Deadlocks.local(cycle)
                || Deadlocks.age(cycle, System.currentTimeMillis()) >= deadlockTimeoutMillis;
        if (found && Deadlocks.victim(cycle) == s) {
            log.add("s" + s.id + " deadlock " + (Deadlocks.local(cycle) ? "on one AMP" : "across AMPs") + " with " + cycle);
            s.waiting = null;
            throw abortWith(s, 2631, "Transaction ABORTed due to deadlock.");
        }
    }

    /** Row hashes of character values compare without trailing blanks (Rule K), like the values themselves. */
    static boolean sameRow(Object a, Object b) {
        if (a instanceof String x && b instanceof String y) {
            return x.stripTrailing().equals(y.stripTrailing());
        }
        return a.equals(b);
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
}
