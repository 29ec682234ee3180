package dev.sqlqueue.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code sqlqueue.*} properties. The queue runs on the application's {@code DataSource}; the backend
 * is chosen from that DataSource's JDBC URL unless {@code sqlqueue.backend} names one.
 */
@ConfigurationProperties(prefix = "sqlqueue")
public class SqlQueueProperties {
    /** Whether to auto-configure sqlqueue at all. */
    private boolean enabled = true;
    /** Backend name (h2, postgresql, mariadb, sqlserver, sqlserver-broker, teradata); empty: chosen from the DataSource's JDBC URL. */
    private String backend;
    /** Prefix of every table the backend creates: 1..24 characters of [a-z][a-z0-9_]*. */
    private String tablePrefix = "sqlq_";
    /** Keep acked and dead-lettered messages in a history table instead of deleting them (as sqlqueue work does; the dashboard's charts read it). */
    private boolean history = true;
    /** Create or upgrade the schema (Flyway, table prefix's own history table) at start. */
    private boolean migrate = true;
    /** The longest pause between two polls of an idle consumer. */
    private Duration idlePollMax = Duration.ofSeconds(1);
    /** How long a deduplication key stays taken after its first enqueue (database clock), 1 ms..365 days. */
    private Duration deduplicationWindow = Duration.ofMinutes(5);
    /** Queues to create at start (idempotent); queues of handlers are created too. */
    private List<String> queues = new ArrayList<>();
    private final Worker worker = new Worker();
    /**
     * Settings of the handlers of one queue, by queue name (for example
     * {@code sqlqueue.handlers.mail.max-attempts=10}): each one given overrides {@code sqlqueue.worker.*}
     * for the handlers of that queue, annotated methods and QueueWorker beans alike; an annotation's
     * attribute and a QueueWorker bean's own options override it.
     */
    private Map<String, Handler> handlers = new LinkedHashMap<>();
    private final Metrics metrics = new Metrics();
    private final Health health = new Health();
    private final Tracing tracing = new Tracing();
    private final Endpoint endpoint = new Endpoint();
    private final Dashboard dashboard = new Dashboard();

    /** Defaults of every handler's WorkerPool (an annotation attribute overrides them). */
    public static class Worker {
        /** Whether handler beans are started with the application context. */
        private boolean enabled = true;
        /** Consumer threads per handler, 1..1024. */
        private int threads = 4;
        /** The most messages one claim takes, 1..1000; claims are sized by the backlog and the handler's time (as the library's and sqlqueue work's). */
        private int batchSize = 100;
        /** Lease per claim; renewed every third of it while the handler runs. */
        private Duration lease = Duration.ofSeconds(30);
        /** How long one consume waits for a message before the thread checks for shutdown. */
        private Duration pollWait = Duration.ofSeconds(1);
        /** Deliveries of a message before it is dead-lettered, 1..1000. */
        private int maxAttempts = 5;
        /** How long shutdown lets running handlers finish before interrupting them. */
        private Duration shutdownGrace = Duration.ofSeconds(30);
        /**
         * A transaction open elsewhere on the database this long is logged at WARN, naming its session (PostgreSQL,
         * MariaDB); 0 turns the check off.
         */
        private Duration transactionWarnAge = Duration.ofSeconds(60);

        /** @return a transaction open elsewhere on the database this long is logged at WARN, naming its session (PostgreSQL, MariaDB); 0 turns the check off ({@code sqlqueue.worker.transaction-warn-age}) */
        public Duration getTransactionWarnAge() { return transactionWarnAge; }
        /** @param transactionWarnAge a transaction open elsewhere on the database this long is logged at WARN, naming its session (PostgreSQL, MariaDB); 0 turns the check off ({@code sqlqueue.worker.transaction-warn-age}) */
        public void setTransactionWarnAge(Duration transactionWarnAge) { this.transactionWarnAge = transactionWarnAge; }

        /** The delay before a failed message is delivered again. */
        private final Backoff backoff = new Backoff();

