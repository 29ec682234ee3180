package dev.sqlqueue;

/**
 * A database session with a transaction open, as the server reports it: what {@link QueueAdmin#oldestTransactions}
 * returns. While such a transaction (or the snapshot it reads from) is open, the server cannot clean up the row
 * versions the queue's claims and acks leave behind (PostgreSQL: dead tuples that {@code VACUUM} may not remove
 * while they are newer than the session's {@code backend_xmin}; MariaDB/InnoDB: undo log records that purge keeps
 * while an older read view exists), so every claim reads past more of them: claims slow down and the backlog
 * grows. docs/backends/postgresql.md and mariadb.md, "A transaction held open elsewhere", say how to bound it.
 *
 * <p>Immutable. Texts the server did not give are {@code null}.
 *
 * @param sessionId the server's id of the session, as text: PostgreSQL the backend's process id
 *     ({@code pg_stat_activity.pid}, what {@code pg_terminate_backend} takes); MariaDB the connection id
 *     ({@code information_schema.PROCESSLIST.ID}, what {@code KILL} takes)
 * @param user the database user of the session
 * @param clientAddress where the session connects from (PostgreSQL {@code client_addr}, null for a Unix socket;
 *     MariaDB {@code host:port} of the processlist)
 * @param applicationName what the client calls itself (PostgreSQL {@code application_name}, often empty; MariaDB has
 *     no such column in the processlist: null)
 * @param state what the session does now (PostgreSQL {@code state}, e.g. {@code idle in transaction}; MariaDB the
 *     processlist's {@code COMMAND}, with its {@code STATE} after a colon when there is one, e.g. {@code Sleep})
 * @param ageMillis how long the transaction has been open, in ms, on the database clock (PostgreSQL
 *     {@code clock_timestamp() - xact_start}; MariaDB from {@code INNODB_TRX.trx_started}, which has whole seconds,
 *     so the age is whole seconds too); at least 0
 * @param query the start (at most {@link #QUERY_PREVIEW_CHARS} characters) of the session's current or last
 *     statement, or null when the server shows none
 * @param cleanupBacklog how far the server's clean-up lags, in the server's own unit, or -1 when not reported:
 *     PostgreSQL the transactions started since the session's snapshot ({@code age(backend_xmin)}, else
 *     {@code age(backend_xid)}); MariaDB the InnoDB history list length (undo log records not yet purged,
 *     server-wide, not per session)
 */
public record OpenTransaction(String sessionId, String user, String clientAddress, String applicationName,
                              String state, long ageMillis, String query, long cleanupBacklog) {
    /** The most characters of {@link #query()} kept: 200. */
    public static final int QUERY_PREVIEW_CHARS = 200;

    /**
     * Clamps a negative age to 0 and cuts the query to {@value #QUERY_PREVIEW_CHARS} characters with its runs of
     * white space made single spaces.
     *
     * @param sessionId the server's id of the session, as text: PostgreSQL the backend's process id
     *     ({@code pg_stat_activity.pid}, what {@code pg_terminate_backend} takes); MariaDB the connection id
     *     ({@code information_schema.PROCESSLIST.ID}, what {@code KILL} takes)
     * @param user the database user of the session
     * @param clientAddress where the session connects from (PostgreSQL {@code client_addr}, null for a Unix socket;
     *     MariaDB {@code host:port} of the processlist)
     * @param applicationName what the client calls itself (PostgreSQL {@code application_name}, often empty; MariaDB has
     *     no such column in the processlist: null)
     * @param state what the session does now (PostgreSQL {@code state}, e.g. {@code idle in transaction}; MariaDB the
     *     processlist's {@code COMMAND}, with its {@code STATE} after a colon when there is one, e.g. {@code Sleep})
     * @param ageMillis how long the transaction has been open, in ms, on the database clock (PostgreSQL
     *     {@code clock_timestamp() - xact_start}; MariaDB from {@code INNODB_TRX.trx_started}, which has whole seconds,
     *     so the age is whole seconds too); at least 0
     * @param query the start (at most {@link #QUERY_PREVIEW_CHARS} characters) of the session's current or last
     *     statement, or null when the server shows none
     * @param cleanupBacklog how far the server's clean-up lags, in the server's own unit, or -1 when not reported:
     *     PostgreSQL the transactions started since the session's snapshot ({@code age(backend_xmin)}, else
     *     {@code age(backend_xid)}); MariaDB the InnoDB history list length (undo log records not yet purged,
     *     server-wide, not per session)
     * @throws IllegalArgumentException if {@code sessionId} is null
     */
    public OpenTransaction {
        if (sessionId == null) {
            throw new IllegalArgumentException("sessionId must be given");
        }
        ageMillis = Math.max(0, ageMillis);
        if (query != null && query.length() > QUERY_PREVIEW_CHARS) {
            query = query.substring(0, QUERY_PREVIEW_CHARS);
        }
        if (query != null) {
            query = query.replaceAll("\\s+", " ").trim();
        }
    }

    /**
     * One line naming the session for a log or a report, for example {@code session 4711 (user report,
     * application psql, from 10.0.0.7, idle in transaction) has had a transaction open for 245 s: SELECT ...} (under
     * 10 s the age is given in ms).
     *
     * @return the line, without a line break
     */
    public String describe() {
        StringBuilder b = new StringBuilder("session ").append(sessionId).append(" (user ").append(user);
        if (applicationName != null && !applicationName.isEmpty()) {
            b.append(", application ").append(applicationName);
        }
        if (clientAddress != null && !clientAddress.isEmpty()) {
            b.append(", from ").append(clientAddress);
        }
        if (state != null && !state.isEmpty()) {
            b.append(", ").append(state);
        }
        b.append(") has had a transaction open for ")
                .append(ageMillis < 10_000 ? ageMillis + " ms" : ageMillis / 1000 + " s");
        if (query != null && !query.isEmpty()) {
            b.append(": ").append(query);
        }
        return b.toString();
    }
}
