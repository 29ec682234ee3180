package dev.sqlqueue.skiplocked;

/** Provider {@code h2}: embedded or server-mode H2 2.3+, chosen by {@code jdbc:h2:} URLs. */
public final class H2Provider extends SkipLockedProvider {
    public H2Provider() {
        super("h2", SkipLockedDialect.H2);
    }

    @Override
    public boolean acceptsUrl(String jdbcUrl) {
        return jdbcUrl.startsWith("jdbc:h2:");
    }

    @Override
    public String description() {
        return "H2 2.3+ (embedded default), FOR UPDATE SKIP LOCKED, lease and transactional modes";
    }
}