        /** @return the back-off settings ({@code sqlqueue.worker.backoff.*}), never null; change its fields */
        public Backoff getBackoff() { return backoff; }
        /** @return whether handler beans are started with the application context ({@code sqlqueue.worker.enabled}) */
        public boolean isEnabled() { return enabled; }
        /** @param enabled whether handler beans are started with the application context ({@code sqlqueue.worker.enabled}) */
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        /** @return consumer threads per handler, 1..1024 ({@code sqlqueue.worker.threads}) */
        public int getThreads() { return threads; }
        /** @param threads consumer threads per handler, 1..1024 ({@code sqlqueue.worker.threads}) */
        public void setThreads(int threads) { this.threads = threads; }
        /** @return the most messages one claim takes, 1..1000; claims are sized by the backlog and the handler's time (as the library's and sqlqueue work's) ({@code sqlqueue.worker.batch-size}) */
        public int getBatchSize() { return batchSize; }
        /** @param batchSize the most messages one claim takes, 1..1000; claims are sized by the backlog and the handler's time (as the library's and sqlqueue work's) ({@code sqlqueue.worker.batch-size}) */
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        /** @return lease per claim; renewed every third of it while the handler runs ({@code sqlqueue.worker.lease}) */
        public Duration getLease() { return lease; }
        /** @param lease lease per claim; renewed every third of it while the handler runs ({@code sqlqueue.worker.lease}) */
        public void setLease(Duration lease) { this.lease = lease; }
        /** @return how long one consume waits for a message before the thread checks for shutdown ({@code sqlqueue.worker.poll-wait}) */
        public Duration getPollWait() { return pollWait; }
        /** @param pollWait how long one consume waits for a message before the thread checks for shutdown ({@code sqlqueue.worker.poll-wait}) */
        public void setPollWait(Duration pollWait) { this.pollWait = pollWait; }
        /** @return deliveries of a message before it is dead-lettered, 1..1000 ({@code sqlqueue.worker.max-attempts}) */
        public int getMaxAttempts() { return maxAttempts; }
        /** @param maxAttempts deliveries of a message before it is dead-lettered, 1..1000 ({@code sqlqueue.worker.max-attempts}) */
        public void setMaxAttempts(int maxAttempts) { this.maxAttempts = maxAttempts; }
        /** @return how long shutdown lets running handlers finish before interrupting them ({@code sqlqueue.worker.shutdown-grace}) */
        public Duration getShutdownGrace() { return shutdownGrace; }
        /** @param shutdownGrace how long shutdown lets running handlers finish before interrupting them ({@code sqlqueue.worker.shutdown-grace}) */
        public void setShutdownGrace(Duration shutdownGrace) { this.shutdownGrace = shutdownGrace; }
    }

    /**
     * Exponential back-off with jitter: after failed delivery {@code a} the message waits
     * {@code min(max, initial * multiplier^(a-1))}, varied by up to {@code jitter} either way.
     */
    public static class Backoff {
        /** The delay after the first failure, 0..1 day. */
        private Duration initial = Duration.ofSeconds(1);
        /** Each further failure multiplies the delay by this, 1.0..10.0. */
        private double multiplier = 2.0;
        /** The longest delay, at least the initial one. */
        private Duration max = Duration.ofMinutes(5);
        /** The fraction by which a delay may vary either way, 0.0..1.0. */
        private double jitter = 0.2;

        /** @return the delay after the first failure, 0..1 day ({@code sqlqueue.worker.backoff.initial}) */
        public Duration getInitial() { return initial; }
        /** @param initial the delay after the first failure, 0..1 day ({@code sqlqueue.worker.backoff.initial}) */
        public void setInitial(Duration initial) { this.initial = initial; }
        /** @return each further failure multiplies the delay by this, 1.0..10.0 ({@code sqlqueue.worker.backoff.multiplier}) */
        public double getMultiplier() { return multiplier; }
        /** @param multiplier each further failure multiplies the delay by this, 1.0..10.0 ({@code sqlqueue.worker.backoff.multiplier}) */
        public void setMultiplier(double multiplier) { this.multiplier = multiplier; }
        /** @return the longest delay, at least the initial one ({@code sqlqueue.worker.backoff.max}) */
        public Duration getMax() { return max; }
        /** @param max the longest delay, at least the initial one ({@code sqlqueue.worker.backoff.max}) */
        public void setMax(Duration max) { this.max = max; }
        /** @return the fraction by which a delay may vary either way, 0.0..1.0 ({@code sqlqueue.worker.backoff.jitter}) */
        public double getJitter() { return jitter; }
        /** @param jitter the fraction by which a delay may vary either way, 0.0..1.0 ({@code sqlqueue.worker.backoff.jitter}) */
        public void setJitter(double jitter) { this.jitter = jitter; }
    }

