package dev.sqlqueue.sqlserver;

import com.microsoft.sqlserver.jdbc.ISQLServerConnection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Keeps mssql-jdbc from sending the backend's statements as plain SQL batches (review finding 1).
 *
 * <p>The backend's statements start with {@code SET NOCOUNT ON; SET XACT_ABORT ON;}. SQL Server restores a
 * SET option after a batch run by {@code sp_executesql} ("SET Statements (Transact-SQL)", Considerations);
 * in a plain batch it stays on the session. mssql-jdbc sends a PreparedStatement as an RPC
 * ({@code sp_executesql}, {@code sp_prepexec}, {@code sp_execute}) unless the connection property
 * {@code prepareMethod} is {@code none} (13.4.0+: parameters substituted into a plain batch) or
 * {@code scopeTempTablesToConnection} (plain batch when the text uses temp tables). So while the backend
 * holds a connection whose {@code prepareMethod} is anything but {@code prepexec} or {@code prepare}, it
 * sets {@code prepexec} ({@code ISQLServerConnection.setPrepareMethod}, public since mssql-jdbc 11.2) and
 * gives the connection back with its own value. A PreparedStatement reads the property when it is created
 * (mssql-jdbc {@code SQLServerPreparedStatement}: {@code isDirectSqlExecution} is final), and the backend
 * prepares every statement after borrowing the connection.
 *
 * <p>A connection that is not mssql-jdbc's (another driver behind the caller's DataSource) or a driver
 * without the property (mssql-jdbc before 11.1, whose interface lacks the method: {@link NoSuchMethodError},
 * review N8) is left alone. Stateless and thread-safe.
 */
public final class PrepareMethods {
    /** The value the backend needs: statements run through sp_prepexec/sp_execute. */
    public static final String SAFE = "prepexec";

    private PrepareMethods() {
    }

    /**
     * Switch {@code c} to {@code prepexec} if it would send plain batches.
     *
     * @param c an open connection to the server
     * @return the value to restore with {@link #restore}, or null when nothing was changed
     * @throws SQLException if the driver refuses the change
     */
    public static String forceRpc(Connection c) throws SQLException {
        ISQLServerConnection driver;
        try {
            if (!c.isWrapperFor(ISQLServerConnection.class)) {
                return null;
            }
            driver = c.unwrap(ISQLServerConnection.class);
        } catch (LinkageError e) {
            return null; // mssql-jdbc is not on the class path: not its connection
        }
        String current;
        try {
            current = driver.getPrepareMethod();
        } catch (LinkageError e) {
            // review N8: mssql-jdbc before 11.1 has no prepareMethod (CHANGELOG 11.1.0-preview, "Added new
            // connection string property prepareMethod"): such a driver always sends RPCs, nothing to switch
            return null;
        }
        if (current == null) {
            return null;
        }
        String m = current.toLowerCase(Locale.ROOT);
        if (m.equals(SAFE) || m.equals("prepare")) {
            return null;
        }
        driver.setPrepareMethod(SAFE);
        return current;
    }

    /**
     * Put back what {@link #forceRpc} returned (no-op for null).
     *
     * @param c an open connection to the server
     * @param prepareMethod the driver's {@code prepareMethod} setting
     * @throws SQLException if the driver refuses the setting
     */
    public static void restore(Connection c, String prepareMethod) throws SQLException {
        if (prepareMethod != null) {
            c.unwrap(ISQLServerConnection.class).setPrepareMethod(prepareMethod);
        }
    }

    /**
     * A DataSource whose connections are switched to {@code prepexec} when needed ({@link #forceRpc}), and switched
     * back when closed (not when aborted: an aborted connection is gone). For a backend that hands connections to
     * many classes (Service Broker) instead of borrowing them in one place.
     *
     * @param ds the pool connections are borrowed from
     * @return a DataSource whose connections are switched to {@code prepexec} when needed ({@link #forceRpc}), and switched back when closed (not when aborted
     */
    public static DataSource rpcOnly(DataSource ds) {
        return (DataSource) Proxy.newProxyInstance(PrepareMethods.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> {
                    if (m.getName().equals("getConnection")) {
                        Connection c = (Connection) invoke(m, ds, a);
                        String before;
                        try {
                            before = forceRpc(c);
                        } catch (SQLException | RuntimeException e) {
                            try {
                                c.close();
                            } catch (SQLException closing) {
                                e.addSuppressed(closing);
                            }
                            throw e;
                        }
                        return before == null ? c : restoringOnClose(c, before);
                    }
                    return invoke(m, ds, a);
                });
    }

    private static Connection restoringOnClose(Connection c, String before) {
        return (Connection) Proxy.newProxyInstance(PrepareMethods.class.getClassLoader(), new Class<?>[] {Connection.class},
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
