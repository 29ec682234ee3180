package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.conformance.FaultHooks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The raw-row hook (case C16) the kit ships for the built-in SKIP LOCKED backends, H2, PostgreSQL and MariaDB:
 * it writes a message row with the table layout of dialect-skiplocked's migrations
 * ({@code db/sqlqueue/<backend>/V1__queue_tables.sql}), as a person with SQL access would, bypassing the library's
 * checks. Raw SQL on purpose: C16 checks what the library does with rows it did not write. Registered in
 * {@code META-INF/services/dev.sqlqueue.conformance.kit.KitHooks}; every other hook stays the kit's generic one.
 */
public abstract class BuiltInKitHooks implements KitHooks {
    private final String backend;
    /** The identifier quote and the expression of the database clock in epoch ms ({@code SkipLockedDialect}). */
    private final String quote;
    private final String nowMillis;

    BuiltInKitHooks(String backend, String quote, String nowMillis) {
        this.backend = backend;
        this.quote = quote;
        this.nowMillis = nowMillis;
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public FaultHooks hooks(QueueConfig base) {
        return new FaultHooks() {
            @Override
            public Optional<String> rawInsertUnavailable() {
                return Optional.empty();
            }

            @Override
            public void insertRawMessage(QueueConfig config, QueueName queue, byte[] payload, String rawHeaders)
                    throws SQLException {
                String p = config.tablePrefix();
                String now = "(" + nowMillis.replace("%s", p) + ")";
                try (Connection c = DriverManager.getConnection(config.url(), config.user(), config.password());
                     PreparedStatement ps = c.prepareStatement("INSERT INTO " + quote + p + "message" + quote
                             + " (queue, priority, visible_at, enqueued_at, attempts, headers, payload)"
                             + " VALUES (?, 0, " + now + ", " + now + ", 0, ?, ?)")) {
                    c.setAutoCommit(true);
                    ps.setString(1, queue.value());
                    ps.setString(2, rawHeaders);
                    ps.setBytes(3, payload);
                    ps.executeUpdate();
                }
            }
        };
    }

    /** H2: the clock is the migration's {@code <prefix>now_ms} function. */
    public static final class H2 extends BuiltInKitHooks {
        /** Found by {@link java.util.ServiceLoader}. */
        public H2() {
            super("h2", "\"", "\"%snow_ms\"()");
        }
    }

    /** PostgreSQL: {@code statement_timestamp()} in epoch ms. */
    public static final class Postgres extends BuiltInKitHooks {
        /** Found by {@link java.util.ServiceLoader}. */
        public Postgres() {
            super("postgresql", "\"", "CAST(FLOOR(EXTRACT(EPOCH FROM statement_timestamp()) * 1000) AS BIGINT)");
        }
    }

    /** MariaDB: {@code UTC_TIMESTAMP(6)} in epoch ms. */
    public static final class MariaDb extends BuiltInKitHooks {
        /** Found by {@link java.util.ServiceLoader}. */
        public MariaDb() {
            super("mariadb", "`", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000");
        }
    }
}
