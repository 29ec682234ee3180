package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The {@code sqlserver} backend's options, read from {@link QueueConfig#option(String, String)}.
 * Immutable and thread-safe.
 *
 * <ul>
 *   <li>{@code ordering}: {@code fifo} (default: oldest visible first), {@code lifo} (newest visible
 *       first) or {@code priority-first} (higher priority first, then oldest). Fixed when the tables
 *       of a prefix are created, because the claim index is built for it.</li>
 *   <li>{@code layout}: {@code clustered} (default: clustered primary key on id) or {@code heap}
 *       (nonclustered primary key; the table is a heap). Fixed when the tables are created.</li>
 *   <li>{@code schema}: the schema holding the tables, default {@code dbo}.</li>
 *   <li>{@code deadlock-retries}: how many times a statement chosen as deadlock victim (error 1205)
 *       or timed out on a lock (error 1222) is retried, 0..20, default 5.</li>
 * </ul>
 *
 * @param ordering claim order
 * @param layout table layout of the message table
 * @param schema schema name, validated
 * @param deadlockRetries retries of 1205/1222, 0..20
 */
public record SqlServerOptions(ClaimOrder ordering, Layout layout, String schema, int deadlockRetries) {
    /** Option keys this backend understands. */
    public static final Set<String> KEYS = Set.of("ordering", "layout", "schema", "deadlock-retries");

    /** Claim order; {@link #key} is the option value. */
    public enum ClaimOrder {
        /** Oldest first ({@code fifo}). */
        FIFO("fifo"),
        /** Newest first ({@code lifo}). */
        LIFO("lifo"),
        /** Highest priority first, then oldest ({@code priority-first}). */
        PRIORITY_FIRST("priority-first");

        final String key;

        ClaimOrder(String key) {
            this.key = key;
        }

        /** @return the option value, as written in the config */
        public String key() {
            return key;
        }
    }

    /** Physical layout of the message table; {@link #key} is the option value. */
    public enum Layout {
        /** A clustered primary key on id ({@code clustered}, the default). */
        CLUSTERED("clustered"),
        /** A nonclustered primary key; the table is a heap ({@code heap}). */
        HEAP("heap");

        final String key;

        Layout(String key) {
            this.key = key;
        }

        /** @return the option value, as written in the config */
        public String key() {
            return key;
        }
    }

    /**
     * Defaults: fifo, clustered, dbo, 5 retries.
     *
     * @return the default options
     */
    public static SqlServerOptions defaults() {
        return new SqlServerOptions(ClaimOrder.FIFO, Layout.CLUSTERED, "dbo", 5);
    }

    /**
     * Read and validate the options of a config.
     *
     * @param config the queue configuration (URL, table prefix and options)
     * @return the options, defaults for those not given
     * @throws InvalidInputException naming the rule ({@code option.unknown}, {@code option.ordering},
     *     {@code option.layout}, {@code option.schema}, {@code option.deadlock-retries})
     */
    public static SqlServerOptions from(QueueConfig config) {
        dev.sqlqueue.spi.OptionKeys.requireKnown("sqlserver", config, KEYS);
        ClaimOrder ordering = pick(ClaimOrder.values(), config.option("ordering", "fifo"), "ordering", ClaimOrder::key);
        Layout layout = pick(Layout.values(), config.option("layout", "clustered"), "layout", Layout::key);
        String schema = SqlServerNames.schema(config.option("schema", "dbo"));
        String r = config.option("deadlock-retries", "5");
        int retries;
        try {
            retries = Integer.parseInt(r);
        } catch (NumberFormatException e) {
            retries = -1;
        }
        if (retries < 0 || retries > 20) {
            throw new InvalidInputException("option.deadlock-retries", "deadlock-retries must be 0..20, was '" + r + "'");
        }
        return new SqlServerOptions(ordering, layout, schema, retries);
    }

    private static <E> E pick(E[] values, String given, String key, java.util.function.Function<E, String> name) {
        return Arrays.stream(values).filter(v -> name.apply(v).equals(given)).findFirst()
                .orElseThrow(() -> new InvalidInputException("option." + key, key + " must be one of "
                        + Arrays.stream(values).map(name).collect(Collectors.joining(", ")) + ", was '" + given + "'"));
    }
}
