package dev.sqlqueue.sqlserver.broker;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * Keeps mssql-jdbc from sending the backend's statements as plain SQL batches (re-review N7; the queue-table
 * backend's {@code PrepareMethods} does the same, and this copies its small logic, which is not visible
 * from this package).
 *
 * <p>Three Broker statements begin with {@code SET NOCOUNT ON} (the provisioning lock, the pool fill, the
 * pooled SEND). SQL Server restores a SET option after a batch run by {@code sp_executesql} ("SET Statements
 * (Transact-SQL)", Considerations); in a plain batch it stays on the session. mssql-jdbc sends a
 * PreparedStatement as an RPC unless the connection property {@code prepareMethod} is {@code none} (plain
 * batch with the parameters substituted) or {@code scopeTempTablesToConnection}. A pool shared with the
 * application would then hand out sessions with NOCOUNT ON, and ORMs that check row counts fail. So every
 * connection the backend borrows ({@link #rpcOnly}) is switched to {@code prepexec}
 * ({@code ISQLServerConnection.setPrepareMethod}, public since mssql-jdbc 11.2) before its first statement
 * and given its own value back when the backend closes it (a PreparedStatement reads the property when it
 * is created: {@code SQLServerPreparedStatement.isDirectSqlExecution} is final). The caller's connection of
 * an enqueue in the caller's transaction is not switched; the statements run there carry no SET.
 *
 * <p>A connection that is not mssql-jdbc's, or a driver without the property, is left alone. Stateless and
 * thread-safe.
 */
final class BrokerPrepareMethods {
    /** The value the backend needs: statements run through sp_prepexec/sp_execute. */
    static final String SAFE = "prepexec";

    private BrokerPrepareMethods() {
    }

    /**
     * Switch {@code c} to {@code prepexec} if it would send plain batches.
     *
     * @return the value to restore with {@link #restore}, or null when nothing was changed
     * @throws SQLException if the driver refuses the change
     */
    static String forceRpc(Connection c) throws SQLException {
        try {
            if (!c.isWrapperFor(ISQLServerConnection.class)) {
                return null;
            }
            ISQLServerConnection driver = c.unwrap(ISQLServerConnection.class);
            String current = driver.getPrepareMethod();
            if (current == null) {
                return null;
            }
            String m = current.toLowerCase(Locale.ROOT);
            if (m.equals(SAFE) || m.equals("prepare")) {
                return null;
            }
            driver.setPrepareMethod(SAFE);
            return current;
        } catch (LinkageError e) {
            return null; // mssql-jdbc is not on the class path, or older than 11.2: not a plain-batch driver
        }
    }

    /** Put back what {@link #forceRpc} returned (no-op for null). */
    static void restore(Connection c, String prepareMethod) throws SQLException {
        if (prepareMethod != null) {
            c.unwrap(ISQLServerConnection.class).setPrepareMethod(prepareMethod);
        }
    }

    /**
     * A DataSource whose connections are switched to {@code prepexec} when needed, and switched back when
     * closed (not when aborted: an aborted connection is gone).
     */
    static DataSource rpcOnly(DataSource ds) {
        return (DataSource) Proxy.newProxyInstance(BrokerPrepareMethods.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    if (m.getName().equals("getConnection")) {
                        Connection c = (Connection) invoke(m, ds, a);
                        String before;
                        try {
                            before = forceRpc(c);
                        } catch (SQLException | RuntimeException e) {
                            BrokerConnections.close(c);
                            throw e;
                        }
                        return before == null ? c : restoringOnClose(c, before);
                    }
                    return invoke(m, ds, a);
                });
    }

    private static Connection restoringOnClose(Connection c, String before) {
        return (Connection) Proxy.newProxyInstance(BrokerPrepareMethods.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    if (m.getName().equals("close")) {
                        try {
                            if (!c.isClosed()) {
                                restore(c, before);
                            }
                        } catch (SQLException | RuntimeException ignored) {
                            // a broken connection cannot be restored; the pool validates it
                        }
                    }
                    if (m.getName().equals("equals")) {
                        return p == a[0];
                    }
                    if (m.getName().equals("hashCode")) {
                        return System.identityHashCode(p);
                    }
                    return invoke(m, c, a);
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
