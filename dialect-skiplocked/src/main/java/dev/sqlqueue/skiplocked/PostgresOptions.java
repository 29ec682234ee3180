package dev.sqlqueue.skiplocked;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
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
 */
public record PostgresOptions(boolean transactionPooler) {
    /** The option key of {@link #transactionPooler()}. */
    public static final String TRANSACTION_POOLER = "postgresql.transaction-pooler";

    private static final Pattern PREPARE_THRESHOLD =
            Pattern.compile("[?&]preparethreshold=([^&]*)", Pattern.CASE_INSENSITIVE);

    /** The defaults: connected directly. */
    public static PostgresOptions defaults() {
        return new PostgresOptions(false);
    }

    /** @throws InvalidInputException naming the option when a value is not {@code true} or {@code false} */
    public static PostgresOptions from(QueueConfig config) {
        String text = config.option(TRANSACTION_POOLER, null);
        if (text == null) {
            return defaults();
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new InvalidInputException(TRANSACTION_POOLER,
                    "option " + TRANSACTION_POOLER + " must be true or false, was '" + text + "'");
        }
        return new PostgresOptions(Boolean.parseBoolean(t));
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
