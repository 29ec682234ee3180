package dev.sqlqueue.sqlserver.model;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The JDBC face of {@link SqlServerModel}: {@link DataSource}, {@link Connection},
 * {@link PreparedStatement}, {@link Statement}, {@link ResultSet} as {@link Proxy} objects that hand
 * every call with a meaning to the model. A PreparedStatement is an RPC (sp_prepexec) unless the
 * model's {@code prepareMethod} is NONE; a Statement is always a plain batch. A method the model does
 * not know throws {@link UnsupportedOperationException}, so a test never silently passes over it.
 * Thread-safe as the model is.
 */
final class ModelJdbc {
    private ModelJdbc() {
    }

    static DataSource dataSource(SqlServerModel model) {
        return proxy(DataSource.class, (p, m, a) -> switch (m.getName()) {
            case "getConnection" -> connection(model, model.open());
            case "toString" -> "ModelDataSource";
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("DataSource." + m.getName());
        });
    }

    private static Connection connection(SqlServerModel model, Session s) {
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "prepareStatement" -> statement(model, s, (String) a[0], s.prepareMethod != SqlServerModel.PrepareMethod.NONE);
            case "isWrapperFor" -> a[0] == ISQLServerConnection.class;
            case "unwrap" -> {
                if (a[0] != ISQLServerConnection.class) {
                    throw new SQLException("the model wraps only ISQLServerConnection, not " + a[0]);
                }
                yield driverConnection(model, s);
            }
            case "abort" -> {
                model.driver.abort(s);
                yield null;
            }
            case "createStatement" -> statement(model, s, null, false);
            case "getAutoCommit" -> s.driverAutoCommit;
            case "setAutoCommit" -> {
                model.driver.setAutoCommit(s, (Boolean) a[0]);
                yield null;
            }
            case "commit" -> {
                model.driver.commit(s);
                yield null;
            }
            case "rollback" -> {
                if (a == null || a.length == 0) {
                    model.driver.rollback(s);
                } else {
                    model.driver.rollbackTo(s, ((Savepoint) a[0]).getSavepointName());
                }
                yield null;
            }
            case "setSavepoint" -> {
                // mssql-jdbc labels an unnamed savepoint itself; the model uses a fixed label
                String name = a == null || a.length == 0 ? "unnamed" : (String) a[0];
                model.driver.setSavepoint(s, name);
                yield proxy(Savepoint.class, (sp, sm, sa) -> switch (sm.getName()) {
                    case "getSavepointName" -> name;
                    case "toString" -> "savepoint " + name;
                    case "hashCode" -> System.identityHashCode(sp);
                    case "equals" -> sp == sa[0];
                    default -> throw new UnsupportedOperationException("Savepoint." + sm.getName());
                });
            }
            case "releaseSavepoint" -> null; // mssql-jdbc: a no-op (SQL Server has no RELEASE SAVEPOINT)
            case "getNetworkTimeout" -> {
                closedCheck(s);
                yield s.networkTimeoutMs;
            }
            case "setNetworkTimeout" -> {
                // mssql-jdbc 13.2.1 SQLServerConnection.setNetworkTimeout: a negative value is refused
                // (R_invalidSocketTimeout), a closed connection too (checkClosed), the executor is not used,
                // nothing goes to the server
                closedCheck(s);
                if ((Integer) a[1] < 0) {
                    throw new SQLException("The socket timeout value " + a[1] + " is not valid.");
                }
                s.networkTimeoutMs = (Integer) a[1];
                yield null;
            }
            case "getTransactionIsolation" -> s.driverIsolation; // the driver's cached level, not the server's
            case "setTransactionIsolation" -> {
                model.driver.setIsolation(s, (Integer) a[0]);
                yield null;
            }
            case "close" -> {
                model.driver.close(s);
                yield null;
            }
            case "isClosed" -> s.closed;
            case "isValid" -> !s.closed;
            case "getWarnings" -> null;
            case "clearWarnings" -> null;
            case "toString" -> "c" + s.id;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("Connection." + m.getName());
        });
    }

    /** mssql-jdbc {@code SQLServerConnection.checkClosed}: "The connection is closed." on a closed connection. */
    private static void closedCheck(Session s) throws SQLException {
        if (s.closed) {
            throw new SQLException("The connection is closed.", "08S01", 0);
        }
    }

    /** The mssql-jdbc interface of a connection: only its prepareMethod property. */
    private static ISQLServerConnection driverConnection(SqlServerModel model, Session s) {
        return proxy(ISQLServerConnection.class, (p, m, a) -> switch (m.getName()) {
            case "getPrepareMethod" -> s.prepareMethod.name().toLowerCase(java.util.Locale.ROOT);
            case "setPrepareMethod" -> {
                // mssql-jdbc accepts the names case-insensitively (PrepareMethod.valueOfString)
                model.driver.setPrepareMethod(s, SqlServerModel.PrepareMethod.valueOf(((String) a[0]).toUpperCase(java.util.Locale.ROOT)));
                yield null;
            }
            case "setEnablePrepareOnFirstPreparedStatementCall" -> {
                // which RPC carries the statement (sp_prepexec instead of sp_executesql): still an RPC
                model.note(s, "enablePrepareOnFirstPreparedStatementCall=" + a[0]);
                yield null;
            }
            case "toString" -> "c" + s.id + " (ISQLServerConnection)";
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("ISQLServerConnection." + m.getName());
        });
    }

    private static PreparedStatement statement(SqlServerModel model, Session s, String preparedSql, boolean rpc) {
        Map<Integer, Object> params = new HashMap<>();
        Results[] results = {null};
        int[] queryTimeout = {0}; // JDBC: 0 means no limit
        return proxy(PreparedStatement.class, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && a != null && a.length >= 2 && a[0] instanceof Integer i && !name.equals("setFetchSize")
                    && !name.equals("setMaxRows") && !name.equals("setQueryTimeout")) {
                params.put(i, name.equals("setNull") ? null : a[1]);
                return null;
            }
            switch (name) {
                case "execute", "executeUpdate", "executeQuery", "executeLargeUpdate" -> {
                    String sql = preparedSql != null ? preparedSql : (String) a[0];
                    List<Object> bound = new ArrayList<>();
                    for (int i = 1; i <= params.size(); i++) {
                        bound.add(params.get(i));
                    }
                    model.beforeExecute(s, sql);
                    Results r = model.execute(s, sql, bound, rpc && preparedSql != null, queryTimeout[0]);
                    results[0] = r;
                    if (name.equals("executeQuery")) {
                        Results.Rows rows = r.nextRows();
                        return resultSet(rows.rows(), rows.labels());
                    }
                    boolean isResult = r.next();
                    if (name.startsWith("executeUpdate") || name.equals("executeLargeUpdate")) {
                        if (isResult) {
                            // mssql-jdbc SQLServerStatement.doExecuteStatement: R_resultsetGeneratedForUpdate
                            throw new SQLException("A result set was generated for update.", "S0001", 0);
                        }
                        long n = r.updateCount();
                        return name.equals("executeLargeUpdate") ? (Object) n : (Object) (int) n;
                    }
                    return isResult;
                }
                case "getResultSet" -> {
                    Results.Rows rows = results[0] == null ? null : results[0].rows();
                    return rows == null ? null : resultSet(rows.rows(), rows.labels());
                }
                case "getUpdateCount" -> {
                    return results[0] == null ? -1 : (int) results[0].updateCount();
                }
                case "getMoreResults" -> {
                    return results[0] != null && results[0].next();
                }
                case "clearParameters" -> {
                    params.clear();
                    return null;
                }
                case "setQueryTimeout" -> {
                    if ((Integer) a[0] < 0) {
                        throw new SQLException("The query timeout value " + a[0] + " is not valid.");
                    }
                    queryTimeout[0] = (Integer) a[0];
                    return null;
                }
                case "getQueryTimeout" -> {
                    return queryTimeout[0];
                }
                case "setFetchSize", "setMaxRows", "setEscapeProcessing", "setPoolable", "close" -> {
                    return null; // close: mssql-jdbc TDSCommand.close reads the rest and ignores its errors
                }
                case "getWarnings" -> {
                    return null;
                }
                case "toString" -> {
                    return preparedSql;
                }
                case "hashCode" -> {
                    return System.identityHashCode(p);
                }
                case "equals" -> {
                    return p == a[0];
                }
                default -> throw new UnsupportedOperationException("PreparedStatement." + name);
            }
        });
    }

    private static ResultSet resultSet(List<Object[]> rows, List<String> labels) {
        int[] at = {-1};
        boolean[] lastNull = {false};
        int width = labels != null ? labels.size() : rows.isEmpty() ? 0 : rows.get(0).length;
        ResultSetMetaData md = proxy(ResultSetMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumnCount" -> width;
            case "getColumnLabel", "getColumnName" -> labels == null ? "c" + a[0] : labels.get((Integer) a[0] - 1);
            default -> throw new UnsupportedOperationException("ResultSetMetaData." + m.getName());
        });
        return proxy(ResultSet.class, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("get") && a != null && a.length >= 1 && !name.equals("getMetaData")) {
                int col = a[0] instanceof Integer i ? i : column(labels, (String) a[0]);
                Object v = rows.get(at[0])[col - 1];
                lastNull[0] = v == null;
                return convert(name, v);
            }
            return switch (name) {
                case "next" -> ++at[0] < rows.size();
                case "wasNull" -> lastNull[0];
                case "getMetaData" -> md;
                case "close" -> null;
                case "hashCode" -> System.identityHashCode(p);
                case "equals" -> p == a[0];
                default -> throw new UnsupportedOperationException("ResultSet." + name);
            };
        });
    }

    private static int column(List<String> labels, String label) throws SQLException {
        if (labels != null) {
            for (int i = 0; i < labels.size(); i++) {
                if (labels.get(i).equalsIgnoreCase(label)) {
                    return i + 1;
                }
            }
        }
        throw new SQLException("The column name " + label + " is not valid (script it with SqlServerModel.labelled).", "S0022", 0);
    }

    private static Object convert(String getter, Object v) {
        return switch (getter) {
            case "getLong" -> v == null ? 0L : ((Number) v).longValue();
            case "getInt" -> v == null ? 0 : ((Number) v).intValue();
            case "getShort" -> v == null ? (short) 0 : ((Number) v).shortValue();
            case "getDouble" -> v == null ? 0d : ((Number) v).doubleValue();
            case "getBoolean" -> v != null && (v instanceof Boolean b ? b : ((Number) v).intValue() != 0);
            case "getString", "getNString" -> v == null ? null : String.valueOf(v);
            default -> v;
        };
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler h) {
        return (T) Proxy.newProxyInstance(ModelJdbc.class.getClassLoader(), new Class<?>[] {type}, h);
    }
}
