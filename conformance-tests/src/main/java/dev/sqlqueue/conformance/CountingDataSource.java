package dev.sqlqueue.conformance;

import dev.sqlqueue.QueueConfig;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A non-pooled {@link DataSource} over the target's own connections that counts the statements a
 * backend prepares or creates (C18) and checks that every connection is handed back with the
 * auto-commit mode and isolation it was handed out with (C21). Test instrumentation of the suite; it
 * wraps real connections and changes nothing they do.
 */
public final class CountingDataSource implements DataSource {
    private final FaultHooks hooks;
    private final QueueConfig config;
    private final Boolean autoCommit;
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong handedOut = new AtomicLong();
    private final List<String> violations = new CopyOnWriteArrayList<>();

    /**
     * Connections as the target opens them.
     *
     * @param hooks the fault hooks whose {@link FaultHooks#openConnection(QueueConfig)} opens each connection
     * @param config the config the connections are opened for
     */
    public CountingDataSource(FaultHooks hooks, QueueConfig config) {
        this(hooks, config, null);
    }

    /**
     * Connections handed out with auto-commit forced to {@code autoCommit}.
     *
     * @param hooks the fault hooks whose {@link FaultHooks#openConnection(QueueConfig)} opens each connection
     * @param config the config the connections are opened for
     * @param autoCommit the auto-commit mode each connection is handed out with; null leaves the driver's
     */
    public CountingDataSource(FaultHooks hooks, QueueConfig config, Boolean autoCommit) {
        this.hooks = hooks;
        this.config = config;
        this.autoCommit = autoCommit;
    }

    /**
     * Statements prepared or created on this data source's connections since it was made or last {@link #reset()}.
     *
     * @return the count, 0 or more
     */
    public long statements() {
        return statements.get();
    }

    /**
     * Sets the statement count back to 0; the connection count and the violations stay.
     */
    public void reset() {
        statements.set(0);
    }

    /**
     * Connections handed out since this data source was made.
     *
     * @return the count, 0 or more
     */
    public long connectionsHandedOut() {
        return handedOut.get();
    }

    /**
     * Connections that came back in another state than they went out in.
     *
     * @return one line per connection that came back changed (auto-commit or isolation), in the order found; empty when none
     */
    public List<String> violations() {
        return violations;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection real = hooks.openConnection(config);
        if (autoCommit != null) {
            real.setAutoCommit(autoCommit);
        }
        boolean ac = real.getAutoCommit();
        int iso = real.getTransactionIsolation();
        handedOut.incrementAndGet();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("prepareStatement") || name.equals("createStatement") || name.equals("prepareCall")) {
                        statements.incrementAndGet();
                    }
                    if (name.equals("close") && !real.isClosed()) {
                        if (real.getAutoCommit() != ac) {
                            violations.add("auto-commit handed out " + ac + ", returned " + real.getAutoCommit());
                        }
                        if (real.getTransactionIsolation() != iso) {
                            violations.add("isolation handed out " + iso + ", returned " + real.getTransactionIsolation());
                        }
                    }
                    if (name.equals("unwrap") && args != null && ((Class<?>) args[0]).isInstance(real)) {
                        return real;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
