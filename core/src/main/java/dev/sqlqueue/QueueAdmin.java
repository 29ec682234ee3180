package dev.sqlqueue;

import java.util.List;

/**
 * Driving port: administration. Thread-safe.
 */
public interface QueueAdmin {
    /** Create the backend's schema objects if missing (idempotent; Flyway where supported). */
    void migrate();

    /**
     * Create the queue if missing (idempotent).
     *
     * @param queue the queue to create; nothing happens when it exists
     */
    void createQueue(QueueName queue);

    /**
     * Remove the queue, its messages, dead letters and history; other queues are untouched.
     *
     * @param queue the queue to remove
     */
    void dropQueue(QueueName queue);

    /**
     * Delete every message of the queue (not its dead letters); returns how many.
     *
     * @param queue the queue to empty
     * @return how many messages were deleted, 0 or more
     */
    long purge(QueueName queue);

    /**
     * The queues that exist, sorted by name.
     *
     * @return the queues, sorted by name; empty when there is none
     */
    List<QueueName> queues();

    /**
     * The queue's counts (depth, in flight, delayed, dead) and the age of its oldest ready message, read now on the
     * database clock. Thread-safe.
     *
     * @param queue the queue to count
     * @return the statistics of this moment
     * @throws InvalidInputException (rule {@code queue.exists}) for a queue that does not exist (through {@link SqlQueue})
     */
    QueueStats stats(QueueName queue);

    /**
     * Up to {@code limit} dead letters of the queue, oldest first, payloads whole: memory grows with the payloads'
     * sizes. To list them, {@link #deadLetterSummaries(QueueName, int)}.
     *
     * @param queue the queue whose dead letters to read
     * @param limit the most dead letters returned
     * @return up to {@code limit} dead letters, oldest first; empty when there are none
     */
    List<DeadLetter> deadLetters(QueueName queue, int limit);

    /**
     * Up to {@code limit} (1..100,000) dead letters of the queue, oldest first, each with at most
     * {@link DeadLetterSummary#PREVIEW_BYTES} of its payload and the payload's length: what a listing needs, read in
     * time and memory that do not depend on the payloads' sizes. The H2, PostgreSQL, MariaDB and SQL Server backends
     * (queue tables and Service Broker) read the previews in SQL; this default reads whole payloads and cuts them.
     *
     * @param queue the queue whose dead letters to read
     * @param limit the most dead letters returned, 1..100,000
     * @return up to {@code limit} summaries, oldest first
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..100,000
     */
    default List<DeadLetterSummary> deadLetterSummaries(QueueName queue, int limit) {
        return deadLetters(queue, limit).stream().map(DeadLetterSummary::of).toList();
    }

    /**
     * The dead letters of the queue among {@code messageIds} (at most 10,000 ids), as summaries (see
     * {@link #deadLetterSummaries(QueueName, int)}), oldest first; ids that are no dead letters of the queue are left
     * out. This default lists the whole queue ({@link #deadLetters}, at most 100,000) and filters.
     *
     * @param queue the queue whose dead letters to read
     * @param messageIds the message ids to look for, at most 10,000; ids that are no dead letter of the queue are skipped
     * @return the summaries of those that are dead letters of the queue, oldest first
     * @throws InvalidInputException (rule {@code dlq.ids}) for null, a null id or more than 10,000 ids
     */
    default List<DeadLetterSummary> deadLetterSummaries(QueueName queue, List<Long> messageIds) {
        java.util.Set<Long> wanted = java.util.Set.copyOf(messageIds);
        return deadLetters(queue, 100_000).stream().filter(d -> wanted.contains(d.messageId())).map(DeadLetterSummary::of)
                .toList();
    }

    /**
     * Put dead letters back on their queue with the attempt count reset; {@code messageIds} empty
     * means all of the queue's dead letters. Returns how many were requeued.
     *
     * @param queue the queue whose dead letters to requeue
     * @param messageIds the dead letters' message ids; empty for all of the queue's dead letters
     * @return how many were requeued (ids that are no dead letter of the queue are skipped)
     * @throws InvalidInputException (rule {@code dlq.ids}) if {@code messageIds} is null or holds null
     */
    long requeueDeadLetters(QueueName queue, List<Long> messageIds);

