package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.model.ImpossibleResultException;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Two rules of mssql-jdbc and SQL Server that the shared model ({@code model/SqlServerModel}) does not have, laid
 * over its connections for the probes' tests ({@link ProbeModel}):
 * <ul>
 *   <li><b>Every parameter is bound.</b> mssql-jdbc refuses to send a prepared statement with a marker left unset:
 *       {@code SQLServerPreparedStatement.buildParamTypeDefinitions} throws "The value is not set for the parameter
 *       number {0}." (resource {@code R_valueNotSetForParameter}, driver error, SQLState null, error code 0; read from
 *       the 13.2.1 jar with {@code javap}). Markers are counted outside string literals, bracketed names and
 *       comments.</li>
 *   <li><b>Actual plans.</b> "SET STATISTICS XML (Transact-SQL)": once a session ran {@code SET STATISTICS XML ON},
 *       each later statement returns, after its own results, one XML document of how it ran (nvarchar(max)), until
 *       the option is set OFF. A session runs the option as a plain batch here ({@code Statement.execute}); the
 *       document a test scripts for a statement text ({@link #showplan}) is returned only on a session with the
 *       option ON. An actual plan carries run-time counters ("the number of rows each physical operator
 *       produced"), so a scripted document without {@code RunTimeCountersPerThread} is refused
 *       ({@link ImpossibleResultException}).</li>
 * </ul>
 * Also records which texts ran as plain batches ({@link #plainBatches}). Thread-safe.
 */
final class ProbeJdbc {
    static final String STATISTICS_XML_ON = "SET STATISTICS XML ON;";
    static final String STATISTICS_XML_OFF = "SET STATISTICS XML OFF;";
    private final Map<String, String> showplans = new HashMap<>();
    private final List<String> plainBatches = Collections.synchronizedList(new ArrayList<>());

    /** The actual plan {@code sql} returns on a session with STATISTICS XML ON. */
    synchronized ProbeJdbc showplan(String sql, String xml) {
        if (!xml.contains("RunTimeCountersPerThread")) {
            throw new ImpossibleResultException("an actual plan (SET STATISTICS XML ON) carries run-time counters; this one has"
                    + " none: " + xml);
        }
        showplans.put(sql, xml);
        return this;
    }

    private synchronized String showplanOf(String sql) {
        return showplans.get(sql);
    }

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
        boolean[] statisticsXml = {false};
        return proxy(Connection.class, (p, m, a) -> switch (m.getName()) {
            case "prepareStatement" -> prepared((PreparedStatement) call(c, m, a), (String) a[0], statisticsXml);
            case "createStatement" -> plain((Statement) call(c, m, a), statisticsXml);
            default -> call(c, m, a);
        });
    }

    private Statement plain(Statement st, boolean[] statisticsXml) {
        return proxy(Statement.class, (p, m, a) -> {
            if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
                plainBatches.add(sql);
                Object r = call(st, m, a);
                if (sql.equals(STATISTICS_XML_ON)) {
                    statisticsXml[0] = true;
                } else if (sql.equals(STATISTICS_XML_OFF)) {
                    statisticsXml[0] = false;
                }
                return r;
            }
            return call(st, m, a);
        });
    }

    private PreparedStatement prepared(PreparedStatement ps, String sql, boolean[] statisticsXml) {
        int markers = markers(sql);
        Set<Integer> bound = new HashSet<>();
        String[] pendingPlan = {null};
        boolean[] onPlan = {false};
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
                Object r = call(ps, m, a);
                pendingPlan[0] = statisticsXml[0] ? showplanOf(sql) : null;
                onPlan[0] = false;
                return r;
            } else if (name.equals("getMoreResults") && pendingPlan[0] != null) {
                onPlan[0] = true;
                return true;
            } else if (name.equals("getResultSet") && onPlan[0]) {
                String xml = pendingPlan[0];
                pendingPlan[0] = null;
                onPlan[0] = false;
                return showplanResult(xml);
            }
            return call(ps, m, a);
        });
    }

    /** One row, one nvarchar(max) column: the document, as "SET STATISTICS XML" returns it. */
    private static ResultSet showplanResult(String xml) {
        int[] at = {-1};
        ResultSetMetaData md = proxy(ResultSetMetaData.class, (p, m, a) -> switch (m.getName()) {
            case "getColumnCount" -> 1;
            case "getColumnLabel", "getColumnName" -> "Microsoft SQL Server 2005 XML Showplan";
            default -> throw new UnsupportedOperationException("ResultSetMetaData." + m.getName());
        });
        return proxy(ResultSet.class, (p, m, a) -> switch (m.getName()) {
            case "next" -> ++at[0] == 0;
            case "getString" -> xml;
            case "getMetaData" -> md;
            case "close" -> null;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            default -> throw new UnsupportedOperationException("ResultSet." + m.getName());
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
