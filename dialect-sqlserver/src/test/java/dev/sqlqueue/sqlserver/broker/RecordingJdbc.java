package dev.sqlqueue.sqlserver.broker;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * A recording test double of {@link DataSource}, {@link Connection}, {@link PreparedStatement},
 * {@link ResultSet} and {@link ResultSetMetaData}, built with {@link Proxy}. It stands in for no
 * database semantics whatsoever: it records every call that matters (connection number, SQL text,
 * bound parameters, commit, rollback, savepoints, auto-commit, isolation, close) and answers each SQL text with results the
 * test scripted beforehand (rows, or an SQLException with a vendor error code); unscripted statements
 * return no rows and an update count of 0. A test built on it shows which statements an operation runs,
 * with which parameters, in which order and in which transaction; never that SQL Server would accept
 * or execute them as intended.
 */
final class RecordingJdbc {
    private final List<String> calls = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Deque<Object>> scripted = new HashMap<>();
    private final AtomicInteger connections = new AtomicInteger();

    /** The next execution of {@code sql} returns these rows (the last script for a text repeats). */
    synchronized RecordingJdbc rows(String sql, Object[]... rows) {
        scripted.computeIfAbsent(sql, k -> new ArrayDeque<>()).add(List.of(rows));
        return this;
    }

    /** The next execution of {@code sql} throws an SQLException with this error code and SQLState. */
    synchronized RecordingJdbc fail(String sql, int errorCode, String sqlState) {
        scripted.computeIfAbsent(sql, k -> new ArrayDeque<>()).add(new SQLException("scripted failure " + errorCode, sqlState, errorCode));
        return this;
    }

    private synchronized Object next(String sql) {
        Deque<Object> d = scripted.get(sql);
        if (d == null || d.isEmpty()) {
            return List.of();
        }
        return d.size() > 1 ? d.poll() : d.peek();
    }

    /** Every recorded call, in order. */
    List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** Recorded calls that contain {@code fragment}. */
    List<String> callsContaining(String fragment) {
        return calls().stream().filter(c -> c.contains(fragment)).collect(Collectors.toList());
    }

    /** Recorded SQL executions (without parameters), in order. */
    List<String> executedSql() {
        return calls().stream().filter(c -> c.contains(" exec ")).map(c -> c.substring(c.indexOf(" exec ") + 6, c.indexOf(" <-- ")))
                .collect(Collectors.toList());
    }

    int connectionsOpened() {
        return connections.get();
    }

    DataSource dataSource() {
        return proxy(DataSource.class, (p, m, a) -> switch (m.getName()) {
            case "getConnection" -> connection(connections.incrementAndGet());
            case "toString" -> "RecordingDataSource";
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("DataSource." + m.getName());
        });
    }

    private Connection connection(int id) {
        boolean[] auto = {true};
        boolean[] closed = {false};
        int[] isolation = {Connection.TRANSACTION_READ_COMMITTED};
        String me = "c" + id;
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "prepareStatement" -> statement(me, (String) a[0]);
            case "getAutoCommit" -> auto[0];
            case "setAutoCommit" -> {
                auto[0] = (Boolean) a[0];
                calls.add(me + " autoCommit=" + a[0]);
                yield null;
            }
            case "commit" -> {
                calls.add(me + " commit");
                yield null;
            }
            case "rollback" -> {
                calls.add(a == null || a.length == 0 ? me + " rollback"
                        : me + " rollback to " + ((java.sql.Savepoint) a[0]).getSavepointName());
                yield null;
            }
            case "setSavepoint" -> {
                String name = a == null || a.length == 0 ? "unnamed" : (String) a[0];
                calls.add(me + " savepoint " + name);
                yield proxy(java.sql.Savepoint.class, (sp, sm, sa) -> switch (sm.getName()) {
                    case "getSavepointName" -> name;
                    case "toString" -> "savepoint " + name;
                    case "hashCode" -> System.identityHashCode(sp);
                    case "equals" -> sp == sa[0];
                    default -> throw new UnsupportedOperationException("Savepoint." + sm.getName());
                });
            }
            case "getTransactionIsolation" -> isolation[0];
            case "setTransactionIsolation" -> {
                isolation[0] = (Integer) a[0];
                calls.add(me + " isolation=" + a[0]);
                yield null;
            }
            case "close" -> {
                if (!closed[0]) {
                    closed[0] = true;
                    calls.add(me + " close");
                }
                yield null;
            }
            case "isClosed" -> closed[0];
            case "toString" -> me;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("Connection." + m.getName());
        });
    }

    private PreparedStatement statement(String conn, String sql) {
        Map<Integer, Object> params = new HashMap<>();
        Object[] result = {null};
        int[] updateReads = {0};
        return proxy(PreparedStatement.class, (p, m, a) -> switch (m.getName()) {
            case "setObject", "setLong", "setInt", "setString", "setBytes" -> {
                params.put((Integer) a[0], a[1]);
                yield null;
            }
            case "setNull" -> {
                params.put((Integer) a[0], null);
                yield null;
            }
            case "execute", "executeUpdate", "executeQuery" -> {
                calls.add(conn + " exec " + sql + " <-- " + render(params));
                Object r = next(sql);
                if (r instanceof SQLException e) {
                    throw e;
                }
                result[0] = r;
                @SuppressWarnings("unchecked")
                List<Object[]> rows = (List<Object[]>) r;
                if (m.getName().equals("executeUpdate")) {
                    yield rows.isEmpty() ? 0 : rows.size();
                }
                if (m.getName().equals("executeQuery")) {
                    yield resultSet(rows);
                }
                yield !rows.isEmpty();
            }
            case "getResultSet" -> {
                @SuppressWarnings("unchecked")
                List<Object[]> rows = (List<Object[]>) result[0];
                yield resultSet(rows);
            }
            case "getUpdateCount" -> updateReads[0]++ == 0 ? 0 : -1;
            case "getMoreResults" -> false;
            case "close" -> null;
            case "toString" -> sql;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("PreparedStatement." + m.getName());
        });
    }

    private static String render(Map<Integer, Object> params) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 1; i <= params.size(); i++) {
            Object v = params.get(i);
            b.append(i > 1 ? ", " : "").append(v instanceof byte[] bytes ? "bytes" + Arrays.toString(bytes) : String.valueOf(v));
        }
        return b.append("]").toString();
    }

    private ResultSet resultSet(List<Object[]> rows) {
        int[] at = {-1};
        int width = rows.isEmpty() ? 0 : rows.get(0).length;
        ResultSetMetaData md = proxy(ResultSetMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumnCount" -> width;
            default -> throw new UnsupportedOperationException("ResultSetMetaData." + m.getName());
        });
        return proxy(ResultSet.class, (p, m, a) -> switch (m.getName()) {
            case "next" -> ++at[0] < rows.size();
            case "getObject" -> rows.get(at[0])[(Integer) a[0] - 1];
            case "getMetaData" -> md;
            case "close" -> null;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("ResultSet." + m.getName());
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler h) {
        return (T) Proxy.newProxyInstance(RecordingJdbc.class.getClassLoader(), new Class<?>[] {type}, h);
    }
}
