package dev.sqlqueue.bench;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerListener;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import dev.sqlqueue.skiplocked.SkipLockedDialect;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Latency at a fixed offered load (issue 32 point 2), {@code BenchMain --scenario=latency}.
 *
 * <ol>
 *   <li><b>Maximum</b> (unless given with {@code --latency-max}): {@link #PRODUCERS} producer threads call
 *       {@code enqueueAll} of 100 as fast as they can (paused while more than {@link #MAX_BACKLOG} messages wait)
 *       while the consumers below drain; the maximum is the handled rate over the last two thirds of
 *       {@code --latency-max-s}.</li>
 *   <li><b>Idle cost</b>: the consumers wait on an empty queue; after {@link #IDLE_SETTLE_S} s (their polls have
 *       backed off to the idle interval) the statements the library sends are counted for
 *       {@code --latency-idle-s} seconds, on the client by a counting proxy on the library's {@code DataSource}
 *       ({@link QueueConfig#dataSourceWrapper()}) and on the server where it keeps a counter (see
 *       {@link ServerCounter}).</li>
 *   <li><b>Each load</b> (default 10, 50 and 90 % of the maximum), {@code --latency-s} seconds on the same queue
 *       and the same consumers: an open-loop schedule, message {@code i} due at {@code start + i / rate}. Producer
 *       threads send whatever is due (up to 100 per {@code enqueueAll}, one when only one is due) and sleep until
 *       the next is; each message carries its <em>due</em> time in its payload, so a producer that falls behind
 *       does not hide the wait (no coordinated omission). The handler records {@code System.nanoTime()} minus
 *       the due time: the latency from when the message should have been sent to when its handler starts. The
 *       first {@link #WARM_S} s of each load are left out of the percentiles.</li>
 * </ol>
 *
 * <p>Consumers: one {@link SqlQueue} opened as a user opens it (own pool, default {@link QueueConfig}: idle polls
 * at most {@code idlePollMax} = 1 s apart; on PostgreSQL its LISTEN connection wakes them), a {@link WorkerPool}
 * with {@link WorkerOptions#defaults()} (4 threads, claims up to 100, 1 s poll wait) whose handler only records.
 * The producers enqueue through a <em>second</em> {@code SqlQueue} on the same tables, as another process would,
 * so the consumers' in-process wake-up (an enqueue through the same {@code SqlQueue} wakes its waiters at once)
 * does not shorten what is measured: PostgreSQL consumers are woken by NOTIFY, the others find messages by
 * polling. Both run in one JVM, so the due time and the handler's clock are the same {@code System.nanoTime}.
 */
final class LatencyBench {
    private LatencyBench() {
    }

    static final int PRODUCERS = 3;
    static final int MAX_BATCH = 100;
    static final long MAX_BACKLOG = 2_000;
    static final int WARM_S = 2;
    /**
     * Seconds the consumers wait on the empty queue before the idle count starts: their polls back off to the idle
     * interval within about 2 s; on PostgreSQL 12 s, as an idle backend reports its transaction counts to
     * {@code pg_stat_database} up to 10 s late (PostgreSQL 15, {@code PGSTAT_IDLE_INTERVAL}), and the counts of the
     * maximum's thousands of transactions must be in before the first read.
     */
    static final int IDLE_SETTLE_S = 3;
    static final int IDLE_SETTLE_POSTGRES_S = 12;
    static final int PAYLOAD = 100;
    static final String CSV_HEADER = "date,db,load_pct,max_msg_s,offered_msg_s,achieved_msg_s,messages,measured,p50_ms,p99_ms,"
            + "p999_ms,max_ms,mean_ms,duplicates,missing,idle_client_stmt_s,idle_server_q_s,idle_server_method,"
            + "idle_poll_ms,threads,load_avg,enqueue_p50_ms,enqueue_p99_ms,"
            + "wait_p50_ms,wait_p99_ms";

    /** Settings of one run ({@code BenchMain --latency-*}). */
    record Options(List<Integer> loads, double max, int maxSeconds, int levelSeconds, int idleSeconds, int threads) {
    }

    // ---- the schedule and the percentiles (pure, unit-tested) ------------------------------------------------

    /** When message {@code index} of a schedule at {@code rate} msg/s starting at {@code start} is due (ns). */
    static long due(long start, long index, double rate) {
        return start + (long) Math.floor(index * 1e9 / rate);
    }

    /** How many messages of the schedule are due at {@code now}: indices {@code 0 .. result-1}. */
    static long dueCount(long start, long now, double rate) {
        if (now < start) {
            return 0;
        }
        long n = (long) Math.floor((now - start) * rate / 1e9) + 1;
        // floating point at the boundary: make the answer agree with due()
        while (n > 0 && due(start, n - 1, rate) > now) {
            n--;
        }
        while (due(start, n, rate) <= now) {
            n++;
        }
        return n;
    }

    /** The nearest-rank percentile {@code p} (0 &lt; p &le; 1) of sorted values: the smallest value with at least p of all at or below it. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        int rank = (int) Math.ceil(p * sorted.length - 1e-9);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    // ---- the run -------------------------------------------------------------------------------------------

    static void run(Database db, Options o, PrintWriter csv) throws Exception {
        String prefix = "bl" + Long.toString(System.currentTimeMillis(), 36)
                + Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36) + "_";
        StatementCounter counted = new StatementCounter();
        QueueConfig consumerConfig = QueueConfig.builder().url(db.url()).user(db.user()).password(db.password())
                .tablePrefix(prefix).poolSize(o.threads() + 2).dataSourceWrapper(counted::wrap).build();
        SqlQueue consumers = SqlQueue.open(consumerConfig);
        SqlQueue producers = SqlQueue.open(QueueConfig.builder().url(db.url()).user(db.user()).password(db.password())
                .tablePrefix(prefix).poolSize(PRODUCERS).build());
        long pollMs = consumerConfig.idlePollMax().toMillis();
        WorkerOptions options = WorkerOptions.defaults().withThreads(o.threads());
        System.out.printf(Locale.ROOT, "-- %s (%s), latency: table prefix %s, consumers: WorkerOptions.defaults() with %d threads, "
                        + "pool %d, idlePollMax %d ms, poll wait %d ms; producers: a second SqlQueue, pool %d, %d threads; load %s%n",
                db.name(), consumers.serverVersion(), prefix, o.threads(), o.threads() + 2, pollMs,
                options.pollWait().toMillis(), PRODUCERS, PRODUCERS, Results.loadAverage());
        try {
            double max = o.max() > 0 ? o.max() : maximum(consumers, producers, options, o.maxSeconds());
            if (o.max() > 0) {
                System.out.printf(Locale.ROOT, "   maximum given: %.0f msg/s%n", max);
            }
            QueueName q = QueueName.of("latency");
            consumers.createQueue(q);
            Recorder rec = new Recorder();
            AtomicInteger lost = new AtomicInteger();
            WorkerPool pool = WorkerPool.start(consumers, q, d -> {
                rec.handled(d, System.nanoTime());
                return Outcome.ack();
            }, options, new WorkerListener() {
                @Override
                public void leaseLost(Delivery delivery) {
                    lost.incrementAndGet();
                }
            });
            try {
                Idle idle = idle(db, counted, o.idleSeconds());
                for (int pct : o.loads()) {
                    level(db, producers, q, rec, max, pct, o, idle, pollMs, csv);
                }
            } finally {
                pool.close();
            }
            if (lost.get() > 0) {
                System.out.printf("   note: %d lease-lost reports%n", lost.get());
            }
        } finally {
            try {
                consumers.dropSchema();
            } finally {
                producers.close();
                consumers.close();
            }
        }
    }

    /** Producers at full speed and the consumers together; the handled rate of the last two thirds. */
    private static double maximum(SqlQueue consumers, SqlQueue producers, WorkerOptions options, int seconds) throws Exception {
        QueueName q = QueueName.of("maximum");
        consumers.createQueue(q);
        AtomicLong enqueued = new AtomicLong();
        AtomicLong handled = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < MAX_BATCH; i++) {
            batch.add(Message.of(new byte[PAYLOAD]));
        }
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            Thread th = new Thread(() -> {
                while (!stop.get()) {
                    if (enqueued.get() - handled.get() > MAX_BACKLOG) {
                        LockSupport.parkNanos(1_000_000);
                        continue;
                    }
                    producers.enqueueAll(q, batch);
                    enqueued.addAndGet(MAX_BATCH);
                }
            }, "latency-max-producer-" + p);
            th.setDaemon(true);
            threads.add(th);
        }
        WorkerPool pool = WorkerPool.start(consumers, q, d -> {
            handled.incrementAndGet();
            return Outcome.ack();
        }, options);
        threads.forEach(Thread::start);
        long warm = Math.max(1, seconds / 3);
        Thread.sleep(warm * 1000);
        long h0 = handled.get();
        long t0 = System.nanoTime();
        Thread.sleep((seconds - warm) * 1000L);
        double rate = (handled.get() - h0) / ((System.nanoTime() - t0) / 1e9);
        stop.set(true);
        for (Thread th : threads) {
            th.join(30_000);
        }
        pool.close();
        consumers.purge(q);
        System.out.printf(Locale.ROOT, "   maximum: %.0f msg/s handled over the last %d of %d s (enqueueAll of %d, %d producers "
                + "at full speed, backlog below %d); load %s%n", rate, seconds - warm, seconds, MAX_BATCH, PRODUCERS, MAX_BACKLOG,
                Results.loadAverage());
        return rate;
    }

    record Idle(double clientPerSecond, double commitsPerSecond, double serverPerSecond, String serverMethod) {
    }

    private static Idle idle(Database db, StatementCounter counted, int seconds) throws Exception {
        int settle = db.dialect() == SkipLockedDialect.POSTGRES ? IDLE_SETTLE_POSTGRES_S : IDLE_SETTLE_S;
        Thread.sleep(settle * 1000L);
        ServerCounter server = ServerCounter.of(db);
        try {
            long c0 = counted.statements.get();
            long k0 = counted.commits.get();
            double s0 = server == null ? 0 : server.read();
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            double s1 = server == null ? 0 : server.read();
            double dt = (System.nanoTime() - t0) / 1e9;
            double client = (counted.statements.get() - c0) / dt;
            double commits = (counted.commits.get() - k0) / dt;
            double srv = server == null ? Double.NaN : Math.max(0, s1 - s0 - server.ownPerRead) / dt;
            String method = server == null ? "none (embedded)" : server.method;
            System.out.printf(Locale.ROOT, "   idle, %d s after %d s with nothing to do: the library sent %.2f statements/s "
                            + "(%.2f of them commits/rollbacks; counted on its DataSource); server: %s %s; load %s%n",
                    seconds, settle, client, commits, server == null ? "-" : String.format(Locale.ROOT, "%.2f/s", srv),
                    method + (server == null ? "" : ", " + server.others()), Results.loadAverage());
            return new Idle(client, commits, srv, method);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    /** Handler-side record of one load level: first handling of each index, duplicates. */
    static final class Recorder {
        private volatile Level level;

        void start(Level l) {
            this.level = l;
        }

        void handled(Delivery d, long now) {
            ByteBuffer b = ByteBuffer.wrap(d.payload());
            int run = b.getInt();
            long index = b.getLong();
            long due = b.getLong();
            Level l = level;
            if (l == null || l.run != run || index < 0 || index >= l.latency.length()) {
                return; // a message of an earlier level handled late: counted there as missing
            }
            if (l.latency.compareAndSet((int) index, -1, Math.max(0, now - due))) {
                l.handled.incrementAndGet();
            } else {
                l.duplicates.incrementAndGet();
            }
        }
    }

    static final class Level {
        final int run;
        final AtomicLongArray latency;
        /** Per message, from its due time to the return of the enqueue call that sent it (its commit). */
        final AtomicLongArray enqueued;
        final AtomicLong handled = new AtomicLong();
        final AtomicLong duplicates = new AtomicLong();

        Level(int run, int messages) {
            this.run = run;
            this.latency = new AtomicLongArray(messages);
            this.enqueued = new AtomicLongArray(messages);
            for (int i = 0; i < messages; i++) {
                latency.set(i, -1);
            }
        }
    }

    private static void level(Database db, SqlQueue producers, QueueName q, Recorder rec, double max, int pct, Options o,
                              Idle idle, long pollMs, PrintWriter csv) throws Exception {
        double rate = max * pct / 100.0;
        int n = (int) Math.max(1, Math.floor(rate * o.levelSeconds()));
        Level level = new Level(pct, n);
        rec.start(level);
        AtomicLong next = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        long start = System.nanoTime() + 50_000_000;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            Thread th = new Thread(() -> {
                try {
                    while (true) {
                        long i = next.get();
                        if (i >= n) {
                            return;
                        }
                        long now = System.nanoTime();
                        long due = due(start, i, rate);
                        if (due > now) {
                            LockSupport.parkNanos(due - now);
                            continue;
                        }
                        long hi = Math.min(Math.min(n, dueCount(start, now, rate)), i + MAX_BATCH);
                        if (!next.compareAndSet(i, hi)) {
                            continue;
                        }
                        List<Message> msgs = new ArrayList<>((int) (hi - i));
                        for (long k = i; k < hi; k++) {
                            byte[] payload = new byte[PAYLOAD];
                            ByteBuffer.wrap(payload).putInt(pct).putLong(k).putLong(due(start, k, rate));
                            msgs.add(Message.of(payload));
                        }
                        if (msgs.size() == 1) {
                            producers.enqueue(q, msgs.get(0));
                        } else {
                            producers.enqueueAll(q, msgs);
                        }
                        long done = System.nanoTime();
                        for (long k = i; k < hi; k++) {
                            level.enqueued.set((int) k, done - due(start, k, rate));
                        }
                        sent.addAndGet(msgs.size());
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "latency-producer-" + p);
            th.setDaemon(true);
            threads.add(th);
        }
        threads.forEach(Thread::start);
        for (Thread th : threads) {
            th.join();
        }
        double sentSeconds = (System.nanoTime() - start) / 1e9;
        if (!failures.isEmpty()) {
            throw new IllegalStateException("producer failed: " + failures.get(0), failures.get(0));
        }
        long waitUntil = System.nanoTime() + 60_000_000_000L;
        while (level.handled.get() < n && System.nanoTime() < waitUntil) {
            Thread.sleep(20);
        }
        double allSeconds = (System.nanoTime() - start) / 1e9;
        String load = Results.loadAverage();
        long warmEnd = start + WARM_S * 1_000_000_000L;
        long[] v = new long[n];
        long[] e = new long[n];
        long[] w = new long[n];
        int m = 0;
        long missing = 0;
        for (int i = 0; i < n; i++) {
            long l = level.latency.get(i);
            if (l < 0) {
                missing++;
            } else if (due(start, i, rate) >= warmEnd) {
                e[m] = level.enqueued.get(i);
                w[m] = l - e[m]; // negative when the handler ran before the producer heard its commit's reply
                v[m++] = l;
            }
        }
        v = Arrays.copyOf(v, m);
        Arrays.sort(v);
        e = Arrays.copyOf(e, m);
        Arrays.sort(e);
        double e50 = m == 0 ? Double.NaN : percentile(e, 0.50) / 1e6;
        double e99 = m == 0 ? Double.NaN : percentile(e, 0.99) / 1e6;
        w = Arrays.copyOf(w, m);
        Arrays.sort(w);
        double w50 = m == 0 ? Double.NaN : percentile(w, 0.50) / 1e6;
        double w99 = m == 0 ? Double.NaN : percentile(w, 0.99) / 1e6;
        double mean = m == 0 ? Double.NaN : Arrays.stream(v).average().orElse(0) / 1e6;
        double p50 = m == 0 ? Double.NaN : percentile(v, 0.50) / 1e6;
        double p99 = m == 0 ? Double.NaN : percentile(v, 0.99) / 1e6;
        double p999 = m == 0 ? Double.NaN : percentile(v, 0.999) / 1e6;
        double worst = m == 0 ? Double.NaN : v[m - 1] / 1e6;
        double achieved = level.handled.get() / allSeconds;
        System.out.printf(Locale.ROOT, "%-10s latency %3d %% of %.0f = %7.0f msg/s offered for %d s (sent in %.1f s, handled %.0f msg/s "
                        + "overall): p50 %8.2f ms  p99 %8.2f ms  p99.9 %8.2f ms  max %8.2f ms  mean %7.2f ms  (%d measured after %d s, "
                        + "%d duplicates, %d missing); due to enqueue returned: p50 %.2f ms  p99 %.2f ms; enqueue returned to handler: p50 %.2f ms  p99 %.2f ms; idle %.2f stmt/s  load %s%n",
                db.name(), pct, max, rate, o.levelSeconds(), sentSeconds, achieved, p50, p99, p999, worst, mean, m, WARM_S,
                level.duplicates.get(), missing, e50, e99, w50, w99, idle.clientPerSecond(), load);
        csv.printf(Locale.ROOT, "%s,%s,%d,%.0f,%.0f,%.0f,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%s,%s,%d,%d,%s,%.3f,%.3f,%.3f,%.3f%n",
                Instant.now(), db.name(), pct, max, rate, achieved, n, m, p50, p99, p999, worst, mean, level.duplicates.get(),
                missing, idle.clientPerSecond(), Double.isNaN(idle.serverPerSecond()) ? "" : String.format(Locale.ROOT, "%.3f",
                        idle.serverPerSecond()), idle.serverMethod(), pollMs, o.threads(), load, e50, e99, w50, w99);
        csv.flush();
    }

    // ---- counting statements ---------------------------------------------------------------------------------

    /**
     * Counts what the library's connections send: every {@code execute*} of a statement (a JDBC batch counts once,
     * it is one round trip) and every {@code commit}/{@code rollback}, which are round trips of their own on the
     * server backends. Through {@link QueueConfig#dataSourceWrapper()}, so it sees the backend's pool only: on
     * PostgreSQL not the LISTEN connection, which the backend opens with {@link DriverManager} and which sends one
     * {@code SELECT 1} after every 30 s without a notification ({@code PostgresWakeups.CHECK_EVERY_MS}).
     */
    static final class StatementCounter {
        final AtomicLong statements = new AtomicLong();
        final AtomicLong commits = new AtomicLong();

        DataSource wrap(DataSource ds) {
            return (DataSource) Proxy.newProxyInstance(LatencyBench.class.getClassLoader(), new Class<?>[] {DataSource.class},
                    (proxy, m, args) -> {
                        Object r = invoke(m, ds, args);
                        return m.getName().equals("getConnection") ? connection((Connection) r) : r;
                    });
        }

        private Connection connection(Connection c) {
            InvocationHandler h = (proxy, m, args) -> {
                String name = m.getName();
                if (name.equals("commit") || name.equals("rollback")) {
                    statements.incrementAndGet();
                    commits.incrementAndGet();
                }
                Object r = invoke(m, c, args);
                if (r instanceof Statement st && (name.equals("createStatement") || name.equals("prepareStatement")
                        || name.equals("prepareCall"))) {
                    return statement(st);
                }
                return r;
            };
            return (Connection) Proxy.newProxyInstance(LatencyBench.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
        }

        private Statement statement(Statement st) {
            Class<?> iface = st instanceof CallableStatement ? CallableStatement.class
                    : st instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
            InvocationHandler h = (proxy, m, args) -> {
                if (m.getName().startsWith("execute")) {
                    statements.incrementAndGet();
                }
                return invoke(m, st, args);
            };
            return (Statement) Proxy.newProxyInstance(LatencyBench.class.getClassLoader(), new Class<?>[] {iface}, h);
        }

        private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    /**
     * The server's own count, on a connection of this class's own (its reads subtracted): PostgreSQL
     * {@code xact_commit + xact_rollback} of the database in {@code pg_stat_database} (transactions: a claim of
     * several statements in one transaction is one; every session on that database counts, and backends report
     * their counts up to 10 s late), MariaDB {@code Questions} of {@code SHOW GLOBAL STATUS} (statements sent by any
     * client of the server). {@link #others()} names the other sessions, which the count includes.
     */
    static final class ServerCounter implements AutoCloseable {
        final Connection c;
        final String method;
        final String query;
        final double ownPerRead;
        final SkipLockedDialect dialect;

        private ServerCounter(Connection c, SkipLockedDialect dialect) {
            this.c = c;
            this.dialect = dialect;
            if (dialect == SkipLockedDialect.POSTGRES) {
                method = "pg_stat_database xact_commit+xact_rollback";
                query = "select xact_commit + xact_rollback from pg_stat_database where datname = current_database()";
                ownPerRead = 1; // the second read's own transaction may be counted in it
            } else {
                method = "SHOW GLOBAL STATUS Questions";
                query = "show global status like 'Questions'";
                ownPerRead = 1; // the second SHOW counts itself
            }
        }

        static ServerCounter of(Database db) throws SQLException {
            if (db.dialect() == SkipLockedDialect.H2) {
                return null;
            }
            Connection c = DriverManager.getConnection(db.url(), db.user(), db.password());
            c.setAutoCommit(true);
            return new ServerCounter(c, db.dialect());
        }

        double read() throws SQLException {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                rs.next();
                return Double.parseDouble(rs.getString(dialect == SkipLockedDialect.POSTGRES ? 1 : 2));
            }
        }

        /** The server's sessions beside this one, as a reader of the count needs to know. */
        String others() {
            String sql = dialect == SkipLockedDialect.POSTGRES
                    ? "select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()"
                    : "select count(*) from information_schema.processlist where id <> connection_id()";
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1) + " other sessions on it (the library's own included)";
            } catch (SQLException e) {
                return "sessions unknown";
            }
        }

        @Override
        public void close() throws SQLException {
            c.close();
        }
    }
}
