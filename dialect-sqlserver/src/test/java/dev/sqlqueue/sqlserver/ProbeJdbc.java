package dev.sqlqueue.sqlserver;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A rule of mssql-jdbc that the shared model ({@code model/SqlServerModel}) does not have, laid
 * over its connections for the probes' tests ({@link ProbeModel}):
 * <ul>
 *   <li><b>Every parameter is bound.</b> mssql-jdbc refuses to send a prepared statement with a marker left unset:
 *       {@code SQLServerPreparedStatement.buildParamTypeDefinitions} throws "The value is not set for the parameter
 *       number {0}." (resource {@code R_valueNotSetForParameter}, driver error, SQLState null, error code 0; read from
 *       the 13.2.1 jar with {@code javap}). Markers are counted outside string literals, bracketed names and
 *       comments.</li>
 * </ul>
 * Also records which texts ran as plain batches ({@link #plainBatches}). Thread-safe.
 */
final class ProbeJdbc {
    private final List<String> plainBatches = Collections.synchronizedList(new ArrayList<>());

    /** Texts run as plain batches, in order. */
    List<String> plainBatches() {
        synchronized (plainBatches) {
            return List.copyOf(plainBatches);
        }
    }

    DataSource wrap(DataSource ds) {
        return proxy(DataSource.class, (p, m, a) -> m.getName().equals("getConnection") ? connection((Connection) call(ds, m, a))
                : call(ds, m, a));
    }

    Connection connection(Connection c) {
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "prepareStatement" -> prepared((PreparedStatement) call(c, m, a), (String) a[0]);
            case "createStatement" -> plain((Statement) call(c, m, a));
            default -> call(c, m, a);
        });
    }

    private Statement plain(Statement st) {
        return proxy(Statement.class, (p, m, a) -> {
            if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
                plainBatches.add(sql);
            }
            return call(st, m, a);
        });
    }

    private PreparedStatement prepared(PreparedStatement ps, String sql) {
        int markers = markers(sql);
        Set<Integer> bound = new HashSet<>();
        return proxy(PreparedStatement.class, (p, m, a) -> {
            String name = m.getName();
            if (name.startsWith("set") && a != null && a.length >= 2 && a[0] instanceof Integer i && !name.equals("setFetchSize")
                    && !name.equals("setMaxRows") && !name.equals("setQueryTimeout")) {
                bound.add(i);
            } else if (name.equals("clearParameters")) {
                bound.clear();
            } else if (name.startsWith("execute")) {
                for (int i = 1; i <= markers; i++) {
                    if (!bound.contains(i)) {
                        throw new SQLException("The value is not set for the parameter number " + i + ".", null, 0);
                    }
                }
            }
            return call(ps, m, a);
        });
    }

    /** Parameter markers outside 'strings', [names], -- and block comments. */
    static int markers(String sql) {
        int n = 0;
        int i = 0;
        while (i >= 0 && i < sql.length()) {
            char ch = sql.charAt(i);
            if (ch == '\'') {
                int end = sql.indexOf('\'', i + 1);
                while (end > 0 && end + 1 < sql.length() && sql.charAt(end + 1) == '\'') {
                    end = sql.indexOf('\'', end + 2);
                }
                i = end < 0 ? -1 : end + 1;
            } else if (ch == '[') {
                int end = sql.indexOf(']', i + 1);
                i = end < 0 ? -1 : end + 1;
            } else if (ch == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                int end = sql.indexOf('\n', i);
                i = end < 0 ? -1 : end + 1;
            } else if (ch == '/' && i + 1 < sql.length() && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? -1 : end + 2;
            } else {
                if (ch == '?') {
                    n++;
                }
                i++;
            }
        }
        return n;
    }

    private static Object call(Object target, Method m, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler h) {
        return (T) Proxy.newProxyInstance(ProbeJdbc.class.getClassLoader(), new Class<?>[] {type}, h);
    }
}
