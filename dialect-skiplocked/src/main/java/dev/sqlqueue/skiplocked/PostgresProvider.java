package dev.sqlqueue.skiplocked;

/** Provider {@code postgresql}: PostgreSQL 12+, chosen by {@code jdbc:postgresql:} URLs. */
public final class PostgresProvider extends SkipLockedProvider {
    public PostgresProvider() {
        super("postgresql", SkipLockedDialect.POSTGRES);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:postgresql:");
    }

    @Override
    public String description() {
        return "PostgreSQL 12+, FOR UPDATE SKIP LOCKED, LISTEN/NOTIFY wake-up, lease and transactional modes";
    }
}
