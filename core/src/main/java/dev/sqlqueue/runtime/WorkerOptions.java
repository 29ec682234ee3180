package dev.sqlqueue.runtime;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.InvalidInputException;
import java.time.Duration;

/**
 * Settings of a {@link WorkerPool}. Immutable.
 *
 * @param threads consumer threads, 1..1024 (seed 002's MAX_QUEUE_READERS)
 * @param batchSize the most messages one claim takes, 1..1000; a {@link WorkerPool} sizes each claim
 *     between 1 and this by the backlog and the handlers' time (see {@link WorkerPool} "Claims and acks")
 * @param lease lease per claim (lease mode); renewed every third of it while handlers run
 * @param mode claim mode
 * @param pollWait how long one consume waits for a message (long poll) before the thread checks for
 *     shutdown; 1 ms..1 min
 * @param retry retry policy for failed handlers
 * @param shutdownGrace how long {@link WorkerPool#close()} lets running handlers finish before it
 *     interrupts them
 * @param stopWhenEmpty stop by itself once the queue has nothing ready, delayed or in flight
 * @param handlerConnections connections of the same pool each handler holds at once while it runs,
 *     0..16 (default 0): calls the handler makes on the same {@code SqlQueue} outside the delivery's
 *     transaction (an enqueue of a follow-up message, a stats call), or connections it borrows from the
 *     {@code DataSource} the queue was opened with. {@link WorkerPool#start} refuses a pool too small for
 *     them; see {@link WorkerPool} "Connections"
 * @param transactionWarnAge a transaction open elsewhere on the database for this long or longer is logged at WARN,
 *     naming its session (see {@link WorkerPool} "Transactions held open elsewhere"); {@link Duration#ZERO} turns the
 *     check off; else 1 ms..24 h; default {@link #DEFAULT_TRANSACTION_WARN_AGE} (60 s). Only on backends with
 *     {@link dev.sqlqueue.Capability#OLDEST_TRANSACTIONS}
 */