    /** The settings of one queue's handlers; each one left unset takes {@code sqlqueue.worker.*}. */
    public static class Handler {
        /** Consumer threads, 1..1024. */
        private Integer threads;
        /** The most messages one claim takes, 1..1000. */
        private Integer batchSize;
        /** Lease per claim. */
        private Duration lease;
        /** Deliveries of a message before it is dead-lettered, 1..1000. */
        private Integer maxAttempts;
        /** Back-off of this queue's handlers. */
        private final HandlerBackoff backoff = new HandlerBackoff();

        /** @return consumer threads, 1..1024 ({@code sqlqueue.handlers.<queue>.threads}); null when not set */
        public Integer getThreads() { return threads; }
        /** @param threads consumer threads, 1..1024 ({@code sqlqueue.handlers.<queue>.threads}); null to take the {@code sqlqueue.worker.*} value */
        public void setThreads(Integer threads) { this.threads = threads; }
        /** @return the most messages one claim takes, 1..1000 ({@code sqlqueue.handlers.<queue>.batch-size}); null when not set */
        public Integer getBatchSize() { return batchSize; }
        /** @param batchSize the most messages one claim takes, 1..1000 ({@code sqlqueue.handlers.<queue>.batch-size}); null to take the {@code sqlqueue.worker.*} value */
        public void setBatchSize(Integer batchSize) { this.batchSize = batchSize; }
        /** @return lease per claim ({@code sqlqueue.handlers.<queue>.lease}); null when not set */
        public Duration getLease() { return lease; }
        /** @param lease lease per claim ({@code sqlqueue.handlers.<queue>.lease}); null to take the {@code sqlqueue.worker.*} value */
        public void setLease(Duration lease) { this.lease = lease; }
        /** @return deliveries of a message before it is dead-lettered, 1..1000 ({@code sqlqueue.handlers.<queue>.max-attempts}); null when not set */
        public Integer getMaxAttempts() { return maxAttempts; }
        /** @param maxAttempts deliveries of a message before it is dead-lettered, 1..1000 ({@code sqlqueue.handlers.<queue>.max-attempts}); null to take the {@code sqlqueue.worker.*} value */
        public void setMaxAttempts(Integer maxAttempts) { this.maxAttempts = maxAttempts; }
        /** @return the back-off settings ({@code sqlqueue.handlers.<queue>.backoff.*}), never null; change its fields */
        public HandlerBackoff getBackoff() { return backoff; }
    }

    /** A queue's back-off; each one left unset takes {@code sqlqueue.worker.backoff.*}. */
    public static class HandlerBackoff {
        /** The delay after the first failure, 0..1 day. */
        private Duration initial;
        /** Each further failure multiplies the delay by this, 1.0..10.0. */
        private Double multiplier;
        /** The longest delay, at least the initial one. */
        private Duration max;
        /** The fraction by which a delay may vary either way, 0.0..1.0. */
        private Double jitter;

        /** @return the delay after the first failure, 0..1 day ({@code sqlqueue.handlers.<queue>.backoff.initial}); null when not set */
        public Duration getInitial() { return initial; }
        /** @param initial the delay after the first failure, 0..1 day ({@code sqlqueue.handlers.<queue>.backoff.initial}); null to take the {@code sqlqueue.worker.*} value */
        public void setInitial(Duration initial) { this.initial = initial; }
        /** @return each further failure multiplies the delay by this, 1.0..10.0 ({@code sqlqueue.handlers.<queue>.backoff.multiplier}); null when not set */
        public Double getMultiplier() { return multiplier; }
        /** @param multiplier each further failure multiplies the delay by this, 1.0..10.0 ({@code sqlqueue.handlers.<queue>.backoff.multiplier}); null to take the {@code sqlqueue.worker.*} value */
        public void setMultiplier(Double multiplier) { this.multiplier = multiplier; }
        /** @return the longest delay, at least the initial one ({@code sqlqueue.handlers.<queue>.backoff.max}); null when not set */
        public Duration getMax() { return max; }
        /** @param max the longest delay, at least the initial one ({@code sqlqueue.handlers.<queue>.backoff.max}); null to take the {@code sqlqueue.worker.*} value */
        public void setMax(Duration max) { this.max = max; }
        /** @return the fraction by which a delay may vary either way, 0.0..1.0 ({@code sqlqueue.handlers.<queue>.backoff.jitter}); null when not set */
        public Double getJitter() { return jitter; }
        /** @param jitter the fraction by which a delay may vary either way, 0.0..1.0 ({@code sqlqueue.handlers.<queue>.backoff.jitter}); null to take the {@code sqlqueue.worker.*} value */
        public void setJitter(Double jitter) { this.jitter = jitter; }
    }

