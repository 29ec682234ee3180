package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;

/**
 * Provider {@code mariadb}: MariaDB 10.8+ (10.6 and 10.7 ignore descending index parts, see
 * docs/backends/mariadb.md) through MariaDB Connector/J, chosen by {@code jdbc:mariadb:}
 * URLs, and MySQL 8 by {@code jdbc:mysql:} URLs (the SQL is the same; see docs/backends/mariadb.md
 * for what was run).
 */
public final class MariaDbProvider extends SkipLockedProvider {
    /** Found by {@link java.util.ServiceLoader}. */
    public MariaDbProvider() {
        super("mariadb", SkipLockedDialect.MARIADB);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:");
    }

    /**
     * {@code useBulkStmts=false}: Connector/J's bulk protocol reports no per-row update counts, and
     * fencing needs them (an ack in a batch must know whether its row was still leased).
     */
    @Override
    void driverProperties(HikariConfig hc, dev.sqlqueue.QueueConfig config) {
        hc.addDataSourceProperty("useBulkStmts", "false");
    }

    @Override
    public String description() {
        return "MariaDB 10.8+ (and the MySQL 8 path), FOR UPDATE SKIP LOCKED, lease and transactional modes";
    }

    /**
     * MariaDB Connector/J, {@code org.mariadb.jdbc:mariadb-java-client}, for {@code jdbc:mariadb:} URLs; nothing is
     * checked for {@code jdbc:mysql:} URLs, which either MySQL's driver or Connector/J (with
     * {@code permitMysqlScheme}) may serve.
     */
    @Override
    public java.util.Optional<dev.sqlqueue.spi.JdbcDriver> driver(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:mariadb:")
                ? java.util.Optional.of(dev.sqlqueue.spi.JdbcDriver.of("org.mariadb.jdbc.Driver", "org.mariadb.jdbc:mariadb-java-client"))
                : java.util.Optional.empty();
    }
}
