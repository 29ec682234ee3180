package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueueException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * Provider {@code postgresql}: PostgreSQL 12+, chosen by {@code jdbc:postgresql:} URLs. The pool's
 * sessions carry {@code application_name = sqlqueue-<tablePrefix>}, so an operator (or the
 * conformance kit) can see and, if needed, terminate exactly this backend's sessions.
 *
 * <p>Option {@code postgresql.transaction-pooler=true} ({@link PostgresOptions}) is for a URL or pool that
 * reaches PostgreSQL through pgbouncer in transaction pooling mode (or any pooler that switches server
 * connections between transactions): the own pool connects with {@code prepareThreshold=0}, no LISTEN
 * connection is opened, and at open the backend refuses ({@link InvalidInputException}, rule
 * {@value #POOLER_RULE}) a URL that sets another {@code prepareThreshold}, a caller's pool whose connections
 * prepare statements on the server, and a server whose {@code default_transaction_isolation} is not
 * {@code read committed}.
 */
public final class PostgresProvider extends SkipLockedProvider {
    /** The rule named when a configuration cannot work through a transaction pooler. */
    public static final String POOLER_RULE = "postgresql.transaction-pooler";

    /** Found by {@link java.util.ServiceLoader}. */
    public PostgresProvider() {
        super("postgresql", SkipLockedDialect.POSTGRES);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    void driverProperties(HikariConfig hc, QueueConfig config) {
        hc.addDataSourceProperty("ApplicationName", "sqlqueue-" + config.tablePrefix());
        if (PostgresOptions.from(config).transactionPooler()) {
            String threshold = PostgresOptions.urlPrepareThreshold(config.url());
            if (threshold != null && !threshold.trim().equals("0")) {
                throw new InvalidInputException(POOLER_RULE, "the URL sets prepareThreshold=" + threshold + ", but with "
                        + PostgresOptions.TRANSACTION_POOLER + "=true statements must not be prepared on the server"
                        + " (a named prepared statement lives on one server connection; the pooler runs the next"
                        + " transaction on another): remove it from the URL or set prepareThreshold=0");
            }
            // pgjdbc: 0 = never a named server-side statement, every execution uses the unnamed one
            hc.addDataSourceProperty("prepareThreshold", "0");
        }
    }

    @Override
    void checkOpened(DataSource ds, QueueConfig config) {
        if (!PostgresOptions.from(config).transactionPooler()) {
            return;
        }
        try (Connection c = ds.getConnection()) {
            int threshold = c.unwrap(PGConnection.class).getPrepareThreshold();
            if (threshold != 0) {
                throw new InvalidInputException(POOLER_RULE, "the connections of the pool prepare statements on the server"
                        + " after " + threshold + " executions (pgjdbc prepareThreshold), which fails through a"
                        + " transaction pooler (" + PostgresOptions.TRANSACTION_POOLER + "=true): configure the pool with"
                        + " prepareThreshold=0");
            }
            String isolation;
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW default_transaction_isolation")) {
                rs.next();
                isolation = rs.getString(1);
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
            if (!"read committed".equalsIgnoreCase(isolation.trim())) {
                throw new InvalidInputException(POOLER_RULE, "the server's default_transaction_isolation is '" + isolation
                        + "'; through a transaction pooler (" + PostgresOptions.TRANSACTION_POOLER + "=true) the backend"
                        + " cannot set READ COMMITTED per session (the setting would reach one server connection only):"
                        + " set default_transaction_isolation = 'read committed' for the database or role");
            }
        } catch (SQLException e) {
            throw new SqlQueueException("cannot check the connection through the transaction pooler: " + e.getMessage(), e);
        }
    }

    @Override
    public String description() {
        return "PostgreSQL 12+, FOR UPDATE SKIP LOCKED, LISTEN/NOTIFY wake-up, lease and transactional modes";
    }

    /** PgJDBC, {@code org.postgresql:postgresql}. */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return java.util.Optional.of(dev.sqlqueue.spi.JdbcDriver.of("org.postgresql.Driver", "org.postgresql:postgresql"));
    }

    @Override
    java.util.Set<String> optionKeys() {
        java.util.Set<String> keys = new java.util.HashSet<>(super.optionKeys());
        keys.add(PostgresOptions.TRANSACTION_POOLER);
        keys.add(PostgresOptions.VACUUM_EVERY);
        return keys;
    }
}