    /** Micrometer meters (when sqlqueue-micrometer and a MeterRegistry are present). */
    public static class Metrics {
        /** Whether to meter the queue. */
        private boolean enabled = true;
        /** Pause between two samples of stats() behind the queue gauges (10 ms..1 h). */
        private Duration statsInterval = Duration.ofSeconds(15);

        /** @return whether to meter the queue ({@code sqlqueue.metrics.enabled}) */
        public boolean isEnabled() { return enabled; }
        /** @param enabled whether to meter the queue ({@code sqlqueue.metrics.enabled}) */
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        /** @return pause between two samples of stats() behind the queue gauges (10 ms..1 h) ({@code sqlqueue.metrics.stats-interval}) */
        public Duration getStatsInterval() { return statsInterval; }
        /** @param statsInterval pause between two samples of stats() behind the queue gauges (10 ms..1 h) ({@code sqlqueue.metrics.stats-interval}) */
        public void setStatsInterval(Duration statsInterval) { this.statsInterval = statsInterval; }
    }

    /** OpenTelemetry tracing (when sqlqueue-opentelemetry and an OpenTelemetry bean are present). */
    public static class Tracing {
        /** Whether enqueues carry the traceparent header and handlers run in spans continuing it. */
        private boolean enabled = true;

        /** @return whether enqueues carry the traceparent header and handlers run in spans continuing it ({@code sqlqueue.tracing.enabled}) */
        public boolean isEnabled() { return enabled; }
        /** @param enabled whether enqueues carry the traceparent header and handlers run in spans continuing it ({@code sqlqueue.tracing.enabled}) */
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
    }

    /** The "sqlqueue" health indicator. */
    public static class Health {
        /** A queue whose oldest ready message is older than this is reported stalled (health DOWN). */
        private Duration oldestReadyMaxAge = Duration.ofMinutes(5);
        /**
         * An open transaction of the database this old or older is named in the detail transactionWarning (the status
         * stays UP); PostgreSQL and MariaDB.
         */
        private Duration oldestTransactionMaxAge = Duration.ofSeconds(60);

        /** @return an open transaction of the database this old or older is named in the detail transactionWarning (the status stays UP); PostgreSQL and MariaDB ({@code sqlqueue.health.oldest-transaction-max-age}) */
        public Duration getOldestTransactionMaxAge() { return oldestTransactionMaxAge; }
        /**
         * @param oldestTransactionMaxAge an open transaction of the database this old or older is named in the detail transactionWarning (the status stays UP); PostgreSQL and MariaDB ({@code sqlqueue.health.oldest-transaction-max-age})
         * @throws dev.sqlqueue.InvalidInputException (rule {@code health.oldest-transaction-max-age}) unless positive
         */
        public void setOldestTransactionMaxAge(Duration oldestTransactionMaxAge) {
            if (oldestTransactionMaxAge == null || oldestTransactionMaxAge.isNegative() || oldestTransactionMaxAge.isZero()) {
                throw new dev.sqlqueue.InvalidInputException("health.oldest-transaction-max-age",
                        "sqlqueue.health.oldest-transaction-max-age must be positive, was " + oldestTransactionMaxAge);
            }
            this.oldestTransactionMaxAge = oldestTransactionMaxAge;
        }

        /** @return a queue whose oldest ready message is older than this is reported stalled (health DOWN) ({@code sqlqueue.health.oldest-ready-max-age}) */
        public Duration getOldestReadyMaxAge() { return oldestReadyMaxAge; }
        /**
         * @param oldestReadyMaxAge a queue whose oldest ready message is older than this is reported stalled (health DOWN) ({@code sqlqueue.health.oldest-ready-max-age})
         * @throws dev.sqlqueue.InvalidInputException (rule {@code health.oldest-ready-max-age}) unless positive
         */
        public void setOldestReadyMaxAge(Duration oldestReadyMaxAge) {
            if (oldestReadyMaxAge == null || oldestReadyMaxAge.isNegative() || oldestReadyMaxAge.isZero()) {
                throw new dev.sqlqueue.InvalidInputException("health.oldest-ready-max-age",
                        "sqlqueue.health.oldest-ready-max-age must be positive, was " + oldestReadyMaxAge);
            }
            this.oldestReadyMaxAge = oldestReadyMaxAge;
        }
    }

    /** The "sqlqueue" actuator endpoint. */
    public static class Endpoint {
        /** Most dead letters the endpoint shows per queue (1..100000). */
        private int deadLetterLimit = 100;

