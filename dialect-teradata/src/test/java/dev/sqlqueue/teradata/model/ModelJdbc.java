package dev.sqlqueue.teradata.model;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * JDBC interfaces over a {@link TeradataModel}, built with {@link Proxy}: a data source, connections
 * (one model session each), statements, prepared statements and result sets, behaving as terajdbc
 * {@value Terajdbc#VERSION} does where the backend depends on it ({@link Terajdbc} names the source of
 * each behaviour): {@code abort} does nothing, {@code close} waits for a running request, {@code cancel}
 * acts on its own statement's request, {@code setAutoCommit} commits an open transaction whatever its
 * argument, {@code commit} sends nothing when no transaction is open, time values pass through the JVM's
 * zone. Every request is recorded in order of arrival in {@link TeradataModel#log}.
 */
public final class ModelJdbc {
    /**
     * Two public methods of terajdbc's connection class ({@code GenericTeradataConnection}) that the
     * probes call by reflection: {@code teradataProvide} (answers RNP_ACTIVE, REDRIVE_ACTIVE,
     * TRANSACTION_MODE) and {@code getIO}, whose {@code close()} closes the socket without a logoff.
     */
    public interface DriverMethods {
        String teradataProvide(String key, java.util.Map<?, ?> values);

        AutoCloseable getIO();
    }


    private ModelJdbc() {
    }

    static DataSource dataSource(TeradataModel model) {
        return proxy(DataSource.class, (p, m, a) -> switch (m.getName()) {
            case "getConnection" -> connection(model, model.logon());
            case "getLogWriter" -> (PrintWriter) null;
            case "getParentLogger" -> Logger.getGlobal();
            case "isWrapperFor" -> false;
            case "unwrap" -> throw new SQLException("not a wrapper");
            default -> defaults(m);
        });
    }

    private static Connection connection(TeradataModel model, ModelSession s) {
        Connection[] self = {null};
        self[0] = (Connection) Proxy.newProxyInstance(ModelJdbc.class.getClassLoader(),
                new Class<?>[] {Connection.class, DriverMethods.class}, handler((p, m, a) -> {
            switch (m.getName()) {
                case "teradataProvide":
                    return switch (((String) a[0]).trim().toUpperCase(java.util.Locale.ROOT)) {
                        case "RNP_ACTIVE" -> String.valueOf(model.reconnectWindowMillis > 0);
                        case "REDRIVE_ACTIVE" -> "false";
                        case "TRANSACTION_MODE" -> s.ansi ? "ANSI" : "TERA";
                        default -> null;
                    };
                case "getIO":
                    return proxy(AutoCloseable.class, (p2, m2, a2) -> {
                        model.dropConnection(s); // TDNetworkIOIF.close: the socket closes, no logoff
                        return null;
                    });
                case "createStatement":
                    return statement(model, s, null, false);
                case "prepareStatement":
                    boolean keys = a.length > 1 && (a[1] instanceof String[] || Integer.valueOf(Statement.RETURN_GENERATED_KEYS).equals(a[1]));
                    return statement(model, s, (String) a[0], keys);
                case "commit":
                    commitIfOpen(model, s, "commit");
                    return null;
                case "rollback":
                    model.log.add("s" + s.id + " rollback");
                    model.rollback(s);
                    return null;
                case "setAutoCommit":
                    // TDSession.setAutoCommit: doCommit first (COMMIT WORK or ET while a transaction is open), then the flag
                    commitIfOpen(model, s, "commit (setAutoCommit)");
                    synchronized (model.monitor) {
                        s.autoCommit = (Boolean) a[0];
                    }
                    return null;
                case "getAutoCommit":
                    if (s.closed) {
                        throw Terajdbc.connectionClosed();
                    }
                    return s.autoCommit;
                case "close":
                    if (!s.closed) {
                        model.close(s);
                    }
                    return null;
                case "abort":
                    // GenericTeradataConnection.abort(Executor): the method body is a bare return
                    model.log.add("s" + s.id + " abort (does nothing)");
                    return null;
                case "isClosed":
                    return s.closed;
                case "isValid":
                    return !s.closed;
                case "getMetaData":
                    return proxy(DatabaseMetaData.class, (p2, m2, a2) -> switch (m2.getName()) {
                        case "getDatabaseProductName" -> "Teradata model";
                        case "getDatabaseProductVersion" -> "17.20 (model)";
                        default -> defaults(m2);
                    });
                case "isWrapperFor":
                    return a[0] == Connection.class;
                case "unwrap":
                    if (a[0] == Connection.class) {
                        return self[0];
                    }
                    throw new SQLException("not a wrapper for " + a[0]);
                default:
                    return defaults(m);
            }
        }));
        return self[0];
    }

    /** {@code TDSession.doCommit}: TJ408 when closed; COMMIT only while a transaction is open. */
    private static void commitIfOpen(TeradataModel model, ModelSession s, String entry) throws SQLException {
        boolean open;
        synchronized (model.monitor) {
            if (s.closed) {
                throw Terajdbc.connectionClosed();
            }
            open = s.inTransaction;
        }
        if (open) {
            model.log.add("s" + s.id + " " + entry);
            model.commit(s);
        }
    }

    private static Statement statement(TeradataModel model, ModelSession s, String prepared, boolean keys) {
        TreeMap<Integer, Object> params = new TreeMap<>();
        List<List<Object>> batch = new ArrayList<>();
        TeradataModel.Answer[] last = {null};
        int[] queryTimeout = {0}; // JDBC: 0 = no limit
        Class<? extends Statement> type = prepared == null ? Statement.class : PreparedStatement.class;
        Object[] self = {null};
        self[0] = proxy(type, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && a != null && a.length >= 2 && a[0] instanceof Integer i) {
                params.put(i, name.equals("setNull") ? null : Terajdbc.bound(a[1]));
                return null;
            }
            String sql = a != null && a.length > 0 && a[0] instanceof String str ? str : prepared;
            switch (name) {
                case "executeQuery":
                case "executeUpdate":
                case "execute": {
                    model.log.add("s" + s.id + " " + sql);
                    last[0] = model.execute(s, self[0], sql, List.of(new ArrayList<>(params.values())), queryTimeout[0]);
                    if (name.equals("executeQuery")) {
                        if (last[0].labels() == null) {
                            throw new SQLException("the request returned no result set", "HY000", 0);
                        }
                        return resultSet(last[0].labels(), last[0].rows());
                    }
                    return name.equals("execute") ? last[0].labels() != null : last[0].count();
                }
                case "getResultSet":
                    return last[0] == null || last[0].labels() == null ? null : resultSet(last[0].labels(), last[0].rows());
                case "getUpdateCount":
                    return last[0] == null ? -1 : last[0].count();
                case "addBatch":
                    batch.add(new ArrayList<>(params.values()));
                    return null;
                case "executeBatch": {
                    model.log.add("s" + s.id + " " + sql + " x" + batch.size());
                    List<List<Object>> rows = new ArrayList<>(batch);
                    batch.clear();
                    last[0] = model.execute(s, self[0], sql, rows, queryTimeout[0]);
                    int[] counts = new int[rows.size()];
                    java.util.Arrays.fill(counts, 1);
                    return counts;
                }
                case "getGeneratedKeys":
                    if (!keys) {
                        throw new SQLException("statement was not prepared for generated keys");
                    }
                    return resultSet(last[0] == null ? List.of("seq") : last[0].keyLabels(),
                            last[0] == null ? List.of() : last[0].keys());
                case "cancel":
                    model.log.add("s" + s.id + " cancel");
                    model.cancel(s, self[0]);
                    return null;
                case "clearParameters":
                    params.clear();
                    return null;
                case "clearBatch":
                    batch.clear();
                    return null;
                case "setQueryTimeout":
                    queryTimeout[0] = (Integer) a[0];
                    return null;
                case "close":
                    return null;
                default:
                    return defaults(m);
            }
        });
        return (Statement) self[0];
    }

    static ResultSet resultSet(List<String> labels, List<Object[]> rows) {
        int[] at = {-1};
        boolean[] wasNull = {false};
        ResultSetMetaData md = proxy(ResultSetMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumnCount" -> labels.size();
            case "getColumnLabel", "getColumnName" -> labels.get((Integer) a[0] - 1);
            default -> defaults(m);
        });
        return proxy(ResultSet.class, (p, m, a) -> {
            switch (m.getName()) {
                case "next":
                    return ++at[0] < rows.size();
                case "close":
                    return null;
                case "wasNull":
                    return wasNull[0];
                case "getMetaData":
                    return md;
                case "findColumn":
                    return column(labels, (String) a[0]);
                default:
                    break;
            }
            if (m.getName().startsWith("get") && a != null && a.length >= 1) {
                int i = a[0] instanceof Integer n ? n : column(labels, (String) a[0]);
                if (at[0] < 0 || at[0] >= rows.size() || i < 1 || i > labels.size()) {
                    throw new SQLException("no such row or column: " + i);
                }
                Object v = rows.get(at[0])[i - 1];
                wasNull[0] = v == null;
                return convert(m.getName(), v, a.length > 1 ? a[1] : null);
            }
            return defaults(m);
        });
    }

    private static int column(List<String> labels, String label) throws SQLException {
        for (int i = 0; i < labels.size(); i++) {
            if (labels.get(i).equalsIgnoreCase(label)) {
                return i + 1;
            }
        }
        throw new SQLException("no column labelled " + label);
    }

    private static Object convert(String getter, Object v, Object type) throws SQLException {
        switch (getter) {
            case "getLong":
                return v == null ? 0L : ((Number) v).longValue();
            case "getInt":
                return v == null ? 0 : ((Number) v).intValue();
            case "getString":
                if (v instanceof LocalDateTime || v instanceof OffsetDateTime) {
                    return Terajdbc.string(v);
                }
                return v == null ? null : v.toString();
            case "getBytes":
                return v == null ? null : ((byte[]) v).clone();
            case "getTimestamp":
                if (v == null) {
                    return null;
                }
                return v instanceof OffsetDateTime o ? Terajdbc.timestamp(o) : Terajdbc.timestamp((LocalDateTime) v);
            case "getObject":
                if (type == LocalDateTime.class) {
                    return v == null ? null : Terajdbc.localDateTime(v);
                }
                if (type == null) {
                    return v;
                }
                throw new SQLFeatureNotSupportedException("model: getObject as " + type);
            default:
                throw new SQLFeatureNotSupportedException("model: " + getter);
        }
    }

    private interface Handler {
        Object handle(Object proxy, Method m, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    static <T> T proxy(Class<T> type, Handler h) {
        return (T) Proxy.newProxyInstance(ModelJdbc.class.getClassLoader(), new Class<?>[] {type}, handler(h));
    }

    private static InvocationHandler handler(Handler h) {
        return (p, m, a) -> {
            if (m.getDeclaringClass() == Object.class) {
                return switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    default -> "teradata-model-proxy";
                };
            }
            try {
                return h.handle(p, m, a);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
    }

    private static Object defaults(Method m) {
        Class<?> r = m.getReturnType();
        if (r == boolean.class) {
            return false;
        }
        if (r == int.class) {
            return 0;
        }
        if (r == long.class) {
            return 0L;
        }
        if (r == void.class) {
            return null;
        }
        throw new UnsupportedOperationException("Teradata model does not implement " + m);
    }
}