    /**
     * Delete the queue's dead letters among {@code messageIds} (1..10,000 ids) for good; ids that are no dead letter of
     * the queue are skipped. One transaction. To delete them all, {@link #purgeDeadLetters}. Thread-safe.
     *
     * @param queue the queue whose dead letters to delete
     * @param messageIds the dead letters' message ids, 1..10,000 of them
     * @return how many were deleted
     * @throws InvalidInputException (rule {@code dlq.ids}) for null, an empty list, a null id or more than 10,000 ids
     * @throws SqlQueueException when the backend cannot delete single dead letters (this default; the H2, PostgreSQL,
     *     MariaDB and SQL Server queue-table backends can)
     */
    default long deleteDeadLetters(QueueName queue, List<Long> messageIds) {
        throw new SqlQueueException("backend " + getClass().getSimpleName() + " cannot delete single dead letters;"
                + " purgeDeadLetters deletes all of a queue's");
    }

    /**
     * Delete the queue's dead letters; returns how many.
     *
     * @param queue the queue whose dead letters to delete
     * @return how many dead letters were deleted, 0 or more
     */
    long purgeDeadLetters(QueueName queue);

    /**
     * The newest {@code limit} history rows of the queue, newest first (empty when history is off).
     *
     * @param queue the queue whose history to read
     * @param limit the most rows returned
     * @return up to {@code limit} rows, newest first
     */
    List<HistoryEntry> history(QueueName queue, int limit);

    /**
     * Delete the queue's history rows that {@code retention} does not keep: rows that finished
     * {@link HistoryRetention#maxAge()} or longer ago (database clock), and rows beyond the newest
     * {@link HistoryRetention#maxRows()} (by insertion order). Messages, dead letters and other queues are
     * untouched. Safe to call from several processes at once (each deletes what is still there).
     *
     * @param queue the queue whose history to prune
     * @param retention what to keep: by age, by count, or both
     * @return the number of rows deleted (0 when history is off or nothing is old enough)
     * @throws UnsupportedCapabilityException if the backend keeps no history
     *     ({@link Capability#HISTORY}) or cannot prune it yet
     */
    default long pruneHistory(QueueName queue, HistoryRetention retention) {
        throw new UnsupportedCapabilityException(Capability.HISTORY, getClass().getSimpleName(), "history pruning");
    }

    /** The most sessions {@link #oldestTransactions(int)} returns: 100. */
    int MAX_OPEN_TRANSACTIONS = 100;

    /**
     * The sessions of other connections that have a transaction open and so hold back the server's clean-up of the
     * queue's tables, oldest first, at most {@code limit} (1..{@value #MAX_OPEN_TRANSACTIONS}); empty when there is
     * none. A long one is the classic reason a database queue slows down: every claim reads past the row versions
     * that clean-up may not remove yet (docs/backends/postgresql.md, mariadb.md, "A transaction held open
     * elsewhere"). Ages come from the database clock. One query on the server's activity views; meant for a check
     * every few seconds or minutes, not for every claim. Thread-safe.
     *
     * <p>What each backend reports: PostgreSQL, the sessions of this database in {@code pg_stat_activity} with a
     * snapshot ({@code backend_xmin}) or a transaction id ({@code backend_xid}), other than the calling one; the
     * sessions of other users show only to a superuser or a member of {@code pg_read_all_stats} (or
     * {@code pg_monitor}): without it they are missing here. MariaDB, every InnoDB transaction of the server
     * ({@code information_schema.INNODB_TRX} with {@code PROCESSLIST}), since InnoDB's purge is server-wide; it
     * needs the {@code PROCESS} privilege. Backends that cannot tell (H2, SQL Server, Teradata) do not declare
     * {@link Capability#OLDEST_TRANSACTIONS} and throw.
     *
     * @param limit the most sessions returned, 1..{@value #MAX_OPEN_TRANSACTIONS}
     * @return up to {@code limit} sessions, the oldest transaction first; empty when none is open
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..{@value #MAX_OPEN_TRANSACTIONS}
     * @throws UnsupportedCapabilityException when the backend does not report open transactions
     */
    default java.util.List<OpenTransaction> oldestTransactions(int limit) {
        throw new UnsupportedCapabilityException(Capability.OLDEST_TRANSACTIONS, getClass().getSimpleName());
    }