        /** @return most dead letters the endpoint shows per queue (1..100000) ({@code sqlqueue.endpoint.dead-letter-limit}) */
        public int getDeadLetterLimit() { return deadLetterLimit; }
        /**
         * @param deadLetterLimit most dead letters the endpoint shows per queue (1..100000) ({@code sqlqueue.endpoint.dead-letter-limit})
         * @throws dev.sqlqueue.InvalidInputException (rule {@code endpoint.dead-letter-limit}) unless 1..100000
         */
        public void setDeadLetterLimit(int deadLetterLimit) {
            if (deadLetterLimit < 1 || deadLetterLimit > 100_000) {
                throw new dev.sqlqueue.InvalidInputException("endpoint.dead-letter-limit",
                        "sqlqueue.endpoint.dead-letter-limit must be 1..100000, was " + deadLetterLimit);
            }
            this.deadLetterLimit = deadLetterLimit;
        }
    }

    /** The web dashboard (with sqlqueue-dashboard on the class path, in a servlet web application). */
    public static class Dashboard {
        /** Whether to mount the dashboard; off unless enabled. */
        private boolean enabled = false;
        /** Where to mount it, for example /sqlqueue (the page is at /sqlqueue/). */
        private String path = "/sqlqueue";
        /** When set (16..200 characters: letters, digits and {@code - . _ ~}), every request must carry it: the application's own security applies either way. */
        private String token;
        /** Show no action (requeue, purge); the server refuses them. */
        private boolean readOnly = false;
        /** Show payload previews of dead letters. */
        private boolean payloadPreview = true;
        /** How often the page reloads its data (1 s..10 min). */
        private Duration refresh = Duration.ofSeconds(5);
        /** How often the chart sampler reads each queue (100 ms..10 min). */
        private Duration sampleInterval = Duration.ofSeconds(10);

        /** @return whether to mount the dashboard; off unless enabled ({@code sqlqueue.dashboard.enabled}) */
        public boolean isEnabled() { return enabled; }
        /** @param enabled whether to mount the dashboard; off unless enabled ({@code sqlqueue.dashboard.enabled}) */
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        /** @return where to mount it, for example /sqlqueue (the page is at /sqlqueue/) ({@code sqlqueue.dashboard.path}) */
        public String getPath() { return path; }
        /** @param path where to mount it, for example /sqlqueue (the page is at /sqlqueue/) ({@code sqlqueue.dashboard.path}) */
        public void setPath(String path) { this.path = path; }
        /** @return when set (16..200 characters: letters, digits and {@code - . _ ~}), every request must carry it: the application's own security applies either way ({@code sqlqueue.dashboard.token}) */
        public String getToken() { return token; }
        /** @param token when set (16..200 characters: letters, digits and {@code - . _ ~}), every request must carry it: the application's own security applies either way ({@code sqlqueue.dashboard.token}) */
        public void setToken(String token) { this.token = token; }
        /** @return show no action (requeue, purge); the server refuses them ({@code sqlqueue.dashboard.read-only}) */
        public boolean isReadOnly() { return readOnly; }
        /** @param readOnly show no action (requeue, purge); the server refuses them ({@code sqlqueue.dashboard.read-only}) */
        public void setReadOnly(boolean readOnly) { this.readOnly = readOnly; }
        /** @return show payload previews of dead letters ({@code sqlqueue.dashboard.payload-preview}) */
        public boolean isPayloadPreview() { return payloadPreview; }
        /** @param payloadPreview show payload previews of dead letters ({@code sqlqueue.dashboard.payload-preview}) */
        public void setPayloadPreview(boolean payloadPreview) { this.payloadPreview = payloadPreview; }
        /** @return how often the page reloads its data (1 s..10 min) ({@code sqlqueue.dashboard.refresh}) */
        public Duration getRefresh() { return refresh; }
        /** @param refresh how often the page reloads its data (1 s..10 min) ({@code sqlqueue.dashboard.refresh}) */
        public void setRefresh(Duration refresh) { this.refresh = refresh; }
        /** @return how often the chart sampler reads each queue (100 ms..10 min) ({@code sqlqueue.dashboard.sample-interval}) */
        public Duration getSampleInterval() { return sampleInterval; }
        /** @param sampleInterval how often the chart sampler reads each queue (100 ms..10 min) ({@code sqlqueue.dashboard.sample-interval}) */
        public void setSampleInterval(Duration sampleInterval) { this.sampleInterval = sampleInterval; }
    }

