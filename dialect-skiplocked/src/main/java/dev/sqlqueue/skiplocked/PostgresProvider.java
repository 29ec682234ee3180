package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.HikariConfig;

/**
 * Provider {@code postgresql}: PostgreSQL 12+, chosen by {@code jdbc:postgresql:} URLs. The pool's
 * sessions carry {@code application_name = sqlqueue-<tablePrefix>}, so an operator (or the
 * conformance kit) can see and, if needed, terminate exactly this backend's sessions.
 */
public final class PostgresProvider extends SkipLockedProvider {
    public PostgresProvider() {
        super("postgresql", SkipLockedDialect.POSTGRES);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    void driverProperties(HikariConfig hc, dev.sqlqueue.QueueConfig config) {
        hc.addDataSourceProperty("ApplicationName", "sqlqueue-" + config.tablePrefix());
    }

    @Override
    public String description() {
        return "PostgreSQL 12+, FOR UPDATE SKIP LOCKED, LISTEN/NOTIFY wake-up, lease and transactional modes";
    }
}