    /**
     * Pause the queue: from the moment this returns, no claim of any client of the database (any process) receives a
     * message of it, in either claim mode, until {@link #resume}. Enqueues, acks, nacks, lease extensions, dead-letter
     * requeues and statistics go on as before; messages already claimed stay with their holders. Idempotent (pausing a
     * paused queue changes nothing). Stored in the database (a row or a flag the claim statement checks), so it
     * survives restarts. Thread-safe.
     *
     * @param queue the queue to pause
     * @return true if the queue was running and is now paused, false if it was already paused
     * @throws InvalidInputException (rule {@code queue.exists}) for a queue that does not exist (through {@link SqlQueue})
     * @throws UnsupportedCapabilityException when the backend does not declare {@link Capability#PAUSE}
     */
    default boolean pause(QueueName queue) {
        throw new UnsupportedCapabilityException(Capability.PAUSE, getClass().getSimpleName());
    }

    /**
     * Resume a paused queue: the next claims receive its messages again. Idempotent. Thread-safe.
     *
     * @param queue the queue to resume
     * @return true if the queue was paused and now runs, false if it was not paused
     * @throws InvalidInputException (rule {@code queue.exists}) for a queue that does not exist (through {@link SqlQueue})
     * @throws UnsupportedCapabilityException when the backend does not declare {@link Capability#PAUSE}
     */
    default boolean resume(QueueName queue) {
        throw new UnsupportedCapabilityException(Capability.PAUSE, getClass().getSimpleName());
    }

    /**
     * Whether the queue is paused ({@link #pause}), as committed in the database now; false for a queue that does not
     * exist. One query. Thread-safe.
     *
     * @param queue the queue to look at
     * @return true when the queue is paused
     * @throws UnsupportedCapabilityException when the backend does not declare {@link Capability#PAUSE}
     */
    default boolean isPaused(QueueName queue) {
        throw new UnsupportedCapabilityException(Capability.PAUSE, getClass().getSimpleName());
    }

    /** The most messages {@link #messages} returns at once: 1,000. */
    int MAX_MESSAGE_PAGE = 1_000;

    /**
     * A page of the queue's messages in {@code state}, by ascending id: those with an id above {@code afterId} (0 for the
     * first page; the last id of a page for the next), at most {@code limit} (1..{@value #MAX_MESSAGE_PAGE}). Each carries
     * a payload preview only ({@link MessageSummary}). A read at READ COMMITTED that takes no lock: claims and acks go on
     * meanwhile, so a page is a snapshot of one moment. Thread-safe.
     *
     * @param queue the queue to browse
     * @param state which messages: ready, delayed or in flight
     * @param afterId return only ids above this; 0 for the first page
     * @param limit the most messages returned, 1..{@value #MAX_MESSAGE_PAGE}
     * @return up to {@code limit} messages by ascending id; fewer (or none) on the last page
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..{@value #MAX_MESSAGE_PAGE}, rule
     *     {@code messages.after} for a negative {@code afterId}, rule {@code messages.state} for a null state
     * @throws UnsupportedCapabilityException when the backend does not declare {@link Capability#BROWSE}
     */
    default List<MessageSummary> messages(QueueName queue, MessageState state, long afterId, int limit) {
        throw new UnsupportedCapabilityException(Capability.BROWSE, getClass().getSimpleName());
    }

    /**
     * The queue's message of this id as {@link #messages} shows it, or empty when it is not on the queue (acked,
     * dead-lettered or never there). Thread-safe.
     *
     * @param queue the queue to look in
     * @param messageId the message's id
     * @return the message, or empty
     * @throws UnsupportedCapabilityException when the backend does not declare {@link Capability#BROWSE}
     */
    default java.util.Optional<MessageSummary> message(QueueName queue, long messageId) {
        throw new UnsupportedCapabilityException(Capability.BROWSE, getClass().getSimpleName());
    }