public record WorkerOptions(int threads, int batchSize, Duration lease, ClaimMode mode, Duration pollWait,
                            RetryPolicy retry, Duration shutdownGrace, boolean stopWhenEmpty, int handlerConnections,
                            Duration transactionWarnAge) {
    /** The default {@link #transactionWarnAge()}: 60 s. */
    public static final Duration DEFAULT_TRANSACTION_WARN_AGE = Duration.ofSeconds(60);

    /**
     * Checks every component.
     *
     * @param threads consumer threads, 1..1024 (seed 002's MAX_QUEUE_READERS)
     * @param batchSize the most messages one claim takes, 1..1000; a {@link WorkerPool} sizes each claim
     *     between 1 and this by the backlog and the handlers' time (see {@link WorkerPool} "Claims and acks")
     * @param lease lease per claim (lease mode); renewed every third of it while handlers run
     * @param mode claim mode
     * @param pollWait how long one consume waits for a message (long poll) before the thread checks for
     *     shutdown; 1 ms..1 min
     * @param retry retry policy for failed handlers
     * @param shutdownGrace how long {@link WorkerPool#close()} lets running handlers finish before it
     *     interrupts them
     * @param stopWhenEmpty stop by itself once the queue has nothing ready, delayed or in flight
     * @param handlerConnections connections of the same pool each handler holds at once while it runs,
     *     0..16 (default 0): calls the handler makes on the same {@code SqlQueue} outside the delivery's
     *     transaction (an enqueue of a follow-up message, a stats call), or connections it borrows from the
     *     {@code DataSource} the queue was opened with. {@link WorkerPool#start} refuses a pool too small for
     *     them; see {@link WorkerPool} "Connections"
     * @param transactionWarnAge a transaction open elsewhere on the database for this long or longer is logged at WARN,
     *     naming its session (see {@link WorkerPool} "Transactions held open elsewhere"); {@link Duration#ZERO} turns the
     *     check off; else 1 ms..24 h; default {@link #DEFAULT_TRANSACTION_WARN_AGE} (60 s). Only on backends with
     *     {@link dev.sqlqueue.Capability#OLDEST_TRANSACTIONS}
     * @throws InvalidInputException naming the rule broken: {@code workers.range}, {@code batch.range},
     *     {@code consume.lease} (100 ms..24 h), {@code consume.mode}, {@code poll-wait.range}, {@code retry.null},
     *     {@code shutdown-grace}, {@code handler-connections.range} or {@code transaction-warn-age.range}
     */
    public WorkerOptions {
        if (threads < 1 || threads > 1024) {
            throw new InvalidInputException("workers.range", "workers must be 1..1024, was " + threads);
        }
        if (batchSize < 1 || batchSize > 1000) {
            throw new InvalidInputException("batch.range", "batch size must be 1..1000, was " + batchSize);
        }
        if (lease == null || lease.toMillis() < 100 || lease.compareTo(Duration.ofHours(24)) > 0) {
            throw new InvalidInputException("consume.lease", "lease must be 100 ms..24 h, was " + lease);
        }
        if (mode == null) {
            throw new InvalidInputException("consume.mode", "claim mode must be given");
        }
        if (pollWait == null || pollWait.toMillis() < 1 || pollWait.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new InvalidInputException("poll-wait.range", "poll wait must be 1 ms..1 min, was " + pollWait);
        }
        if (retry == null) {
            throw new InvalidInputException("retry.null", "retry policy must be given");
        }
        if (shutdownGrace == null || shutdownGrace.isNegative()) {
            throw new InvalidInputException("shutdown-grace", "shutdown grace must be zero or positive");
        }
        if (handlerConnections < 0 || handlerConnections > 16) {
            throw new InvalidInputException("handler-connections.range", "handler connections must be 0..16, was " + handlerConnections);
        }
        if (transactionWarnAge == null || transactionWarnAge.isNegative()
                || transactionWarnAge.compareTo(Duration.ofHours(24)) > 0
                || (!transactionWarnAge.isZero() && transactionWarnAge.toMillis() < 1)) {
            throw new InvalidInputException("transaction-warn-age.range",
                    "transaction warn age must be 0 (off) or 1 ms..24 h, was " + transactionWarnAge);
        }
    }

    /**
     * The same settings with {@link #DEFAULT_TRANSACTION_WARN_AGE} (the form before {@code transactionWarnAge} existed).
     *
     * @param threads consumer threads, 1..1024
     * @param batchSize the most messages one claim takes, 1..1000
     * @param lease lease per claim, 100 ms..24 h
     * @param mode claim mode
     * @param pollWait how long one consume waits for a message, 1 ms..1 min
     * @param retry retry policy for failed handlers
     * @param shutdownGrace how long {@link WorkerPool#close()} lets running handlers finish, zero or more
     * @param stopWhenEmpty stop by itself once the queue has nothing ready, delayed or in flight
     * @param handlerConnections connections each handler holds at once while it runs, 0..16
     * @throws InvalidInputException as the canonical constructor
     */
    public WorkerOptions(int threads, int batchSize, Duration lease, ClaimMode mode, Duration pollWait,
                         RetryPolicy retry, Duration shutdownGrace, boolean stopWhenEmpty, int handlerConnections) {
        this(threads, batchSize, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections,
                DEFAULT_TRANSACTION_WARN_AGE);
    }

    /**
     * The same settings with no handler connections (the form before {@code handlerConnections} existed).
     *
     * @param threads consumer threads, 1..1024
     * @param batchSize the most messages one claim takes, 1..1000
     * @param lease lease per claim, 100 ms..24 h
     * @param mode claim mode
     * @param pollWait how long one consume waits for a message, 1 ms..1 min
     * @param retry retry policy for failed handlers
     * @param shutdownGrace how long {@link WorkerPool#close()} lets running handlers finish, zero or more
     * @param stopWhenEmpty stop by itself once the queue has nothing ready, delayed or in flight
     * @throws InvalidInputException as the canonical constructor
     */
    public WorkerOptions(int threads, int batchSize, Duration lease, ClaimMode mode, Duration pollWait,
                         RetryPolicy retry, Duration shutdownGrace, boolean stopWhenEmpty) {
        this(threads, batchSize, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, 0, DEFAULT_TRANSACTION_WARN_AGE);
    }

    /**
     * 4 threads, claims of up to 100 (adaptive, see {@link WorkerPool}), 30 s lease, lease mode, 1 s poll
     * wait, default retry, 30 s grace, a WARN for transactions open elsewhere for 60 s.
     *
     * @return the default options
     */
    public static WorkerOptions defaults() {
        return new WorkerOptions(4, 100, Duration.ofSeconds(30), ClaimMode.LEASE, Duration.ofSeconds(1),
                RetryPolicy.defaults(), Duration.ofSeconds(30), false, 0, DEFAULT_TRANSACTION_WARN_AGE);
    }

    /**
     * With this many consumer threads.
     *
     * @param n consumer threads, 1..1024
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code workers.range}) outside 1..1024
     */
    public WorkerOptions withThreads(int n) {
        return new WorkerOptions(n, batchSize, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this largest claim.
     *
     * @param n the most messages one claim takes, 1..1000
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code batch.range}) outside 1..1000
     */
    public WorkerOptions withBatchSize(int n) {
        return new WorkerOptions(threads, n, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this lease per claim (lease mode).
     *
     * @param d the lease, 100 ms..24 h
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.lease}) for null or outside 100 ms..24 h
     */
    public WorkerOptions withLease(Duration d) {
        return new WorkerOptions(threads, batchSize, d, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this claim mode.
     *
     * @param m lease or transactional
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.mode}) for null
     */
    public WorkerOptions withMode(ClaimMode m) {
        return new WorkerOptions(threads, batchSize, lease, m, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this long-poll wait.
     *
     * @param d how long one consume waits for a message, 1 ms..1 min
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code poll-wait.range}) for null or outside 1 ms..1 min
     */
    public WorkerOptions withPollWait(Duration d) {
        return new WorkerOptions(threads, batchSize, lease, mode, d, retry, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this retry policy.
     *
     * @param r the policy for failed handlers
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code retry.null}) for null
     */
    public WorkerOptions withRetry(RetryPolicy r) {
        return new WorkerOptions(threads, batchSize, lease, mode, pollWait, r, shutdownGrace, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With this shutdown grace.
     *
     * @param d how long {@link WorkerPool#close()} lets running handlers finish before interrupting them, zero or more
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code shutdown-grace}) for null or a negative duration
     */
    public WorkerOptions withShutdownGrace(Duration d) {
        return new WorkerOptions(threads, batchSize, lease, mode, pollWait, retry, d, stopWhenEmpty, handlerConnections, transactionWarnAge);
    }

    /**
     * With or without stopping once the queue is empty.
     *
     * @param b true to stop by itself once the queue has nothing ready, delayed or in flight
     * @return a copy with this setting
     */
    public WorkerOptions withStopWhenEmpty(boolean b) {
        return new WorkerOptions(threads, batchSize, lease, mode, pollWait, retry, shutdownGrace, b, handlerConnections, transactionWarnAge);
    }

    /**
     * With this many connections held by each running handler.
     *
     * @param n connections each handler holds at once while it runs, 0..16
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code handler-connections.range}) outside 0..16
     * @see #handlerConnections()
     */
    public WorkerOptions withHandlerConnections(int n) {
        return new WorkerOptions(threads, batchSize, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, n, transactionWarnAge);
    }

    /**
     * With this age at which a transaction open elsewhere on the database is logged at WARN.
     *
     * @param d the age at which a transaction open elsewhere is logged; zero turns the check off, else 1 ms..24 h
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code transaction-warn-age.range}) for null or another duration
     * @see #transactionWarnAge()
     */
    public WorkerOptions withTransactionWarnAge(Duration d) {
        return new WorkerOptions(threads, batchSize, lease, mode, pollWait, retry, shutdownGrace, stopWhenEmpty, handlerConnections, d);
    }
}
