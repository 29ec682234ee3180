package dev.sqlqueue.sqlserver.tables;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A recording test double of {@link DataSource}, {@link Connection}, {@link PreparedStatement} and
 * {@link ResultSet}, built with {@link Proxy}. It stands in for no database semantics at all: it
 * executes no SQL, enforces no locks or isolation, and returns only the result sets a test scripts, in
 * order. What it proves is the JDBC call sequence an operation makes (connections borrowed, settings
 * read, set and restored, statements prepared by name, binds, executes, commits, rollbacks, closes),
 * nothing about how SQL Server would answer.
 *
 * <p>Calls are recorded as short strings: {@code getConnection}, {@code getTransactionIsolation},
 * {@code setTransactionIsolation(2)}, {@code setAutoCommit(false)}, {@code prepare claim} (the
 * statement's name in {@link SqlServerStatements}, or its text when unknown), {@code bind 1=10},
 * {@code executeQuery}, {@code execute}, {@code commit}, {@code rollback}, {@code close}.
 * Closing statements and result sets is counted, not recorded. Not thread-safe.
 */
final class RecordingJdbc {
    final List<String> calls = new ArrayList<>();
    private final SqlServerStatements statements;
    private final Deque<List<Map<String, Object>>> results = new ArrayDeque<>();
    private final Map<String, Deque<SQLException>> failures = new HashMap<>();
    final List<ConnectionState> connections = new ArrayList<>();
    int initialIsolation = Connection.TRANSACTION_READ_COMMITTED;
    boolean initialAutoCommit = true;
    int openStatements;

    /** State of one connection handed out, for asserting it went back as it came. */
    static final class ConnectionState {
        int isolation;
        boolean autoCommit;
        boolean closed;
        /** The connection's network timeout in ms (mssql-jdbc: the socket's read timeout; 0 = none). */
        int networkTimeout;
    }

    /** Every {@code setNetworkTimeout} value, in order (kept apart from calls, as the query timeouts). */
    final List<Integer> networkTimeouts = java.util.Collections.synchronizedList(new ArrayList<>());

    RecordingJdbc(SqlServerStatements statements) {
        this.statements = statements;
    }

    /** Script the next executeQuery result: rows of column name to value, columns in order. */
    @SafeVarargs
    @SuppressWarnings("varargs")
    final RecordingJdbc rows(Map<String, Object>... rows) {
        results.add(List.of(rows));
        return this;
    }

    /** Script the next executeQuery result as one row holding a count (SELECT @@ROWCOUNT). */
    RecordingJdbc count(long n) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("n", n);
        results.add(List.of(row));
        return this;
    }

    /** Throw {@code e} the next time the recorded call {@code call} happens (after recording it). */
    RecordingJdbc failOn(String call, SQLException e) {
        failures.computeIfAbsent(call, k -> new ArrayDeque<>()).add(e);
        return this;
    }

    /** The recorded calls without the binds, for sequence assertions. */
    List<String> sequence() {
        return calls.stream().filter(c -> !c.startsWith("bind ")).collect(Collectors.toList());
    }

    /** The bind calls only. */
    List<String> binds() {
        return calls.stream().filter(c -> c.startsWith("bind ")).collect(Collectors.toList());
    }

    static Map<String, Object> row(Object... keyValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private void record(String call) throws SQLException {
        calls.add(call);
        Deque<SQLException> q = failures.get(call);
        if (q != null && !q.isEmpty()) {
            throw q.poll();
        }
    }

    DataSource dataSource() {
        return proxy(DataSource.class, (p, m, a) -> {
            if (m.getName().equals("getConnection")) {
                record("getConnection");
                return connection();
            }
            return unsupported(m.getName());
        });
    }

    private Connection connection() {
        ConnectionState s = new ConnectionState();
        s.isolation = initialIsolation;
        s.autoCommit = initialAutoCommit;
        connections.add(s);
        return proxy(Connection.class, (p, m, a) -> {
            switch (m.getName()) {
                case "getTransactionIsolation" -> {
                    record("getTransactionIsolation");
                    return s.isolation;
                }
                case "setTransactionIsolation" -> {
                    record("setTransactionIsolation(" + a[0] + ")");
                    s.isolation = (Integer) a[0];
                    return null;
                }
                case "getAutoCommit" -> {
                    record("getAutoCommit");
                    return s.autoCommit;
                }
                case "setAutoCommit" -> {
                    record("setAutoCommit(" + a[0] + ")");
                    s.autoCommit = (Boolean) a[0];
                    return null;
                }
                case "prepareStatement" -> {
                    String name = statements.nameOf((String) a[0]);
                    record("prepare " + (name != null ? name : a[0]));
                    return statement();
                }
                case "commit", "rollback" -> {
                    record(m.getName());
                    return null;
                }
                case "close" -> {
                    record("close");
                    s.closed = true;
                    return null;
                }
                case "isClosed" -> {
                    return s.closed;
                }
                case "getNetworkTimeout" -> {
                    return s.networkTimeout;
                }
                case "setNetworkTimeout" -> {
                    s.networkTimeout = (Integer) a[1];
                    networkTimeouts.add((Integer) a[1]);
                    return null;
                }
                case "isWrapperFor" -> {
                    return false; // not mssql-jdbc's connection: PrepareMethods leaves it alone (not recorded)
                }
                case "abort" -> {
                    record("abort");
                    s.closed = true;
                    return null;
                }
                default -> {
                    return unsupported(m.getName());
                }
            }
        });
    }

    /** Every {@code setQueryTimeout} value, in order. */
    final List<Integer> queryTimeouts = java.util.Collections.synchronizedList(new ArrayList<>());

    private PreparedStatement statement() {
        openStatements++;
        return proxy(PreparedStatement.class, (p, m, a) -> {
            String n = m.getName();
            if (n.startsWith("set") && a != null && a.length == 2 && a[0] instanceof Integer pos) {
                Object v = a[1];
                record("bind " + pos + "=" + (v instanceof byte[] b ? "bytes[" + b.length + "]" : v));
                return null;
            }
            switch (n) {
                case "setQueryTimeout" -> {
                    queryTimeouts.add((Integer) a[0]); // kept apart from calls: the sequences stay as pinned
                    return null;
                }
                case "executeQuery" -> {
                    record("executeQuery");
                    return resultSet(results.isEmpty() ? List.of() : results.poll());
                }
                case "execute" -> {
                    record("execute");
                    return false;
                }
                case "close" -> {
                    openStatements--;
                    return null;
                }
                default -> {
                    return unsupported(n);
                }
            }
        });
    }

    private ResultSet resultSet(List<Map<String, Object>> rows) {
        int[] at = {-1};
        boolean[] lastNull = {false};
        return proxy(ResultSet.class, (p, m, a) -> {
            String n = m.getName();
            if (n.equals("next")) {
                return ++at[0] < rows.size();
            }
            if (n.equals("wasNull")) {
                return lastNull[0];
            }
            if (n.equals("close")) {
                return null;
            }
            if (n.startsWith("get") && a != null && a.length >= 1) {
                Map<String, Object> row = rows.get(at[0]);
                Object v = a[0] instanceof Integer i ? new ArrayList<>(row.values()).get(i - 1) : row.get((String) a[0]);
                lastNull[0] = v == null;
                return switch (n) {
                    case "getLong" -> v == null ? 0L : ((Number) v).longValue();
                    case "getInt" -> v == null ? 0 : ((Number) v).intValue();
                    default -> v;
                };
            }
            return unsupported(n);
        });
    }

    private static Object unsupported(String method) {
        throw new UnsupportedOperationException("RecordingJdbc does not implement " + method);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler h) {
        return (T) Proxy.newProxyInstance(RecordingJdbc.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    default -> type.getSimpleName() + " double";
                };
            }
            try {
                return h.invoke(p, m, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }
}
