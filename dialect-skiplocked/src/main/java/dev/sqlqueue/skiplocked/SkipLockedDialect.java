package dev.sqlqueue.skiplocked;

import org.jooq.SQLDialect;

/**
 * The databases of this module and what differs between them: the jOOQ dialect that renders their SQL,
 * the Flyway migrations, and the database-clock expression in epoch milliseconds.
 *
 * <p>Every time is computed by the database as epoch milliseconds, so comparisons are plain integer
 * comparisons that no JVM or session time zone, and no daylight-saving change, can shift.
 */
public enum SkipLockedDialect {
    /**
     * H2 2.3+. H2's {@code CURRENT_TIMESTAMP} stays fixed for a whole transaction (H2 manual,
     * "CURRENT_TIMESTAMP"), which would measure a nack's delay inside a transactional claim from the
     * claim. The migration therefore creates the function {@code <prefix>now_ms}, bound to
     * {@code System.currentTimeMillis} of the process that runs the H2 engine: the database's own clock.
     */
    H2("h2", SQLDialect.H2, "\"%snow_ms\"()", 7),
    /**
     * PostgreSQL 12+. {@code statement_timestamp()} is fixed for one statement but moves inside a long
     * transaction, so a nack in a transactional claim is measured from the nack, not the claim.
     */
    POSTGRES("postgresql", SQLDialect.POSTGRES,
            "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)", 6),
    /**
     * MariaDB 10.6+ (and the MySQL 8 path). {@code UTC_TIMESTAMP(6)} and the epoch are both
     * {@code DATETIME} values, so {@code TIMESTAMPDIFF} is plain arithmetic, untouched by the session
     * time zone (MariaDB Knowledge Base: UTC_TIMESTAMP, TIMESTAMPDIFF).
     */
    MARIADB("mariadb", SQLDialect.MARIADB,
            "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)", 5);

    private final String folder;
    private final SQLDialect jooq;
    private final String nowMillis;
    private final int schemaVersion;

    SkipLockedDialect(String folder, SQLDialect jooq, String nowMillis, int schemaVersion) {
        this.folder = folder;
        this.jooq = jooq;
        this.nowMillis = nowMillis;
        this.schemaVersion = schemaVersion;
    }

    /**
     * The schema version this release needs: its highest migration ({@code V<n>__...sql} under
     * {@link #migrations()}); {@code SchemaVersionOnServerTest} keeps the two equal. A library opened with migrate off
     * refuses a schema below it (rule {@code schema.version}).
     *
     * @return the version number, for example 4
     */
    public int schemaVersion() {
        return schemaVersion;
    }

    /**
     * The jOOQ dialect that renders this database's statements.
     *
     * @return the jOOQ dialect
     */
    public SQLDialect jooq() {
        return jooq;
    }

    /**
     * Flyway location of the migrations.
     *
     * @return a {@code classpath:} location
     */
    public String migrations() {
        return "classpath:db/sqlqueue/" + folder;
    }

    /**
     * SQL expression: the database clock now, as epoch milliseconds (BIGINT), for a validated prefix.
     *
     * @param prefix the table prefix, already validated
     * @return the expression
     */
    public String nowMillis(String prefix) {
        return nowMillis.replace("%s", prefix);
    }
}
