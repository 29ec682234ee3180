package dev.sqlqueue.sqlserver.tables;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Wraps a DataSource (the {@link dev.sqlqueue.sqlserver.model.SqlServerModel}'s) and injects one fault
 * the model cannot produce because it is not the server's: a {@link java.lang.Error} thrown in the JVM
 * after the {@code n}-th statement execution returned (an {@link OutOfMemoryError} while reading the
 * rows, say), or a failing {@code rollback()} on a live connection. Everything else is passed through,
 * so the model still decides what every driver call does to the session. Not thread-safe.
 */
final class FaultyJdbc {
    private final DataSource target;
    private final AtomicInteger executions = new AtomicInteger();
    private int errorAfterExecution = -1;
    private boolean rollbackFails;

    FaultyJdbc(DataSource target) {
        this.target = target;
    }

    /** Throw an OutOfMemoryError right after the {@code n}-th execute/executeQuery (from 1) returned. */
    FaultyJdbc errorAfterExecution(int n) {
        this.errorAfterExecution = n;
        return this;
    }

    /** Every rollback() throws without reaching the model (the transaction stays open). */
    FaultyJdbc rollbackFails() {
        this.rollbackFails = true;
        return this;
    }

    DataSource dataSource() {
        return proxy(DataSource.class, target, (m, a) -> {
            Object r = invoke(target, m, a);
            return m.getName().equals("getConnection") ? connection((Connection) r) : r;
        });
    }

    private Connection connection(Connection c) {
        return proxy(Connection.class, c, (m, a) -> {
            if (rollbackFails && m.getName().equals("rollback") && (a == null || a.length == 0)) {
                throw new SQLException("test: rollback failed on a live connection", "HY000", 0);
            }
            Object r = invoke(c, m, a);
            return m.getName().equals("prepareStatement") ? statement((PreparedStatement) r) : r;
        });
    }

    private PreparedStatement statement(PreparedStatement ps) {
        return proxy(PreparedStatement.class, ps, (m, a) -> {
            Object r = invoke(ps, m, a);
            if (m.getName().startsWith("execute") && executions.incrementAndGet() == errorAfterExecution) {
                throw new OutOfMemoryError("test: Java heap space while reading the rows");
            }
            return r;
        });
    }

    private interface Call {
        Object apply(Method m, Object[] a) throws Throwable;
    }

    private static Object invoke(Object target, Method m, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Object target, Call call) {
        InvocationHandler h = (p, m, a) -> call.apply(m, a);
        return (T) Proxy.newProxyInstance(FaultyJdbc.class.getClassLoader(), new Class<?>[] {type}, h);
    }
}