    /**
     * The queue's history rows that finished at {@code from} or later, counted per bucket of {@code bucket} width
     * (buckets start at multiples of the width since the epoch), oldest first; buckets without rows are left out. One
     * aggregate query on the history table, through its (queue, finished_at) index; meant for charts over hours or days.
     * Thread-safe.
     *
     * @param queue the queue whose history to count
     * @param from the earliest finish time counted, within the last 400 days
     * @param bucket the width of a bucket, 1 s..1 day
     * @return one bucket per width that holds rows, oldest first
     * @throws InvalidInputException (rule {@code history-buckets.range}) unless the width is 1 s..1 day and
     *     {@code from} lies within 400 days before now (JVM clock) and is not null
     * @throws UnsupportedCapabilityException where the backend keeps no history ({@link Capability#HISTORY}) or cannot
     *     count it in buckets (this default)
     */
    default List<HistoryBucket> historyBuckets(QueueName queue, java.time.Instant from, java.time.Duration bucket) {
        throw new UnsupportedCapabilityException(Capability.HISTORY, getClass().getSimpleName(), "history buckets");
    }

    /** The most messages one {@link #claimForMove} takes: 1,000. */
    int MAX_MOVE_CLAIM = 1000;

    /**
     * Hold up to {@code maxMessages} (1..{@value #MAX_MOVE_CLAIM}) messages of the queue to move them to another
     * database ({@link QueueMover}): ready ones, delayed ones, and ones an earlier move claim held (a mover that
     * died), never ones under a consumer's lease; in id order; a message of a {@linkplain Message#group() group}
     * only while no older message of its group is in the queue. The claim commits before this returns: each
     * message stays hidden from consumers for {@code lease} (1 ms..24 h, database clock) or until its delay ends,
     * whichever is later; the attempt is not counted. Settle each with {@link Acknowledger#ackAll} (moved) or
     * {@link Acknowledger#deadLetter} (refused by the target); a message left unsettled is visible again when its
     * lease ends (its remaining delay, if any, is then lost: it becomes visible at the lease's end) and is taken
     * again at once by the next move claim. Rows whose headers cannot be decoded are dead-lettered, as a claim does.
     * Thread-safe; several move claims at once take distinct messages, but a move claim takes over the messages of
     * another move claim, so run one mover per queue.
     *
     * @param queue the queue to take messages from
     * @param maxMessages the most messages held, 1..{@value #MAX_MOVE_CLAIM}
     * @param lease how long each stays hidden from consumers, 1 ms..24 h (database clock)
     * @return 0..maxMessages messages, oldest id first
     * @throws InvalidInputException (rule {@code move.max-messages}) for a count outside 1..{@value #MAX_MOVE_CLAIM};
     *     (rule {@code consume.lease}) for a lease outside 1 ms..24 h
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_CLAIM}
     */
    default List<HeldForMove> claimForMove(QueueName queue, int maxMessages, java.time.Duration lease) {
        throw new UnsupportedCapabilityException(Capability.MOVE_CLAIM, getClass().getSimpleName());
    }

    /**
     * Write messages moved from another database ({@link QueueMover}, the target side), in one transaction, in order:
     * each takes its {@link Message#deduplicationKey()} first as {@link Producer#enqueueAllDeduplicated} does (a key
     * still in the queue's window makes it a duplicate: nothing is written for it), then is enqueued with its
     * attempts already counted, or, with a {@link MovedMessage#deadLetterReason()}, written straight to the queue's
     * dead letters with that reason and its attempts (a consumer never sees it). Enqueue and dead-letter times are
     * this transaction's (database clock). The queue is created if missing. Thread-safe.
     *
     * @param queue the queue
     * @param messages 1..{@value #MAX_MOVE_CLAIM} messages, each with a deduplication key
     * @return one result per message, in order: the new message's id (a dead letter's id among the queue's dead
     *     letters), or, for a duplicate, the id its key stands for and {@code duplicate()} true
     * @throws InvalidInputException (rule {@code move.max-messages}) for null, empty or more than
     *     {@value #MAX_MOVE_CLAIM} messages, (rule {@code move.message}) for a null one; as
     *     {@link Producer#enqueueAll} for a message the backend refuses; nothing is written
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_ENQUEUE}
     */
    default List<EnqueueResult> enqueueMoved(QueueName queue, List<MovedMessage> messages) {
        throw new UnsupportedCapabilityException(Capability.MOVE_ENQUEUE, getClass().getSimpleName());
    }

