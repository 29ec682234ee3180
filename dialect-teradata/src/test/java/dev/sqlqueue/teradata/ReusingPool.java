package dev.sqlqueue.teradata;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A minimal connection pool over a data source, for tests: {@code close()} on a handed-out connection puts
 * the physical connection back for reuse unless it is closed; {@code unwrap(Connection.class)} gives the
 * physical connection, as HikariCP's proxies do. Thread-safe.
 */
final class ReusingPool {
    private final DataSource physical;
    private final Deque<Connection> idle = new ArrayDeque<>();

    ReusingPool(DataSource physical) {
        this.physical = physical;
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                (p, m, a) -> switch (m.getName()) {
                    case "getConnection" -> borrow();
                    case "getLogWriter" -> (PrintWriter) null;
                    case "getParentLogger" -> Logger.getGlobal();
                    case "isWrapperFor" -> false;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == a[0];
                    case "toString" -> "ReusingPool";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private Connection borrow() throws SQLException {
        Connection c;
        synchronized (idle) {
            c = idle.pollFirst();
        }
        Connection inner = c != null ? c : physical.getConnection();
        boolean[] returned = {false};
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    switch (m.getName()) {
                        case "close":
                            if (!returned[0]) {
                                returned[0] = true;
                                if (!inner.isClosed()) {
                                    synchronized (idle) {
                                        idle.addLast(inner);
                                    }
                                }
                            }
                            return null;
                        case "isWrapperFor":
                            return a[0] == Connection.class;
                        case "unwrap":
                            return inner;
                        case "hashCode":
                            return System.identityHashCode(p);
                        case "equals":
                            return p == a[0];
                        default:
                            try {
                                return m.invoke(inner, a);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                    }
                });
    }
}
