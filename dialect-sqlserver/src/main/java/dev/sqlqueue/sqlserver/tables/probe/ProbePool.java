package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.spi.ProbeContext;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The connections of a probe's backend (V8, V10): new ones from {@link ProbeContext#connect()}, each set up once
 * with a plain batch ({@code SET LOCK_TIMEOUT 5000}: it stays on the session, "SET Statements (Transact-SQL)"), and
 * reused after {@code close()}, so that every lock wait of the backend's sessions ends with error 1222 after 5 s
 * instead of waiting for ever, and the sessions do not log in again for every operation. A connection aborted or
 * found closed is dropped. {@link #close()} closes every connection it opened. Thread-safe.
 */
final class ProbePool extends ProbeDataSource implements AutoCloseable {
    private final ProbeContext context;
    private final String setUp;
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
    private final List<Connection> opened = new ArrayList<>();

    /** @param setUp the plain batch every new connection runs first */
    ProbePool(ProbeContext context, String setUp) {
        this.context = context;
        this.setUp = setUp;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection raw = idle.poll();
        while (raw != null && raw.isClosed()) {
            raw = idle.poll();
        }
        if (raw == null) {
            raw = context.connect();
            synchronized (opened) {
                opened.add(raw);
            }
            ProbeTables.plain(raw, setUp);
        }
        return lend(raw);
    }

    private Connection lend(Connection raw) {
        boolean[] back = {false};
        return (Connection) Proxy.newProxyInstance(ProbePool.class.getClassLoader(), new Class<?>[] {Connection.class},
                (p, m, a) -> {
                    switch (m.getName()) {
                        case "close" -> {
                            if (!back[0]) {
                                back[0] = true;
                                if (!raw.isClosed()) {
                                    idle.add(raw);
                                }
                            }
                            return null;
                        }
                        case "isClosed" -> {
                            return back[0] || raw.isClosed();
                        }
                        case "abort" -> {
                            back[0] = true;
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(p);
                        }
                        case "equals" -> {
                            return p == a[0];
                        }
                        default -> {
                            if (back[0]) {
                                throw new SQLException("connection returned to the probe's pool");
                            }
                        }
                    }
                    try {
                        return m.invoke(raw, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Close every connection this pool opened. */
    @Override
    public void close() {
        List<Connection> all;
        synchronized (opened) {
            all = new ArrayList<>(opened);
            opened.clear();
        }
        idle.clear();
        for (Connection c : all) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing a probe's own session: nothing left to do with it
            }
        }
    }
}