    /**
     * A page of the queue's deduplication keys that are still in their window (database clock) and stand for a
     * committed message, by ascending key (the database's order of the key column): those after {@code afterKey}
     * (null for the first page; the last key of a page for the next), at most {@code limit}
     * (1..{@value #MAX_MOVE_CLAIM}). A read without locks. Thread-safe.
     *
     * @param queue the queue
     * @param afterKey the last key of the page before, or null
     * @param limit the most keys, 1..{@value #MAX_MOVE_CLAIM}
     * @return the keys with the message each stands for and the rest of its window
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..{@value #MAX_MOVE_CLAIM}
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_KEYS}
     */
    default List<DeduplicationKey> deduplicationKeys(QueueName queue, String afterKey, int limit) {
        throw new UnsupportedCapabilityException(Capability.MOVE_KEYS, getClass().getSimpleName());
    }

    /**
     * Write producers' deduplication keys moved from another database ({@link QueueMover}), in one transaction, so
     * that an enqueue of one of them here is deduplicated for the rest of its window: each key is bound to the message
     * that the key {@code messageKeyPrefix + messageId} stands for on this database (the message, moved under that
     * key), else, when there is none (the message was processed on the other database), to {@code messageId}. A key
     * this database holds already (in its window) is left as it is. The queue is created if missing. Thread-safe.
     *
     * @param queue the queue
     * @param keys 1..{@value #MAX_MOVE_CLAIM} keys
     * @param messageKeyPrefix the key prefix the messages were moved under, or null to bind every key to its
     *     {@code messageId}
     * @return how many keys were written (the others were held here already)
     * @throws InvalidInputException (rule {@code move.max-messages}) for null, empty or more than
     *     {@value #MAX_MOVE_CLAIM} keys or a null one; nothing is written
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_KEYS}
     */
    default int enqueueMovedKeys(QueueName queue, List<DeduplicationKey> keys, String messageKeyPrefix) {
        throw new UnsupportedCapabilityException(Capability.MOVE_KEYS, getClass().getSimpleName());
    }

    /**
     * The oldest {@code limit} history rows of the queue, oldest first (by history id), with their history ids: the
     * source side of a history move ({@link QueueMover}). A read without locks. Thread-safe.
     *
     * @param queue the queue whose history to read
     * @param limit the most rows, 1..{@value #MAX_MOVE_CLAIM}
     * @return the rows, oldest first; empty when the queue has none
     * @throws InvalidInputException (rule {@code limit.range}) for a limit outside 1..{@value #MAX_MOVE_CLAIM}
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_HISTORY}
     */
    default List<HistoryRow> historyForMove(QueueName queue, int limit) {
        throw new UnsupportedCapabilityException(Capability.MOVE_HISTORY, getClass().getSimpleName());
    }

    /**
     * Write history rows moved from another database ({@link QueueMover}, the target side) under {@code queue}, in one
     * transaction, in order, with their message ids, times, attempts, outcome and detail: each only when the queue has
     * no row of the same message id, start, end and outcome already (so a row written by a run that died before it
     * deleted the row on the source is not written twice). History need not be on for this database. The queue is
     * created if missing. Thread-safe; run one move of a queue at a time (two concurrent writes of the same row may
     * both write it).
     *
     * @param queue the queue
     * @param rows 1..{@value #MAX_MOVE_CLAIM} rows (their {@link HistoryEntry#queue()} is ignored)
     * @return how many rows were written (the others were here already)
     * @throws InvalidInputException (rule {@code move.max-messages}) for null, empty or more than
     *     {@value #MAX_MOVE_CLAIM} rows or a null one; nothing is written
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_HISTORY}
     */
    default int enqueueMovedHistory(QueueName queue, List<HistoryEntry> rows) {
        throw new UnsupportedCapabilityException(Capability.MOVE_HISTORY, getClass().getSimpleName());
    }

    /**
     * Delete the queue's history rows of these history ids ({@link HistoryRow#historyId()}); ids of no row of the
     * queue are skipped. One transaction. Thread-safe.
     *
     * @param queue the queue whose history rows to delete
     * @param historyIds 1..{@value #MAX_MOVE_CLAIM} history ids
     * @return how many rows were deleted
     * @throws InvalidInputException (rule {@code move.max-messages}) for null, empty or more than
     *     {@value #MAX_MOVE_CLAIM} ids or a null one; nothing is deleted
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#MOVE_HISTORY}
     */
    default long deleteHistory(QueueName queue, List<Long> historyIds) {
        throw new UnsupportedCapabilityException(Capability.MOVE_HISTORY, getClass().getSimpleName());
    }
}
