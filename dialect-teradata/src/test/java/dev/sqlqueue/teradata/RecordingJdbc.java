package dev.sqlqueue.teradata;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A recording test double of the JDBC interfaces, built with {@link Proxy}. It records, in order, every
 * statement executed (with its parameters), every commit, rollback, auto-commit change, cancel and
 * close, and answers each statement from a script given by the test. It does not lock, consume or roll
 * anything back; tests use it to pin the order of calls the backend makes. A scripted answer a real
 * system could not give under the documented rules is rejected
 * ({@link dev.sqlqueue.teradata.model.ScriptedAnswers}); tests of behaviour run on
 * {@link dev.sqlqueue.teradata.model.TeradataModel} instead.
 *
 * <p>Log entries: {@code Q <sql>} executeQuery, {@code U <sql> <params>} executeUpdate,
 * {@code B <sql> x<n>} executeBatch of n rows, {@code X <sql>} execute, {@code commit}, {@code rollback},
 * {@code autocommit=<b>}, {@code cancel}, {@code close}.
 */
final class RecordingJdbc {
    /** Rows a query answers with, with optional column labels. */
    record Rows(List<String> labels, List<Object[]> data) {
    }

    /** A scripted answer that blocks until the statement is cancelled, then fails. */
    static final Object BLOCK = new Object();

    static Rows rows(Object[]... data) {
        return new Rows(List.of(), List.of(data));
    }

    static Rows labelled(List<String> labels, Object[]... data) {
        return new Rows(labels, List.of(data));
    }

    static Object[] row(Object... values) {
        return values;
    }

    static SQLException error(int code, String state) {
        return new SQLException("scripted error " + code, state, code);
    }

    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Deque<Object>> script = new ConcurrentHashMap<>();
    private final AtomicLong nextKey = new AtomicLong(1000);
    volatile boolean autoCommitOnBorrow;
    volatile boolean valid = true;
    /** When set, getGeneratedKeys returns this many keys instead of one per inserted row. */
    volatile Integer keysOverride;

    /** Appends answers for an exact SQL text: {@link Rows}, an Integer update count, an SQLException or {@link #BLOCK}. */
    RecordingJdbc on(String sql, Object... answers) {
        Deque<Object> q = script.computeIfAbsent(sql, k -> new ArrayDeque<>());
        synchronized (q) {
            Collections.addAll(q, answers);
        }
        return this;
    }

    private Object next(String sql) {
        Deque<Object> q = script.get(sql);
        if (q == null) {
            return null;
        }
        synchronized (q) {
            return q.pollFirst();
        }
    }

    /** Log entries that are not {@code close}, {@code autocommit=...}. */
    List<String> calls() {
        synchronized (log) {
            return log.stream().filter(s -> !s.equals("close") && !s.startsWith("autocommit")).toList();
        }
    }

    void clear() {
        log.clear();
    }

    DataSource dataSource() {
        return proxy(DataSource.class, (p, m, a) -> switch (m.getName()) {
            case "getConnection" -> connection();
            case "getLogWriter" -> (PrintWriter) null;
            case "getParentLogger" -> Logger.getGlobal();
            case "unwrap", "isWrapperFor" -> throw new SQLException("not a wrapper");
            default -> defaults(m);
        });
    }

