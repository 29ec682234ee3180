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

        public Duration getTransactionWarnAge() { return transactionWarnAge; }
        public void setTransactionWarnAge(Duration transactionWarnAge) { this.transactionWarnAge = transactionWarnAge; }

        /** The delay before a failed message is delivered again. */
        private final Backoff backoff = new Backoff();

        public Backoff getBackoff() { return backoff; }
        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public int getThreads() { return threads; }
        public void setThreads(int threads) { this.threads = threads; }
        public int getBatchSize() { return batchSize; }
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        public Duration getLease() { return lease; }
        public void setLease(Duration lease) { this.lease = lease; }
        public Duration getPollWait() { return pollWait; }
        public void setPollWait(Duration pollWait) { this.pollWait = pollWait; }
        public int getMaxAttempts() { return maxAttempts; }
        public void setMaxAttempts(int maxAttempts) { this.maxAttempts = maxAttempts; }
        public Duration getShutdownGrace() { return shutdownGrace; }
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

        public Duration getInitial() { return initial; }
        public void setInitial(Duration initial) { this.initial = initial; }
        public double getMultiplier() { return multiplier; }
        public void setMultiplier(double multiplier) { this.multiplier = multiplier; }
        public Duration getMax() { return max; }
        public void setMax(Duration max) { this.max = max; }
        public double getJitter() { return jitter; }
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

        public Integer getThreads() { return threads; }
        public void setThreads(Integer threads) { this.threads = threads; }
        public Integer getBatchSize() { return batchSize; }
        public void setBatchSize(Integer batchSize) { this.batchSize = batchSize; }
        public Duration getLease() { return lease; }
        public void setLease(Duration lease) { this.lease = lease; }
        public Integer getMaxAttempts() { return maxAttempts; }
        public void setMaxAttempts(Integer maxAttempts) { this.maxAttempts = maxAttempts; }
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

        public Duration getInitial() { return initial; }
        public void setInitial(Duration initial) { this.initial = initial; }
        public Double getMultiplier() { return multiplier; }
        public void setMultiplier(Double multiplier) { this.multiplier = multiplier; }
        public Duration getMax() { return max; }
        public void setMax(Duration max) { this.max = max; }
        public Double getJitter() { return jitter; }
        public void setJitter(Double jitter) { this.jitter = jitter; }
    }

    /** Micrometer meters (when sqlqueue-micrometer and a MeterRegistry are present). */
    public static class Metrics {
        /** Whether to meter the queue. */
        private boolean enabled = true;
        /** Pause between two samples of stats() behind the queue gauges (10 ms..1 h). */
        private Duration statsInterval = Duration.ofSeconds(15);

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public Duration getStatsInterval() { return statsInterval; }
        public void setStatsInterval(Duration statsInterval) { this.statsInterval = statsInterval; }
    }

    /** OpenTelemetry tracing (when sqlqueue-opentelemetry and an OpenTelemetry bean are present). */
    public static class Tracing {
        /** Whether enqueues carry the traceparent header and handlers run in spans continuing it. */
        private boolean enabled = true;

        public boolean isEnabled() { return enabled; }
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

        public Duration getOldestTransactionMaxAge() { return oldestTransactionMaxAge; }
        /** @throws dev.sqlqueue.InvalidInputException (rule {@code health.oldest-transaction-max-age}) unless positive */
        public void setOldestTransactionMaxAge(Duration oldestTransactionMaxAge) {
            if (oldestTransactionMaxAge == null || oldestTransactionMaxAge.isNegative() || oldestTransactionMaxAge.isZero()) {
                throw new dev.sqlqueue.InvalidInputException("health.oldest-transaction-max-age",
                        "sqlqueue.health.oldest-transaction-max-age must be positive, was " + oldestTransactionMaxAge);
            }
            this.oldestTransactionMaxAge = oldestTransactionMaxAge;
        }

        public Duration getOldestReadyMaxAge() { return oldestReadyMaxAge; }
        /** @throws dev.sqlqueue.InvalidInputException (rule {@code health.oldest-ready-max-age}) unless positive */
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

        public int getDeadLetterLimit() { return deadLetterLimit; }
        /** @throws dev.sqlqueue.InvalidInputException (rule {@code endpoint.dead-letter-limit}) unless 1..100000 */
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

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public String getPath() { return path; }
        public void setPath(String path) { this.path = path; }
        public String getToken() { return token; }
        public void setToken(String token) { this.token = token; }
        public boolean isReadOnly() { return readOnly; }
        public void setReadOnly(boolean readOnly) { this.readOnly = readOnly; }
        public boolean isPayloadPreview() { return payloadPreview; }
        public void setPayloadPreview(boolean payloadPreview) { this.payloadPreview = payloadPreview; }
        public Duration getRefresh() { return refresh; }
        public void setRefresh(Duration refresh) { this.refresh = refresh; }
        public Duration getSampleInterval() { return sampleInterval; }
        public void setSampleInterval(Duration sampleInterval) { this.sampleInterval = sampleInterval; }
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public String getBackend() { return backend; }
    public void setBackend(String backend) { this.backend = backend; }
    public String getTablePrefix() { return tablePrefix; }
    public void setTablePrefix(String tablePrefix) { this.tablePrefix = tablePrefix; }
    public boolean isHistory() { return history; }
    public void setHistory(boolean history) { this.history = history; }
    public boolean isMigrate() { return migrate; }
    public void setMigrate(boolean migrate) { this.migrate = migrate; }
    public Duration getIdlePollMax() { return idlePollMax; }
    public void setIdlePollMax(Duration idlePollMax) { this.idlePollMax = idlePollMax; }
    public Duration getDeduplicationWindow() { return deduplicationWindow; }
    public void setDeduplicationWindow(Duration deduplicationWindow) { this.deduplicationWindow = deduplicationWindow; }
    public List<String> getQueues() { return queues; }
    public void setQueues(List<String> queues) { this.queues = queues; }
    public Worker getWorker() { return worker; }
    public Map<String, Handler> getHandlers() { return handlers; }
    public void setHandlers(Map<String, Handler> handlers) { this.handlers = handlers; }
    public Metrics getMetrics() { return metrics; }
    public Health getHealth() { return health; }
    public Tracing getTracing() { return tracing; }
    public Endpoint getEndpoint() { return endpoint; }
    public Dashboard getDashboard() { return dashboard; }
}