    /** @return whether to auto-configure sqlqueue at all ({@code sqlqueue.enabled}) */
    public boolean isEnabled() { return enabled; }
    /** @param enabled whether to auto-configure sqlqueue at all ({@code sqlqueue.enabled}) */
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    /** @return backend name (h2, postgresql, mariadb, sqlserver, sqlserver-broker, teradata); empty: chosen from the DataSource's JDBC URL ({@code sqlqueue.backend}) */
    public String getBackend() { return backend; }
    /** @param backend backend name (h2, postgresql, mariadb, sqlserver, sqlserver-broker, teradata); empty: chosen from the DataSource's JDBC URL ({@code sqlqueue.backend}) */
    public void setBackend(String backend) { this.backend = backend; }
    /** @return prefix of every table the backend creates: 1..24 characters of [a-z][a-z0-9_]* ({@code sqlqueue.table-prefix}) */
    public String getTablePrefix() { return tablePrefix; }
    /** @param tablePrefix prefix of every table the backend creates: 1..24 characters of [a-z][a-z0-9_]* ({@code sqlqueue.table-prefix}) */
    public void setTablePrefix(String tablePrefix) { this.tablePrefix = tablePrefix; }
    /** @return keep acked and dead-lettered messages in a history table instead of deleting them (as sqlqueue work does; the dashboard's charts read it) ({@code sqlqueue.history}) */
    public boolean isHistory() { return history; }
    /** @param history keep acked and dead-lettered messages in a history table instead of deleting them (as sqlqueue work does; the dashboard's charts read it) ({@code sqlqueue.history}) */
    public void setHistory(boolean history) { this.history = history; }
    /** @return create or upgrade the schema (Flyway, table prefix's own history table) at start ({@code sqlqueue.migrate}) */
    public boolean isMigrate() { return migrate; }
    /** @param migrate create or upgrade the schema (Flyway, table prefix's own history table) at start ({@code sqlqueue.migrate}) */
    public void setMigrate(boolean migrate) { this.migrate = migrate; }
    /** @return the longest pause between two polls of an idle consumer ({@code sqlqueue.idle-poll-max}) */
    public Duration getIdlePollMax() { return idlePollMax; }
    /** @param idlePollMax the longest pause between two polls of an idle consumer ({@code sqlqueue.idle-poll-max}) */
    public void setIdlePollMax(Duration idlePollMax) { this.idlePollMax = idlePollMax; }
    /** @return how long a deduplication key stays taken after its first enqueue (database clock), 1 ms..365 days ({@code sqlqueue.deduplication-window}) */
    public Duration getDeduplicationWindow() { return deduplicationWindow; }
    /** @param deduplicationWindow how long a deduplication key stays taken after its first enqueue (database clock), 1 ms..365 days ({@code sqlqueue.deduplication-window}) */
    public void setDeduplicationWindow(Duration deduplicationWindow) { this.deduplicationWindow = deduplicationWindow; }
    /** @return queues to create at start (idempotent); queues of handlers are created too ({@code sqlqueue.queues}) */
    public List<String> getQueues() { return queues; }
    /** @param queues queues to create at start (idempotent); queues of handlers are created too ({@code sqlqueue.queues}) */
    public void setQueues(List<String> queues) { this.queues = queues; }
    /** @return the defaults of every handler ({@code sqlqueue.worker.*}), never null; change its fields */
    public Worker getWorker() { return worker; }
    /** @return the settings of each queue's handlers by queue name ({@code sqlqueue.handlers.<queue>.*}); empty by default */
    public Map<String, Handler> getHandlers() { return handlers; }
    /** @param handlers the settings of each queue's handlers by queue name ({@code sqlqueue.handlers.<queue>.*}) */
    public void setHandlers(Map<String, Handler> handlers) { this.handlers = handlers; }
    /** @return the Micrometer settings ({@code sqlqueue.metrics.*}), never null */
    public Metrics getMetrics() { return metrics; }
    /** @return the health indicator settings ({@code sqlqueue.health.*}), never null */
    public Health getHealth() { return health; }
    /** @return the OpenTelemetry settings ({@code sqlqueue.tracing.*}), never null */
    public Tracing getTracing() { return tracing; }
    /** @return the actuator endpoint settings ({@code sqlqueue.endpoint.*}), never null */
    public Endpoint getEndpoint() { return endpoint; }
    /** @return the dashboard settings ({@code sqlqueue.dashboard.*}), never null */
    public Dashboard getDashboard() { return dashboard; }
}
