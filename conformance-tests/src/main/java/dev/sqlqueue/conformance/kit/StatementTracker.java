package dev.sqlqueue.conformance.kit;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Where a case is waiting, seen from the client: the kit hands every backend of a case a
 * {@code DataSource} wrapped by {@link #wrap} (through {@code QueueConfig.dataSourceWrapper}), whose
 * connections and statements are proxies that record, per case prefix, which connections are borrowed and
 * which statement each is executing, since when and on which thread. When a case runs past its time limit
 * the kit reads {@link #inFlight}, then {@link #stop}s the prefix: no new connection, every running
 * statement cancelled ({@link Statement#cancel()}), then every connection still borrowed aborted
 * ({@link Connection#abort}).
 *
 * <p>The proxies change nothing the connections do; they add two {@code System.nanoTime()} calls and a
 * map update per statement. Thread-safe.
 */
final class StatementTracker {
    private static final int MAX_SQL = 200;

    /** One statement executing now. */
    record InFlight(String sql, long nanosRunning, String thread) {
        @Override
        public String toString() {
            return String.format("%s (running %.1f s on thread %s)", sql, nanosRunning / 1e9, thread);
        }
    }

    private static final class Borrowed {
        final Connection connection;
        volatile Statement running;
        volatile String sql;
        volatile long since;
        volatile String thread;

        Borrowed(Connection connection) {
            this.connection = connection;
        }
    }

    private final Map<String, Set<Borrowed>> borrowed = new ConcurrentHashMap<>();
    private final Set<String> stopped = ConcurrentHashMap.newKeySet();

    /** {@code ds} with every connection it hands out tracked under {@code prefix}. */
    DataSource wrap(String prefix, DataSource ds) {
        Set<Borrowed> set = borrowed.computeIfAbsent(prefix, k -> ConcurrentHashMap.newKeySet());
        return (DataSource) Proxy.newProxyInstance(StatementTracker.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("getConnection")) {
                        if (stopped.contains(prefix)) {
                            throw new SQLException("the conformance kit stopped this case (time limit reached): no new connection");
                        }
                        Connection c = (Connection) invoke(m, ds, args);
                        Borrowed b = new Borrowed(c);
                        set.add(b);
                        return connection(b, set);
                    }
                    return invoke(m, ds, args);
                });
    }

    private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Connection connection(Borrowed b, Set<Borrowed> set) {
        InvocationHandler h = (proxy, m, args) -> {
            String name = m.getName();
            if (name.equals("close")) {
                set.remove(b);
                return invoke(m, b.connection, args);
            }
            Object result = invoke(m, b.connection, args);
            if (result instanceof Statement st && (name.equals("createStatement") || name.equals("prepareStatement")
                    || name.equals("prepareCall"))) {
                String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
                return statement(b, st, sql);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(StatementTracker.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private Statement statement(Borrowed b, Statement st, String preparedSql) {
        Class<?> iface = st instanceof CallableStatement ? CallableStatement.class
                : st instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        List<String> batch = new ArrayList<>();
        InvocationHandler h = (proxy, m, args) -> {
            String name = m.getName();
            if (name.equals("addBatch") && args != null && args.length == 1 && args[0] instanceof String s) {
                batch.add(s);
            }
            if (!name.startsWith("execute")) {
                return invoke(m, st, args);
            }
            String sql = args != null && args.length > 0 && args[0] instanceof String s ? s
                    : preparedSql != null ? preparedSql : String.join("; ", batch);
            b.sql = name.contains("Batch") ? "batch of " + sql : sql;
            b.thread = Thread.currentThread().getName();
            b.since = System.nanoTime();
            b.running = st;
            try {
                return invoke(m, st, args);
            } finally {
                b.running = null;
                if (name.contains("Batch")) {
                    batch.clear();
                }
            }
        };
        return (Statement) Proxy.newProxyInstance(StatementTracker.class.getClassLoader(), new Class<?>[] {iface}, h);
    }

    /** The statements executing now on connections of these prefixes, longest-running first. */
    List<InFlight> inFlight(List<String> prefixes) {
        long now = System.nanoTime();
        List<InFlight> out = new ArrayList<>();
        for (String p : prefixes) {
            for (Borrowed b : borrowed.getOrDefault(p, Set.of())) {
                if (b.running != null) {
                    String sql = b.sql == null ? "(unknown statement)" : ResultCollector.oneLine(b.sql);
                    out.add(new InFlight(ResultCollector.shorten(sql, MAX_SQL), now - b.since, b.thread));
                }
            }
        }
        out.sort((x, y) -> Long.compare(y.nanosRunning(), x.nanosRunning()));
        return out;
    }

    /** Connections of these prefixes borrowed now (not yet closed). */
    int borrowedCount(List<String> prefixes) {
        return prefixes.stream().mapToInt(p -> borrowed.getOrDefault(p, Set.of()).size()).sum();
    }

    /**
     * Stops these prefixes: no new connection; every running statement cancelled; then, after up to 3 s
     * for the cancelled statements to return, every connection still borrowed aborted. Returns what it
     * did, for the report ("2 statements cancelled, 3 connections still borrowed aborted").
     */
    String stop(List<String> prefixes) {
        stopped.addAll(prefixes);
        int cancelled = 0;
        int closed = 0;
        List<String> errors = new ArrayList<>();
        ExecutorService aborter = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "sqlqueue-kit-abort");
            t.setDaemon(true);
            return t;
        });
        try {
            for (String p : prefixes) {
                for (Borrowed b : borrowed.getOrDefault(p, Set.of())) {
                    Statement st = b.running;
                    if (st != null) {
                        try {
                            st.cancel();
                            cancelled++;
                        } catch (SQLException | RuntimeException e) {
                            errors.add("cancel: " + e.getMessage());
                        }
                    }
                }
            }
            // give cancelled statements a moment to return, so that their threads hand their connections
            // back themselves; abort only what is still borrowed after that
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (!inFlight(prefixes).isEmpty() && System.nanoTime() < until) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            for (String p : prefixes) {
                for (Borrowed b : borrowed.getOrDefault(p, Set.of())) {
                    try {
                        b.connection.abort(aborter);
                        closed++;
                    } catch (SQLException | RuntimeException | AbstractMethodError e) {
                        try {
                            b.connection.close();
                            closed++;
                        } catch (SQLException | RuntimeException e2) {
                            errors.add("close: " + e2.getMessage());
                        }
                    }
                }
                borrowed.remove(p);
            }
        } finally {
            aborter.shutdown();
            try {
                aborter.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return cancelled + " statement" + (cancelled == 1 ? "" : "s") + " cancelled, " + closed + " connection"
                + (closed == 1 ? "" : "s") + " still borrowed aborted" + (errors.isEmpty() ? "" : " (" + String.join("; ", errors) + ")");
    }

    /** Forgets a prefix once its case is over. */
    void forget(String prefix) {
        borrowed.remove(prefix);
    }
}
