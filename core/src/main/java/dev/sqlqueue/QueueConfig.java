package dev.sqlqueue;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * How to reach a backend. Immutable; build with {@link #builder()}.
 *
 * <ul>
 *   <li>{@code url}: a JDBC URL; picks the backend unless {@code backend} names one. Required unless a
 *       {@code dataSource} and a {@code backend} name are given.</li>
 *   <li>{@code backend}: a provider name ({@code h2}, {@code postgresql}, {@code mariadb},
 *       {@code sqlserver}, {@code sqlserver-broker}, {@code teradata}); optional.</li>
 *   <li>{@code dataSource}: a pool the caller owns (the backend then opens none and never closes it).</li>
 *   <li>{@code tablePrefix}: prefix of every object the backend creates, 1 to 24 characters of
 *       {@code [a-z][a-z0-9_]*}; default {@code sqlq_}. Distinct prefixes are fully separate namespaces.</li>
 *   <li>{@code history}: keep processed messages in a history table instead of deleting them on ack.</li>
 *   <li>{@code poolSize}: connections of the backend's own pool (HikariCP), 2..1000 (rule {@code
 *       pool-size.range}), default 10. Two at least: Flyway's schema migration takes a second connection for
 *       its statements while it holds the first ({@code Database.getMigrationConnection}, Flyway 11).</li>
 *   <li>{@code migrate}: create or upgrade the schema when opening, default true.</li>
 *   <li>{@code idlePollMax}: the longest pause between two polls of an idle consumer, default 1 s; the
 *       idle statement budget of a polling consumer is one claim statement per {@code idlePollMax}.</li>
 *   <li>{@code deduplicationWindow}: how long a {@link Message#deduplicationKey() deduplication key}
 *       stays taken after its first enqueue, measured on the database clock; default
 *       {@link #DEFAULT_DEDUPLICATION_WINDOW} (5 minutes, as Amazon SQS FIFO queues), 1 ms to 365 days.
 *       It applies to every queue this client enqueues on; the window of a key is fixed by the enqueue
 *       that took it. There is no "forever" or "until processed" setting: the vendor backends keep keys in
 *       a table beside the messages and cannot tie a key's life to a message's.</li>
 *   <li>{@code options}: backend-specific settings, documented on each backend's page.</li>
 *   <li>{@code dataSourceWrapper}: instrumentation applied to the {@code DataSource} the backend takes its
 *       connections from (its own pool, or {@code dataSource}): the backend calls it once when it opens
 *       and uses what it returns for every borrow; the pool itself is still closed by the backend when it
 *       owns it. The returned {@code DataSource} must hand out working connections of the one it was
 *       given (for example proxies that record the statement in flight, as the conformance kit does).
 *       Default: none.</li>
 * </ul>
 */
public final class QueueConfig {
    /** The default deduplication window: 5 minutes. */
    public static final Duration DEFAULT_DEDUPLICATION_WINDOW = Duration.ofMinutes(5);
    /** The longest deduplication window: 365 days. */
    public static final Duration MAX_DEDUPLICATION_WINDOW = Duration.ofDays(365);
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,23}");

    private final String url;
    private final String user;
    private final String password;
    private final String backend;
    private final DataSource dataSource;
    private final String tablePrefix;
    private final boolean history;
    private final int poolSize;
    private final boolean migrate;
    private final Duration idlePollMax;
    private final Duration deduplicationWindow;
    private final Map<String, String> options;
    private final UnaryOperator<DataSource> dataSourceWrapper;

    private QueueConfig(Builder b) {
        this.url = b.url;
        this.user = b.user;
        this.password = b.password;
        this.backend = b.backend;
        this.dataSource = b.dataSource;
        this.tablePrefix = b.tablePrefix;
        this.history = b.history;
        this.poolSize = b.poolSize;
        this.migrate = b.migrate;
        this.idlePollMax = b.idlePollMax;
        this.deduplicationWindow = b.deduplicationWindow;
        this.options = Collections.unmodifiableMap(new LinkedHashMap<>(b.options));
        this.dataSourceWrapper = b.dataSourceWrapper;
    }

    /**
     * A builder with every default: no URL, prefix {@code sqlq_}, history off, pool of 10, migrate on,
     * idle poll 1 s, deduplication window 5 minutes.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A config for this JDBC URL with every default.
     *
     * @param url a JDBC URL, which picks the backend
     * @return the config
     * @throws InvalidInputException (rule {@code config.url}) for a null or blank URL
     */
    public static QueueConfig ofUrl(String url) {
        return builder().url(url).build();
    }

    /** @return the JDBC URL, or null when a DataSource and a backend name are given instead */
    public String url() { return url; }
    /** @return the database user, or null (the URL's or the driver's default) */
    public String user() { return user; }
    /** @return the user's password, or null */
    public String password() { return password; }
    /**
     * The provider name asked for, or null to choose by URL.
     *
     * @return the provider name, or null
     */
    public String backend() { return backend; }
    /**
     * The caller's pool, or null.
     *
     * @return the pool the caller owns, or null when the backend opens its own
     */
    public DataSource dataSource() { return dataSource; }
    /** @return the prefix of every object the backend creates, 1 to 24 characters of {@code [a-z][a-z0-9_]*} */
    public String tablePrefix() { return tablePrefix; }
    /** @return whether processed messages are kept in a history table instead of deleted on ack */
    public boolean history() { return history; }
    /** @return connections of the backend's own pool, 2..1000 (unused with a caller's DataSource) */
    public int poolSize() { return poolSize; }
    /** @return whether the schema is created or upgraded when opening */
    public boolean migrate() { return migrate; }
    /** @return the longest pause between two polls of an idle consumer, 1 ms..10 min */
    public Duration idlePollMax() { return idlePollMax; }
    /**
     * How long a deduplication key stays taken after its first enqueue (database clock).
     *
     * @return the window, 1 ms..365 days
     */
    public Duration deduplicationWindow() { return deduplicationWindow; }
    /** @return the backend-specific options by key, in the order given; unmodifiable */
    public Map<String, String> options() { return options; }
    /**
     * The instrumentation wrapper, or null.
     *
     * @return the wrapper, or null
     */
    public UnaryOperator<DataSource> dataSourceWrapper() { return dataSourceWrapper; }

    /**
     * {@code ds} passed through {@link #dataSourceWrapper()}, or {@code ds} itself when there is none. For
     * backends: call once on the pool they use.
     *
     * @param ds the DataSource the backend takes its connections from
     * @return what the wrapper returned for it, or {@code ds}
     */
    public DataSource wrap(DataSource ds) {
        return dataSourceWrapper == null || ds == null ? ds : dataSourceWrapper.apply(ds);
    }

    /**
     * A backend-specific option, or {@code def}.
     *
     * @param key the option's key, for example {@code postgresql.transaction-pooler}
     * @param def what to return when the option is not set
     * @return the option's value as given, or {@code def}
     */
    public String option(String key, String def) {
        return options.getOrDefault(key, def);
    }

    /**
     * A builder holding this config's values, to change some of them.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.url = url;
        b.user = user;
        b.password = password;
        b.backend = backend;
        b.dataSource = dataSource;
        b.tablePrefix = tablePrefix;
        b.history = history;
        b.poolSize = poolSize;
        b.migrate = migrate;
        b.idlePollMax = idlePollMax;
        b.deduplicationWindow = deduplicationWindow;
        b.options.putAll(options);
        b.dataSourceWrapper = dataSourceWrapper;
        return b;
    }

    @Override
    public String toString() {
        return "QueueConfig[url=" + url + ", backend=" + backend + ", tablePrefix=" + tablePrefix
                + ", history=" + history + "]";
    }

    /** Builder; setters validate at once and throw {@link InvalidInputException}. */
    public static final class Builder {
        private String url;
        private String user;
        private String password;
        private String backend;
        private DataSource dataSource;
        private String tablePrefix = "sqlq_";
        private boolean history;
        private int poolSize = 10;
        private boolean migrate = true;
        private Duration idlePollMax = Duration.ofSeconds(1);
        private Duration deduplicationWindow = DEFAULT_DEDUPLICATION_WINDOW;
        private final Map<String, String> options = new LinkedHashMap<>();
        private UnaryOperator<DataSource> dataSourceWrapper;

        /**
         * Sets the JDBC URL, which picks the backend unless {@link #backend(String)} names one.
         *
         * @param url the URL; null or blank is refused by {@link #build()} unless a DataSource and a backend are given
         * @return this builder
         */
        public Builder url(String url) { this.url = url; return this; }
        /**
         * Sets the database user.
         *
         * @param user the user, or null for the URL's or driver's default
         * @return this builder
         */
        public Builder user(String user) { this.user = user; return this; }
        /**
         * Sets the user's password.
         *
         * @param password the password, or null
         * @return this builder
         */
        public Builder password(String password) { this.password = password; return this; }
        /**
         * Names the backend instead of choosing it by URL.
         *
         * @param backend a provider name such as {@code postgresql}, or null to choose by URL
         * @return this builder
         */
        public Builder backend(String backend) { this.backend = backend; return this; }
        /**
         * Lets the backend take its connections from the caller's pool (it then opens none and never closes it).
         *
         * @param ds the caller's pool, or null for the backend's own
         * @return this builder
         */
        public Builder dataSource(DataSource ds) { this.dataSource = ds; return this; }
        /**
         * Keeps processed messages in a history table instead of deleting them on ack.
         *
         * @param on true to keep them; default false
         * @return this builder
         */
        public Builder history(boolean on) { this.history = on; return this; }
        /**
         * Creates or upgrades the schema when opening.
         *
         * @param on true to migrate (default), false to use the schema as it is
         * @return this builder
         */
        public Builder migrate(boolean on) { this.migrate = on; return this; }
        /**
         * See the class comment; null for none.
         *
         * @param wrapper called once with the backend's DataSource; what it returns is used for every borrow
         * @return this builder
         */
        public Builder dataSourceWrapper(UnaryOperator<DataSource> wrapper) { this.dataSourceWrapper = wrapper; return this; }

        /**
         * Sets the prefix of every object the backend creates.
         *
         * @param prefix 1 to 24 characters of {@code [a-z][a-z0-9_]*}; default {@code sqlq_}
         * @return this builder
         * @throws InvalidInputException (rule {@code table-prefix.pattern}) for any other prefix, null included
         */
        public Builder tablePrefix(String prefix) {
            if (prefix == null || !PREFIX.matcher(prefix).matches()) {
                throw new InvalidInputException("table-prefix.pattern",
                        "table prefix must be 1 to 24 characters of [a-z][a-z0-9_]*, was '" + prefix + "'");
            }
            this.tablePrefix = prefix;
            return this;
        }

        /**
         * @param n connections of the backend's own pool, 2..1000; default 10
         * @return this builder
         * @throws InvalidInputException (rule {@code pool-size.range}) unless {@code n} is 2..1000
         */
        public Builder poolSize(int n) {
            if (n < 2 || n > 1000) {
                throw new InvalidInputException("pool-size.range", "pool size must be 2..1000 (the schema migration"
                        + " holds two connections at once), was " + n);
            }
            this.poolSize = n;
            return this;
        }

        /**
         * Sets the longest pause between two polls of an idle consumer.
         *
         * @param d the pause, 1 ms..10 min; default 1 s
         * @return this builder
         * @throws InvalidInputException (rule {@code idle-poll.range}) for null or a pause outside 1 ms..10 min
         */
        public Builder idlePollMax(Duration d) {
            if (d == null || d.toMillis() < 1 || d.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new InvalidInputException("idle-poll.range", "idle poll interval must be 1 ms..10 min, was " + d);
            }
            this.idlePollMax = d;
            return this;
        }

        /**
         * @param d how long a deduplication key stays taken after its first enqueue (database clock)
         * @return this builder
         * @throws InvalidInputException (rule {@code dedupe.window}) unless 1 ms to 365 days
         */
        public Builder deduplicationWindow(Duration d) {
            if (d == null || d.toMillis() < 1 || d.compareTo(MAX_DEDUPLICATION_WINDOW) > 0) {
                throw new InvalidInputException("dedupe.window", "deduplication window must be 1 ms..365 days, was " + d);
            }
            this.deduplicationWindow = d;
            return this;
        }

        /**
         * Sets a backend-specific option (documented on each backend's page); the backends refuse keys they do not
         * know when it opens (rule {@code option.unknown}).
         *
         * @param key the option's key, for example {@code postgresql.transaction-pooler}
         * @param value its value, as text
         * @return this builder
         */
        public Builder option(String key, String value) {
            options.put(key, value);
            return this;
        }

        /**
         * The config.
         *
         * @return the config, immutable
         * @throws InvalidInputException (rule {@code config.url}) without a URL, unless a DataSource and a backend name are given
         */
        public QueueConfig build() {
            if ((url == null || url.isBlank()) && (dataSource == null || backend == null)) {
                throw new InvalidInputException("config.url",
                        "a JDBC URL is required (or a DataSource together with a backend name)");
            }
            return new QueueConfig(this);
        }
    }
}