    private Connection connection() {
        boolean[] autoCommit = {autoCommitOnBorrow};
        boolean[] closed = {false};
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "createStatement" -> statement(null, false);
            case "prepareStatement" -> statement((String) a[0], a.length > 1);
            case "commit" -> record("commit");
            case "rollback" -> record("rollback");
            case "setAutoCommit" -> {
                autoCommit[0] = (Boolean) a[0];
                yield record("autocommit=" + a[0]);
            }
            case "getAutoCommit" -> autoCommit[0];
            case "close" -> {
                closed[0] = true;
                yield record("close");
            }
            case "isClosed" -> closed[0];
            case "isValid" -> valid;
            default -> defaults(m);
        });
    }

    private Object record(String entry) {
        log.add(entry);
        return null;
    }

    private Statement statement(String preparedSql, boolean keys) {
        Map<Integer, Object> params = new TreeMap<>();
        List<String> batch = new ArrayList<>();
        CountDownLatch cancelled = new CountDownLatch(1);
        long[] inserted = {0};
        Class<? extends Statement> type = preparedSql == null ? Statement.class : PreparedStatement.class;
        return proxy(type, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && a != null && a.length == 2 && a[0] instanceof Integer i) {
                params.put(i, name.equals("setNull") ? null : a[1]);
                return null;
            }
            String sql = a != null && a.length > 0 && a[0] instanceof String s ? s : preparedSql;
            switch (name) {
                case "executeQuery": {
                    log.add("Q " + sql + paramText(params));
                    Object ans = answer(sql, cancelled);
                    Rows r = ans instanceof Rows given ? given : rows();
                    dev.sqlqueue.teradata.model.ScriptedAnswers.check(sql, new ArrayList<>(params.values()), r.data());
                    return resultSet(r);
                }
                case "executeUpdate": {
                    log.add("U " + sql + paramText(params));
                    Object ans = answer(sql, cancelled);
                    int n = ans instanceof Integer i ? i : 1;
                    inserted[0] = n;
                    return n;
                }
                case "execute": {
                    log.add("X " + sql);
                    answer(sql, cancelled);
                    return false;
                }
                case "addBatch":
                    batch.add(paramText(params));
                    return null;
                case "executeBatch": {
                    log.add("B " + sql + " x" + batch.size() + " " + batch);
                    Object ans = answer(sql, cancelled);
                    int[] counts = new int[batch.size()];
                    java.util.Arrays.fill(counts, 1);
                    inserted[0] = batch.size();
                    batch.clear();
                    return counts;
                }
                case "getGeneratedKeys": {
                    if (!keys) {
                        throw new SQLException("statement was not prepared for generated keys");
                    }
                    long n = keysOverride != null ? keysOverride : inserted[0];
                    List<Object[]> ids = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        ids.add(new Object[] {nextKey.getAndIncrement()});
                    }
                    return resultSet(new Rows(List.of(), ids));
                }
                case "cancel":
                    log.add("cancel");
                    cancelled.countDown();
                    return null;
                case "clearParameters":
                    params.clear();
                    return null;
                case "close":
                    return null;
                default:
                    return defaults(m);
            }
        });
    }

    private Object answer(String sql, CountDownLatch cancelled) throws SQLException, InterruptedException {
        Object ans = next(sql);
        if (ans == BLOCK) {
            if (!cancelled.await(10, TimeUnit.SECONDS)) {
                throw new SQLException("test double: blocked statement was never cancelled");
            }
            throw new SQLException("[TeraJDBC] [Error 751] [SQLState HY000] The statement has been canceled by another thread", "HY000", 751);
        }
        if (ans instanceof SQLException e) {
            throw e;
        }
        return ans;
    }

    private static String paramText(Map<Integer, Object> params) {
        if (params.isEmpty()) {
            return "";
        }
        List<String> out = new ArrayList<>();
        params.values().forEach(v -> out.add(v instanceof byte[] b ? "bytes[" + b.length + "]"
                : v instanceof java.time.LocalDateTime t ? java.sql.Timestamp.valueOf(t).toString() : String.valueOf(v)));
        return " " + out;
    }

    private ResultSet resultSet(Rows rows) {
        int[] at = {-1};
        boolean[] wasNull = {false};
        ResultSetMetaData md = proxy(ResultSetMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumnCount" -> rows.labels().size();
            case "getColumnLabel", "getColumnName" -> rows.labels().get((Integer) a[0] - 1);
            default -> defaults(m);
        });
        return proxy(ResultSet.class, (p, m, a) -> {
            switch (m.getName()) {
                case "next":
                    return ++at[0] < rows.data().size();
                case "close":
                    return null;
                case "wasNull":
                    return wasNull[0];
                case "getMetaData":
                    return md;
                default:
                    break;
            }
            if (m.getName().equals("getObject") && a != null && a.length == 2 && a[1] == java.time.LocalDateTime.class) {
                Object v = rows.data().get(at[0])[(Integer) a[0] - 1];
                wasNull[0] = v == null;
                return v instanceof java.sql.Timestamp t ? t.toLocalDateTime() : v;
            }
            if (m.getName().startsWith("get") && a != null && a.length == 1 && a[0] instanceof Integer i) {
                Object v = rows.data().get(at[0])[i - 1];
                wasNull[0] = v == null;
                return switch (m.getName()) {
                    case "getLong" -> v == null ? 0L : ((Number) v).longValue();
                    case "getInt" -> v == null ? 0 : ((Number) v).intValue();
                    case "getString" -> v == null ? null : v.toString();
                    default -> v;
                };
            }
            return defaults(m);
        });
    }

    private interface Handler {
        Object handle(Object proxy, Method m, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Handler h) {
        InvocationHandler ih = (p, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    default -> type.getSimpleName() + "@test-double";
                };
            }
            try {
                return h.handle(p, m, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(RecordingJdbc.class.getClassLoader(), new Class<?>[] {type}, ih);
    }

    private static Object defaults(Method m) {
        Class<?> r = m.getReturnType();
        if (r == boolean.class) {
            return false;
        }
        if (r == int.class || r == long.class) {
            return r == int.class ? (Object) 0 : (Object) 0L;
        }
        if (r == void.class) {
            return null;
        }
        throw new UnsupportedOperationException("test double does not implement " + m);
    }
}
