package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL settings read from {@link QueueConfig#options()}. Immutable.
 *
 * @param transactionPooler {@code postgresql.transaction-pooler}, {@code true} or {@code false}, default
 *     false: the URL (or the caller's {@code DataSource}) reaches PostgreSQL through a pooler that hands a
 *     server connection to a client for one transaction only, such as pgbouncer with
 *     {@code pool_mode = transaction}. Then: the backend's own pool connects with pgjdbc's
 *     {@code prepareThreshold=0} (no named server-side prepared statement, which would live on one server
 *     connection while the next transaction runs on another; pgbouncer 1.18 does not track them), a URL or
 *     a caller's pool that prepares on the server is refused at open, the server's
 *     {@code default_transaction_isolation} must be {@code read committed} (a session {@code SET} would
 *     reach one server connection only), and no LISTEN connection is opened (a LISTEN through the pooler
 *     would hold one server connection's subscription that no client reads): consumers find messages by
 *     polling, at most {@link QueueConfig#idlePollMax()} apart, and the backend does not report
 *     {@link dev.sqlqueue.Capability#SERVER_SIDE_WAIT}. Enqueues still send their {@code NOTIFY}, which a
 *     process connected directly can LISTEN to.
 * @param vacuumEvery {@code postgresql.vacuum-every}, a duration of 1 s to 24 h ({@code 30s}, {@code 1m},
 *     {@code 500ms} is refused, ISO-8601 {@code PT1M}), or {@code off} (the default, null here): this
 *     backend runs {@code VACUUM (SKIP_LOCKED) "<prefix>message"} that often from a daemon thread
 *     ({@link PostgresVacuum}), for servers where autovacuum does not run on the message table
 *     ({@code autovacuum = off}). Without it every claim and ack leaves dead rows that only a vacuum removes,
 *     and claims slow down within minutes (docs/backends/postgresql.md, "Statistics of a queue table, and
 *     vacuum"). Needs the table's owner (the user that ran the migration) or a superuser.
 */
public record PostgresOptions(boolean transactionPooler, Duration vacuumEvery) {
    /** The option key of {@link #transactionPooler()}. */
    public static final String TRANSACTION_POOLER = "postgresql.transaction-pooler";
    /** The option key of {@link #vacuumEvery()}. */
    public static final String VACUUM_EVERY = "postgresql.vacuum-every";

    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    private static final Pattern PREPARE_THRESHOLD =
            Pattern.compile("[?&]preparethreshold=([^&]*)", Pattern.CASE_INSENSITIVE);

    /**
     * The defaults: connected directly.
     *
     * @return no transaction pooler, no vacuum schedule
     */
    public static PostgresOptions defaults() {
        return new PostgresOptions(false, null);
    }

    /**
     * The PostgreSQL options of {@code config} ({@link QueueConfig#option}).
     *
     * @param config the queue config whose options to read
     * @return the options, validated
     * @throws InvalidInputException naming the option when {@link #TRANSACTION_POOLER} is not {@code true} or
     *     {@code false}, or {@link #VACUUM_EVERY} is not {@code off} or a duration of 1 s to 24 h
     */
    public static PostgresOptions from(QueueConfig config) {
        boolean pooler = false;
        String text = config.option(TRANSACTION_POOLER, null);
        if (text != null) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            if (!t.equals("true") && !t.equals("false")) {
                throw new InvalidInputException(TRANSACTION_POOLER,
                        "option " + TRANSACTION_POOLER + " must be true or false, was '" + text + "'");
            }
            pooler = Boolean.parseBoolean(t);
        }
        return new PostgresOptions(pooler, vacuumEvery(config.option(VACUUM_EVERY, null)));
    }

    private static Duration vacuumEvery(String text) {
        if (text == null || text.trim().equalsIgnoreCase("off")) {
            return null;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        Duration d = null;
        Matcher m = SHORT_DURATION.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else if (t.startsWith("pt")) {
            try {
                d = Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                d = null;
            }
        }
        if (d == null || d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
            throw new InvalidInputException(VACUUM_EVERY, "option " + VACUUM_EVERY + " must be off or a duration of 1s to 24h"
                    + " (such as 30s, 1m, PT1M), was '" + text + "'");
        }
        return d;
    }

    /**
     * The {@code prepareThreshold} a pgjdbc URL sets, or null when it sets none. pgjdbc lets the URL's
     * value win over the pool's driver properties.
     */
    static String urlPrepareThreshold(String url) {
        if (url == null) {
            return null;
        }
        Matcher m = PREPARE_THRESHOLD.matcher(url);
        String value = null;
        while (m.find()) {
            value = m.group(1);
        }
        return value;
    }
}
