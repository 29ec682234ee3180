package dev.sqlqueue.teradata;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.spi.OptionKeys;
import java.util.Set;

/**
 * The Teradata settings read from {@link QueueConfig#options()}. Immutable.
 *
 * @param database {@code teradata.database}: the database holding the queue tables; null means the
 *     session's default database ({@code SELECT DATABASE})
 * @param maxWaitingSessions {@code teradata.max-waiting-sessions}, 1..24, default 4: how many of this
 *     backend's sessions may run a {@code SELECT AND CONSUME} at the same time (each may enter the delay
 *     state if another consumer took the row it saw)
 * @param retryAttempts {@code teradata.retry-attempts}, 0..10, default 3: extra tries after a retryable
 *     error (2631, 2639, 2641, 3111, 3120, 3128)
 * @param retryBackoffMillis {@code teradata.retry-backoff-ms}, 1..10000, default 50: first pause in ms,
 *     doubled per try, with jitter
 * @param insertBatchRows {@code teradata.insert-batch-rows}, 1..4, default 4: rows per iterated INSERT
 * @param consumeCancelMillis {@code teradata.consume-cancel-ms}, 0..600000, default 2000: after this many
 *     ms a claim's first consume, if still running, is cancelled with {@code Statement.cancel()}; its query
 *     timeout is this plus 1,000 ms, in whole seconds rounded up, after which terajdbc closes the
 *     connection if the cancel was not answered ({@link WaitGate}; 0 = neither)
 * @param batchConsumeCancelMillis {@code teradata.batch-consume-cancel-ms}, 0..600000, default 250: the
 *     same for the second and later consumes of a batch claim, which hold the rows taken so far
 * @param fallback {@code teradata.fallback}, {@code true} or {@code false}, default true: whether new
 *     queue and dead-letter tables are created with FALLBACK (a second copy on another AMP, so the queue
 *     stays available when one AMP is down, at twice the space) or NO FALLBACK
 */
public record TeradataOptions(String database, int maxWaitingSessions, int retryAttempts, long retryBackoffMillis,
                              int insertBatchRows, long consumeCancelMillis, long batchConsumeCancelMillis,
                              boolean fallback) {

    /**
     * The defaults, with the session's default database.
     *
     * @return no database, 4 waiting sessions, 3 retries 50 ms apart, 4 rows per insert, consume cancel after
     *     2000 ms (250 ms for a batch), FALLBACK tables
     */
    public static TeradataOptions defaults() {
        return new TeradataOptions(null, 4, 3, 50, 4, 2000, 250, true);
    }

    /** The option keys this backend reads; any other key is refused ({@code option.unknown}). */
    public static final Set<String> KEYS = Set.of("teradata.database", "teradata.max-waiting-sessions",
            "teradata.retry-attempts", "teradata.retry-backoff-ms", "teradata.insert-batch-rows",
            "teradata.consume-cancel-ms", "teradata.batch-consume-cancel-ms", "teradata.fallback");

    /**
     * Reads and validates the options of {@code config}.
     *
     * @param config the queue configuration whose {@code teradata.*} options are read
     * @return the options, defaults for those not given
     * @throws InvalidInputException rule {@code option.unknown} for a key not in {@link #KEYS} (a misspelt key
     *     was ignored, so the backend ran on the default it was meant to change); otherwise naming the option
     *     as the rule when a value is not a number in its range, not {@code true}/{@code false}, or not a
     *     database name
     */
    public static TeradataOptions from(QueueConfig config) {
        OptionKeys.requireKnown("teradata", config, KEYS);
        String db = config.option("teradata.database", null);
        return new TeradataOptions(db == null ? null : TeradataNames.checkDatabase(db),
                (int) number(config, "teradata.max-waiting-sessions", 4, 1, 24),
                (int) number(config, "teradata.retry-attempts", 3, 0, 10),
                number(config, "teradata.retry-backoff-ms", 50, 1, 10_000),
                (int) number(config, "teradata.insert-batch-rows", 4, 1, 4),
                number(config, "teradata.consume-cancel-ms", 2000, 0, 600_000),
                number(config, "teradata.batch-consume-cancel-ms", 250, 0, 600_000),
                bool(config, "teradata.fallback", true));
    }

    private static boolean bool(QueueConfig config, String key, boolean def) {
        String text = config.option(key, null);
        if (text == null) {
            return def;
        }
        if (text.trim().equalsIgnoreCase("true") || text.trim().equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(text.trim());
        }
        throw new InvalidInputException(key, "option " + key + " must be true or false, was '" + text + "'");
    }

    private static long number(QueueConfig config, String key, long def, long min, long max) {
        String text = config.option(key, null);
        if (text == null) {
            return def;
        }
        try {
            long v = Long.parseLong(text.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new InvalidInputException(key, "option " + key + " must be a whole number " + min + ".." + max
                + ", was '" + text + "'");
    }
}
