package dev.sqlqueue.skiplocked;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.quotedName;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;
import static org.jooq.impl.DSL.when;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Table;
import org.jooq.conf.ParamType;
import org.jooq.conf.RenderQuotedNames;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Every SQL statement of the SKIP LOCKED backends, rendered once by jOOQ for one database and one table
 * prefix, with {@code ?} placeholders. The comment on each field gives the order of its parameters.
 *
 * <p>Table names carry the validated prefix and are quoted; column names are fixed words, unquoted, so
 * they fold the same way in the Flyway DDL and here. Queue names are always bind values.
 * Immutable and thread-safe.
 */
public final class SkipLockedStatements {
    /** (queue, priority, delay ms, headers, payload, group or null). */
    public final String insert;
    /**
     * MariaDB and H2 (else null): {@link #insert} returning the new row's id, the one-row form of
     * {@link #insertRows}: MariaDB 10.5+ {@code INSERT ... RETURNING} (MariaDB Knowledge Base, INSERT...RETURNING);
     * H2 a data change delta table, {@code SELECT ... FROM FINAL TABLE (INSERT ...)} (H2 grammar, "Data change
     * delta table").
     */
    public final String insertReturning;
    /**
     * PostgreSQL only (else null): (channel, queue, queue, priorities int[], delays ms bigint[], headers
     * text[], payloads bytea[], groups varchar[]): the rows of one {@code enqueueAll} and the wake-up
     * {@code pg_notify} in one statement; returns the new ids in message order.
     */
    public final String insertMany;
    /** (queue): register a queue if it is missing. */
    public final String ensureQueue;
    /**
     * (queue, limit), on H2 (candidate ids as a Long[] array): rows id, priority, enqueued_at, attempts,
     * headers, payload, claimed-now, group_key; locks them, skipping locked rows. A message of a group is
     * claimable only while no older message of its group is in the table (ready, delayed or in flight),
     * so a group is delivered one message at a time, in id order. On PostgreSQL it starts with
     * {@link #CLAIM_PLAN} and ends with {@link #CLAIM_PLAN_END} (several statements, one round trip: its rows are
     * the second result set, after the one row of the planner settings).
     */
    public final String claimSelect;
    /** H2 only (else null): (queue, limit): candidate ids of a claim in claim order, read without locks; the caller leaves out the ids it holds. */
    public final String claimCandidates;
    /**
     * (queue, limit): the rows a move claim ({@link dev.sqlqueue.QueueAdmin#claimForMove}) takes, locked, skipping
     * locked rows, in id order: ready rows, delayed rows (no lease token) and rows an earlier move claim held
     * ({@code claimed_at < 0}, see {@link #moveLease}), never a consumer's unexpired lease; a group's head only.
     * Columns id, priority, enqueued_at, attempts, headers, payload, now, group_key, visible_at, claimed_at. On H2
     * (which locks every row a FOR UPDATE query matches before it applies FETCH, see {@link #claimCandidates}) the
     * parameter is the candidate ids of {@link #moveCandidates} as a Long[] array, rechecked under the lock.
     */
    public final String moveSelect;
    /** H2 only (else null): (queue, limit): the ids {@link #moveSelect} would take, in id order, read without locks. */
    public final String moveCandidates;
    /**
     * (token, lease ms, id): the hold of one row a move claim took: the lease token, attempts unchanged, the row
     * hidden until its lease or its delay ends (whichever is later), and its visible time before the first hold kept
     * negated in {@code claimed_at} (a consumer's claim sets it to the claim time, which is never negative), so that a
     * later move claim knows the row is a mover's and what delay is left. {@code claimed_at} is set before
     * {@code visible_at}: MariaDB assigns a single-table UPDATE's columns left to right, each seeing the ones
     * before it (MariaDB Knowledge Base, UPDATE).
     */
    public final String moveLease;
    /** (token, lease ms, id): the lease of one claimed row; attempts + 1. */
    public final String leaseUpdate;
    /** (id, token, queue). */
    public final String deleteLeased;
    /** Whether claims lease and acks delete the rows of a claim by an id list ({@link #leaseUpdateIn}, {@link #deleteLeasedIn}): MariaDB. */
    public final boolean idLists;
    private final String messageTable;
    /** (id). */
    public final String deleteById;
    /**
     * PostgreSQL only (else null): (queue, limit, token, lease ms): a whole lease claim in one statement,
     * the locking select of {@link #claimSelect} in a CTE and the lease update of its rows; rows id,
     * priority, enqueued_at, attempts (after the claim), headers, payload, claimed-now, group_key, and the
     * visible_at before the claim (to order them as the select did).
     */
    public final String leaseClaim;
    /**
     * PostgreSQL only (else null): (queue, old token, ids bigint[], queue, limit, new token, lease ms): the acks
     * of one claim and the next lease claim in one round trip and one transaction: {@link #CLAIM_PLAN}, then
     * {@link #deleteLeasedByIds} returning the deleted ids (the second result), then the statement of {@link
     * #leaseClaim} (the third). PostgreSQL runs the statements sent before one Sync as one transaction
     * (PostgreSQL manual, Frontend/Backend Protocol, "Multiple Statements in a Simple Query" and Extended
     * Query), so both commit together, with one WAL flush. They are two statements, not two CTEs of one: in
     * READ COMMITTED each statement takes its own snapshot (manual, Transaction Isolation), so the claim sees
     * the table after the acks (a group's next message is claimable at once), and its snapshot is not as old
     * as the acks' row-lock waits. (In one statement, claims on a snapshot taken before those waits met rows
     * other workers had leased since; {@code FOR UPDATE} then locks the row's newest version before it
     * rechecks and skips it, that lock lasts to the end of the transaction, and other workers' acks of those
     * rows waited for it: seven times as many lock waits in the drain benchmark, docs/benchmarks.md.)
     */
    public final String ackAndLeaseClaim;
    /**
     * PostgreSQL only (else null): gives back one row of a claim made by {@link #ackAndLeaseClaim} whose receipts
     * turned out to name another queue than their claim's: lease token, claim time and visible time as the claim
     * found them (the claim returns them), one attempt less; only while the row still holds that claim's token.
     * Parameters: old token, old claimed_at, old visible_at, id, the claim's token.
     */
    public final String unclaim;
    /**
     * PostgreSQL: sent before a claim in the same round trip (the claim statements start with it; its one row is
     * read and dropped), for the claim's transaction only: bitmap scans, sequential scans and sorts off, so that
     * the one plan left is the claim index read in order, stopping at the limit (and the group index for the
     * group check), whatever the table's statistics say; hash and merge joins off, so that the lease update finds
     * the claimed rows by a nested loop over the primary key (joined to a full scan of the primary key, the
     * update read the whole table at every claim when the statistics said the table was empty: {@code
     * ClaimPlanOnServerTest}). Without statistics (a new table, or a server with
     * autovacuum off, so never analyzed) the planner estimated a handful of rows for a queue and served every
     * claim with a bitmap scan of the queue's whole backlog and a sort of it (about 11 ms per claim at 20,000
     * messages, growing with the backlog, against 0.1 ms); with statistics that autovacuum's ANALYZE took of a
     * nearly drained queue it chose a sequential scan of the whole table and a sort (0.8-0.9 s per claim while a
     * backlog of 375,000 built up in 50 s; auto_explain in the sustained run, docs/benchmarks.md; {@code
     * ClaimWithoutStatisticsOnServerTest}). Disabled plan kinds are still used where nothing else can run the
     * statement (PostgreSQL manual, Planner Method Configuration). {@code set_config(name, value, true)} is
     * {@code SET LOCAL}: it ends with the transaction (PostgreSQL manual, System Administration Functions), so
     * nothing leaks into the connection's later transactions, also behind a transaction pooler. Unlike {@code
     * SET LOCAL} it is quiet in the implicit transaction of an auto-commit round trip, where the lease claim
     * runs ({@code SET LOCAL} there draws the warning "SET LOCAL can only be used in transaction blocks", to the
     * client and the server log, at every claim).
     */
    public static final String CLAIM_PLAN = "select set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true),"
            + " set_config('enable_sort', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),"
            + " set_config('plan_cache_mode', 'force_generic_plan', true); ";
    /**
     * PostgreSQL: starts {@link #ackByClaim}, in the same round trip: {@link #idArrayPlan} as {@code set_config},
     * quiet in auto-commit (see {@link #CLAIM_PLAN}); its one row is read and dropped.
     */
    public static final String ACK_PLAN = "select set_config('enable_seqscan', 'off', true); ";
    /**
     * PostgreSQL: ends {@link #claimSelect}, whose transaction goes on with the handlers' work in transactional
     * mode: the planner settings of {@link #CLAIM_PLAN} back to their defaults (the values the session started
     * with; a handler's own session-level {@code SET} of these five is not restored) for the rest of it.
     */
    public static final String CLAIM_PLAN_END = "; set local enable_bitmapscan to default; set local enable_seqscan to default;"
            + " set local enable_sort to default; set local enable_hashjoin to default; set local enable_mergejoin to default; set local plan_cache_mode to default";
    /**
     * PostgreSQL only (else null): run in a transaction before {@link #deleteLeasedByIds} and {@link #deleteByIds}
     * (the driver cannot batch a statement that holds two, so it is a statement of its own). When PostgreSQL's
     * statistics record the message table as empty (autovacuum's ANALYZE of a drained queue) the planner
     * estimates a sequential scan by the table's pages alone and the primary key by one descent per id, and read
     * the whole table for an ack of a few hundred ids ({@code AckPlanOnServerTest}); with sequential scans off
     * the primary key is the plan whatever the statistics say (the claim index cannot serve {@code id}: migration
     * V4). {@code SET LOCAL} ends with the transaction (PostgreSQL manual, SET).
     */
    public final String idArrayPlan;
    /** H2 only (else null): (token, lease ms, ids as a bigint array): {@link #leaseUpdate} of a claim's rows in one statement. */
    public final String leaseUpdateByIds;
    /** PostgreSQL and H2 (else null): (ids as a bigint array): delete rows held by a transactional claim. */
    public final String deleteByIds;
    /**
     * PostgreSQL and H2 (else null; MariaDB deletes by single id, see deleteLeased): (queue, token, ids as a
     * bigint array): acks of the leases of one claim in one statement; its count tells whether all were held.
     */
    public final String deleteLeasedByIds;
    /**
     * PostgreSQL only (else null): (queue, token, ids as a bigint array): the acks of one claim, {@link
     * #deleteLeasedByIds} after {@link #ACK_PLAN} in one auto-commit round trip, returning the ids it deleted (the
     * ids it does not return were not held).
     */
    public final String ackByClaim;
    /**
     * True on PostgreSQL: {@link #deleteByIds} and {@link #deleteLeasedByIds} are planned at every execution
     * (PostgresPlans), never from a generic plan made while the table was small.
     */
    public final boolean planIdArraysEachTime;
    /**
     * (outcome, detail, id, token, queue): copy a leased row into the history, with the first
     * {@link dev.sqlqueue.HistoryEntry#PREVIEW_BYTES} bytes of its payload ({@code SUBSTRING(payload FROM 1 FOR 64)}).
     */
    public final String historyLeased;
    /** (started ms, outcome, detail, id): copy a row held by a transactional claim into the history, with its payload preview. */
    public final String historyById;
    /** (delay ms, error, id, token, queue). */
    public final String nackLeased;
    /** (delay ms, error, id): attempts + 1 inside the claim's transaction. */
    public final String nackById;
    /** (lease ms, id, token, queue). */
    public final String extend;
    /** (id, token, queue): visible now, attempt taken back. */
    public final String releaseLeased;
    /** (reason, id, token, queue). */
    public final String deadLetterLeased;
    /** (reason, id): attempts + 1 (the failed delivery counts). */
    public final String deadLetterById;
    /**
     * (attempts, id): the attempts of a message a move wrote in the same transaction
     * ({@link dev.sqlqueue.QueueAdmin#enqueueMoved}).
     */
    public final String setAttempts;
    /**
     * (reason, id): a moved dead letter, written as a message row in the same transaction and copied here with its
     * attempts as they are (then {@link #deleteById}); {@link dev.sqlqueue.QueueAdmin#enqueueMoved}.
     */
    public final String deadLetterMoved;
    /**
     * (queue, queue, queue): rows of the queue, in flight, delayed, oldest ready enqueue time, now, dead
     * letters, history rows; one statement, so one snapshot.
     */
    public final String stats;
    /** (queue, limit): id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail, payload_preview. */
    public final String listHistory;
    /** (queue, limit): id, priority, enqueued_at, attempts, headers, payload, reason, dead_at, group_key. */
    public final String listDead;
    /** (queue): ids of the queue's dead letters, locked. */
    public final String lockDeadIds;
    /**
     * The dead letters with the first {@link dev.sqlqueue.DeadLetterSummary#PREVIEW_BYTES} bytes of each payload and
     * its length, never the payload (issue 31): standard SQL {@code SUBSTRING(payload FROM 1 FOR n)} and
     * {@code OCTET_LENGTH(payload)}, which H2, PostgreSQL (bytea) and MariaDB (BLOB) take for binary strings.
     * Columns: id, priority, enqueued_at, attempts, headers, preview, reason, dead_at, group, payload length.
     */
    public final String listDeadSummaries;
    /**
     * (queue, after id, limit): a page of the queue's ready messages by id (QueueAdmin.messages): id, priority,
     * enqueued_at, visible_at, attempts, lease_token, claimed_at, headers, the first
     * {@link dev.sqlqueue.DeadLetterSummary#PREVIEW_BYTES} bytes of the payload, its length, group_key, last_error, now.
     */
    public final String listReady;
    /** As {@link #listReady}, the delayed messages (not visible, no lease). */
    public final String listDelayed;
    /** As {@link #listReady}, the messages in flight (not visible, leased). */
    public final String listInFlight;
    /** (queue, id): as {@link #listReady} for one message of the queue, whatever its state. */
    public final String messageById;
    /** As {@link #listDeadSummaries} for one message id of the queue. */
    public final String deadSummaryById;
    /**
     * One dead letter's id, locked (FOR UPDATE): a requeue of given ids locks only those rows (issue 31: locking
     * every dead id of the queue read every row, payloads included on H2, to requeue one).
     */
    public final String lockDeadId;
    /** (queue, id): copy one dead letter without a group back to its queue with attempts 0, keeping its id. */
    public final String requeueDead;
    /**
     * (queue, id): copy one dead letter of a message group back with attempts 0 and a new id, so it goes
     * to the tail of its group: with its old id it would count as older than a message of the group that
     * may be in a consumer's hands, and run beside it.
     */
    public final String requeueDeadGrouped;
    /** (queue, id). */
    public final String deleteDead;
    /** (queue). */
    public final String purgeDead;
    /** (queue). */
    public final String purgeMessages;
    /** (queue). */
    public final String purgeHistory;
    /** (queue, age ms): delete history rows that finished that long ago or longer (database clock). */
    public final String pruneHistoryAge;
    /**
     * (queue, keep): the history_id of the newest row beyond the {@code keep} newest of the queue, if any.
     * Read first, then {@link #pruneHistoryRows} deletes up to it: MariaDB refuses a DELETE whose subquery
     * reads the same table (error 1093).
     */
    public final String historyCutoff;
    /** (queue, cutoff): delete history rows up to and including history_id cutoff. */
    public final String pruneHistoryRows;
    /**
     * (queue, limit): history_id, id, enqueued_at, started_at, finished_at, duration_ms, attempts, outcome, detail of
     * the queue's oldest history rows, by history_id ({@link dev.sqlqueue.QueueAdmin#historyForMove}).
     */
    public final String historyForMove;
    /**
     * (id, queue, enqueued ms, started ms, finished ms, attempts, outcome, detail, then queue, id, started ms, finished
     * ms, outcome): write a history row moved from another database unless the queue has a row of the same message
     * id, start, end and outcome ({@link dev.sqlqueue.QueueAdmin#enqueueMovedHistory}); 1 row written or 0.
     */
    public final String insertMovedHistory;
    /** (queue, history id): delete one history row ({@link dev.sqlqueue.QueueAdmin#deleteHistory}). */
    public final String deleteHistoryRow;

    /** (queue). */
    public final String deleteQueue;
    /** (): names of the queues. */
    public final String listQueues;
    /** (queue, priority, payload, headers): a raw row, bypassing the library (fault hook of the conformance suite). */
    public final String rawInsert;
    /** (id, token): the queue of a leased row, to tell a receipt of another queue from a lost lease. */
    public final String leaseQueue;
    /** (queue, key): delete this key's row if its window has passed (by primary key, no scan). */
    public final String deleteExpiredKey;
    /**
     * (queue, key, window ms): take a deduplication key, message id still null. Waits for a transaction
     * holding the same uncommitted key. PostgreSQL ({@code on conflict do nothing}) and MariaDB
     * ({@code insert ignore}) count 0 rows for a key taken; H2 has no such form outside its compatibility
     * modes, so there a taken key is a unique-key violation (SQLState 23505) the caller catches.
     */
    public final String insertKey;
    /** (message id, queue, key): the message a freshly taken key stands for. */
    public final String setKeyMessage;
    /**
     * (queue, after key, limit): key, message id and ms left of the queue's keys in their window that stand for a
     * message, after the given key, by key ({@link dev.sqlqueue.QueueAdmin#deduplicationKeys}).
     */
    public final String listKeys;
    /**
     * (queue, key): message_id of a taken key, read with a shared lock on PostgreSQL and MariaDB so it sees
     * the latest committed row at any isolation (a shared lock, not FOR UPDATE: on MariaDB the waiters of
     * one key all hold its shared lock from the duplicate check, and upgrading would deadlock them). H2
     * has no FOR SHARE; its READ COMMITTED read sees the committed row.
     */
    public final String keyMessage;
    /** (limit): delete at most limit expired keys of any queue, through the expiry index. */
    public final String deleteExpiredKeys;
    /** (queue): the queue's deduplication keys (drop queue). */
    public final String deleteKeys;
    /**
     * (bucket ms, queue, from ms): the queue's history rows that finished at or after {@code from}, per bucket (the
     * finish time divided by the width, floored) and outcome: bucket, outcome, rows, mean of finished_at - enqueued_at.
     * Through the (queue, finished_at) index; the bucket is computed in a derived table so that its bind is written once.
     */
    public final String historyBuckets;
    /** (queue): pause the queue; inserts its row unless it is there (a concurrent duplicate is a unique-key error the caller takes for "already paused"). */
    public final String pauseQueue;
    /** (queue): resume the queue; deletes its row (count 1: it was paused). */
    public final String resumeQueue;
    /** (queue): one row when the queue is paused. */
    public final String queuePaused;
    /** Drop every table of the prefix, children first; the Flyway history table last. */
    public final List<String> dropSchema;
    /**
     * H2 only (else empty): delete every row of the prefix's tables, in the drop's transaction, before
     * {@link #dropSchema}. H2 2.3.232 takes no table lock for {@code SELECT ... FOR UPDATE} (a transactional
     * claim's only hold on its rows), so its {@code DROP TABLE} does not wait for such a claim, and when the
     * claim's transaction then ends H2 replays its undo log against the dropped table and the database file
     * fails ("MVStoreException: Unable to read the page"; H2DropSchemaTest, cf. h2database #3695). A
     * {@code DELETE} waits for every row lock ({@code LOCK_TIMEOUT}); PostgreSQL's and MariaDB's
     * {@code DROP TABLE} wait for row locks themselves. Keyed by the table's name: a table that does not
     * exist (an empty database, a half-created schema, a second drop) is skipped, since H2 has no
     * {@code DELETE ... IF EXISTS} (issue 31: {@code Table "..._dedupe_key" not found}).
     */
    public final Map<String, String> emptyBeforeDrop;
    /** PostgreSQL only (else null): (channel, queue) wake listeners when the transaction commits. */
    public final String notify;
    /** PostgreSQL only (else null): subscribe to the prefix's wake-up channel. */
    public final String listen;
    /** PostgreSQL only: the wake-up channel of the prefix. */
    public final String channel;
    /** H2 only (else null): drop the clock function of the prefix. */
    public final String dropFunction;
    /**
     * PostgreSQL and MariaDB (else null): (limit): the other sessions with a transaction open that hold back the
     * server's clean-up, oldest first; rows session id, user, client address, application name, state, age in ms
     * (database clock), the start of the query, the clean-up backlog (-1 when unknown). See {@link #OLDEST_TRANSACTIONS_POSTGRES}
     * and {@link #OLDEST_TRANSACTIONS_MARIADB}.
     */
    public final String oldestTransactions;

    /**
     * PostgreSQL: the sessions of this database other than the caller's whose snapshot ({@code backend_xmin}) or
     * transaction id ({@code backend_xid}) is set: VACUUM keeps every row version newer than the oldest of these
     * (PostgreSQL manual, "The Cumulative Statistics System", pg_stat_activity; "Routine Vacuuming"). A session in
     * READ COMMITTED that is idle in a transaction without having written holds no snapshot and is left out, since it
     * holds nothing back. Autovacuum workers are left out (their xmin is ignored by other vacuums). Without
     * {@code pg_read_all_stats} the columns of other users' sessions are null, so they are missing. Replication
     * slots ({@code pg_replication_slots.xmin}) and prepared transactions ({@code pg_prepared_xacts}) can hold the
     * horizon too and are not reported here.
     */
    public static final String OLDEST_TRANSACTIONS_POSTGRES = "select pid, usename, host(client_addr), application_name, state,"
            + " cast(floor(extract(epoch from (clock_timestamp() - xact_start)) * 1000) as bigint),"
            + " left(query, " + dev.sqlqueue.OpenTransaction.QUERY_PREVIEW_CHARS + "), coalesce(age(backend_xmin), age(backend_xid), -1)"
            + " from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and xact_start is not null"
            + " and (backend_xmin is not null or backend_xid is not null) and backend_type <> 'autovacuum worker'"
            + " order by xact_start, pid fetch first ? rows only";
    /**
     * MariaDB: every InnoDB transaction of the server but the caller's ({@code information_schema.INNODB_TRX} joined
     * to {@code PROCESSLIST}), since InnoDB's purge is server-wide: it may not remove undo log records an older read
     * view still needs (MariaDB Knowledge Base, "InnoDB Purge", "Information Schema INNODB_TRX Table"). Needs the
     * {@code PROCESS} privilege. {@code trx_started} is a DATETIME of whole seconds in the server's system time zone
     * (not the session's: MariaDB 10.11 showed it 5 h off NOW() under a session time zone of +05:00), so the
     * statement runs with {@code time_zone = 'SYSTEM'}. {@code INNODB_TRX} is a cache that a read refreshes only when
     * the previous read was 0.1 s or more before (read every 50 ms, it showed a committed transaction for 30 s). The clean-up backlog is the status variable {@code Innodb_history_list_length}.
     */
    public static final String OLDEST_TRANSACTIONS_MARIADB = "SET STATEMENT time_zone = 'SYSTEM' FOR"
            + " select t.trx_mysql_thread_id, p.USER, p.HOST, null, concat_ws(': ', p.COMMAND, nullif(p.STATE, '')),"
            + " timestampdiff(SECOND, t.trx_started, now()) * 1000,"
            + " left(coalesce(t.trx_query, p.INFO), " + dev.sqlqueue.OpenTransaction.QUERY_PREVIEW_CHARS + "),"
            + " coalesce((select VARIABLE_VALUE from information_schema.GLOBAL_STATUS where VARIABLE_NAME = 'INNODB_HISTORY_LIST_LENGTH'), -1)"
            + " from information_schema.INNODB_TRX t left join information_schema.PROCESSLIST p on p.ID = t.trx_mysql_thread_id"
            + " where t.trx_mysql_thread_id <> connection_id() order by t.trx_started, t.trx_mysql_thread_id limit ?";

    private final Table<?> message;
    private final Table<?> deadLetter;
    private final Table<?> history;
    private final Table<?> queueTable;
    private final Table<?> dedupe;
    private final Table<?> paused;

    static final Field<Long> ID = field(unquotedName("id"), SQLDataType.BIGINT);
    static final Field<String> QUEUE = field(unquotedName("queue"), SQLDataType.VARCHAR);
    static final Field<Integer> PRIORITY = field(unquotedName("priority"), SQLDataType.INTEGER);
    static final Field<Long> VISIBLE_AT = field(unquotedName("visible_at"), SQLDataType.BIGINT);
    static final Field<Long> ENQUEUED_AT = field(unquotedName("enqueued_at"), SQLDataType.BIGINT);
    static final Field<Integer> ATTEMPTS = field(unquotedName("attempts"), SQLDataType.INTEGER);
    static final Field<Long> LEASE_TOKEN = field(unquotedName("lease_token"), SQLDataType.BIGINT);
    static final Field<Long> CLAIMED_AT = field(unquotedName("claimed_at"), SQLDataType.BIGINT);
    static final Field<String> HEADERS = field(unquotedName("headers"), SQLDataType.VARCHAR);
    static final Field<byte[]> PAYLOAD = field(unquotedName("payload"), SQLDataType.VARBINARY);
    static final Field<String> LAST_ERROR = field(unquotedName("last_error"), SQLDataType.VARCHAR);
    static final Field<String> REASON = field(unquotedName("reason"), SQLDataType.VARCHAR);
    static final Field<String> GROUP_KEY = field(unquotedName("group_key"), SQLDataType.VARCHAR);
    static final Field<Long> DEAD_AT = field(unquotedName("dead_at"), SQLDataType.BIGINT);
    static final Field<Long> HISTORY_ID = field(unquotedName("history_id"), SQLDataType.BIGINT);
    static final Field<Long> STARTED_AT = field(unquotedName("started_at"), SQLDataType.BIGINT);
    static final Field<Long> FINISHED_AT = field(unquotedName("finished_at"), SQLDataType.BIGINT);
    static final Field<Long> DURATION_MS = field(unquotedName("duration_ms"), SQLDataType.BIGINT);
    static final Field<String> OUTCOME = field(unquotedName("outcome"), SQLDataType.VARCHAR);
    static final Field<String> DETAIL = field(unquotedName("detail"), SQLDataType.VARCHAR);
    static final Field<byte[]> PAYLOAD_PREVIEW = field(unquotedName("payload_preview"), SQLDataType.VARBINARY);
    static final Field<Long> NULL_TOKEN = inline(null, SQLDataType.BIGINT);
    static final Field<String> NAME = field(unquotedName("name"), SQLDataType.VARCHAR);
    static final Field<Long> CREATED_AT = field(unquotedName("created_at"), SQLDataType.BIGINT);
    static final Field<String> DEDUPE_KEY = field(unquotedName("dedupe_key"), SQLDataType.VARCHAR);
    static final Field<Long> MESSAGE_ID = field(unquotedName("message_id"), SQLDataType.BIGINT);
    static final Field<Long> EXPIRES_AT = field(unquotedName("expires_at"), SQLDataType.BIGINT);

    /**
     * @param dialect the database
     * @param prefix a table prefix already validated by {@link dev.sqlqueue.QueueConfig}
     */
    public SkipLockedStatements(SkipLockedDialect dialect, String prefix) {
        QuietLibraryLogs.quietJooq(); // before jOOQ renders its first statement (and prints its logo)
        DSLContext dsl = DSL.using(dialect.jooq(), new Settings()
                .withRenderQuotedNames(RenderQuotedNames.EXPLICIT_DEFAULT_UNQUOTED)
                .withParamType(ParamType.INDEXED)
                .withRenderFormatted(false));
        Field<Long> now = field("(" + dialect.nowMillis(prefix) + ")", SQLDataType.BIGINT);
        message = table(quotedName(prefix + "message"));
        deadLetter = table(quotedName(prefix + "dead_letter"));
        history = table(quotedName(prefix + "history"));
        queueTable = table(quotedName(prefix + "queue"));
        dedupe = table(quotedName(prefix + "dedupe_key"));
        paused = table(quotedName(prefix + "paused_queue"));
        Field<Long> token = param("token", Long.class);
        Field<Long> id = param("id", Long.class);
        Field<String> queue = param("queue", String.class);
        // a receipt names its queue: a receipt of another queue matches no row (SqlQueue then reports it)
        Condition leased = ID.eq(id).and(LEASE_TOKEN.eq(token)).and(QUEUE.eq(queue));
        Condition byId = ID.eq(id);

        insert = sql(dsl.insertInto(message, QUEUE, PRIORITY, VISIBLE_AT, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, GROUP_KEY)
                .values(queue, param("priority", Integer.class), now.plus(param("delay", Long.class)), now,
                        inline(0), param("headers", String.class), param("payload", byte[].class), param("group", String.class)), dsl);
        insertReturning = switch (dialect) {
            case MARIADB -> insert + " returning id";
            case H2 -> "select id from final table (" + insert + ")";
            case POSTGRES -> null;
        };
        // message groups: only the oldest message of a group still in the table can be claimed; the
        // outer columns are qualified by the table's name, the inner ones by the alias g
        Condition headOfGroup = DSL.condition("({0} is null or not exists (select 1 from {1} g where g.queue = {1}.queue"
                + " and g.group_key = {1}.group_key and g.id < {1}.id))", GROUP_KEY, message);
        // a paused queue (QueueAdmin.pause, migration V5/V4) is claimed from by no one: a primary-key lookup in the
        // paused-queue table, correlated on the queue so that no statement gains a bind; no locking read takes it
        Condition notPaused = DSL.condition("not exists (select 1 from {0} p where p.queue = {1}.queue)", paused, message);
        ensureQueue = dialect == SkipLockedDialect.H2
                // jOOQ cannot emulate ON DUPLICATE KEY IGNORE on H2 for a table it has no key metadata of;
                // a concurrent duplicate is caught as a unique-key violation by the caller
                ? sql(dsl.insertInto(queueTable, NAME, CREATED_AT).select(dsl.select(queue, now)
                        .whereNotExists(dsl.selectOne().from(queueTable).where(NAME.eq(param("queue2", String.class))))), dsl)
                : sql(dsl.insertInto(queueTable, NAME, CREATED_AT).values(queue, now).onDuplicateKeyIgnore(), dsl);
        Field<Long[]> ids = DSL.val(new Long[0], SQLDataType.BIGINT.getArrayDataType());
        // H2 locks every row a FOR UPDATE query matches before it applies FETCH (seen with H2 2.3.232 to
        // 2.5.252), so on H2 a claim first reads candidate ids without locks, then locks those ids by primary
        // key. The rows this process holds in open transactional claims are left out of the candidates in
        // Java (ClaimRows): as "not (id = any(?))" H2 converted and scanned the array for every row read, a
        // third of a transactional drain's worker time (docs/backends/h2.md)
        claimCandidates = dialect == SkipLockedDialect.H2
                ? dsl.select(ID).from(message)
                        .where(QUEUE.eq(queue)).and(VISIBLE_AT.le(now))
                        .and(headOfGroup).and(notPaused)
                        // queue first (a constant here): H2 reads an index in order only when ORDER BY
                        // starts with the index's first column; without it a claim read and sorted the
                        // whole queue (docs/backends/h2.md)
                        .orderBy(QUEUE.asc(), PRIORITY.desc(), VISIBLE_AT.asc(), ID.asc())
                        .limit(param("limit", Integer.class))
                        .getSQL(ParamType.INDEXED)
                : null;
        // PostgreSQL: the claim index ends with (id + 0) (migration V4), so the claims order by that expression to
        // read it in order, and the primary key is the only index an ack's "id = ANY(?)" can use
        Field<Long> claimOrderId = dialect == SkipLockedDialect.POSTGRES ? ID.plus(inline(0L)) : ID;
        claimSelect = dialect == SkipLockedDialect.H2
                ? dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, now, GROUP_KEY)
                        .from(message)
                        .where(DSL.condition("{0} = any({1})", ID, ids)).and(VISIBLE_AT.le(now)).and(headOfGroup).and(notPaused)
                        .orderBy(PRIORITY.desc(), VISIBLE_AT.asc(), ID.asc())
                        .forUpdate().skipLocked()
                        .getSQL(ParamType.INDEXED)
                : (dialect == SkipLockedDialect.POSTGRES ? CLAIM_PLAN : "")
                  + dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, now, GROUP_KEY)
                        .from(message)
                        .where(QUEUE.eq(queue)).and(VISIBLE_AT.le(now)).and(headOfGroup).and(notPaused)
                        .orderBy(PRIORITY.desc(), VISIBLE_AT.asc(), claimOrderId.asc())
                        .limit(param("limit", Integer.class))
                        .forUpdate().skipLocked()
                        .getSQL(ParamType.INDEXED)
                  + (dialect == SkipLockedDialect.POSTGRES ? CLAIM_PLAN_END : "");
        Condition movable = VISIBLE_AT.le(now).or(LEASE_TOKEN.isNull()).or(CLAIMED_AT.lt(inline(0L)));
        moveCandidates = dialect == SkipLockedDialect.H2
                ? dsl.select(ID).from(message).where(QUEUE.eq(queue)).and(movable).and(headOfGroup)
                        .orderBy(ID.asc()).limit(param("limit", Integer.class)).getSQL(ParamType.INDEXED)
                : null;
        moveSelect = dialect == SkipLockedDialect.H2
                ? dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, now, GROUP_KEY, VISIBLE_AT, CLAIMED_AT)
                        .from(message)
                        .where(DSL.condition("{0} = any({1})", ID, ids)).and(movable).and(headOfGroup)
                        .orderBy(ID.asc())
                        .forUpdate().skipLocked()
                        .getSQL(ParamType.INDEXED)
                : dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, now, GROUP_KEY, VISIBLE_AT, CLAIMED_AT)
                        .from(message)
                        .where(QUEUE.eq(queue)).and(movable).and(headOfGroup)
                        .orderBy(ID.asc())
                        .limit(param("limit", Integer.class))
                        .forUpdate().skipLocked()
                        .getSQL(ParamType.INDEXED);
        moveLease = sql(dsl.update(message).set(LEASE_TOKEN, token)
                .set(CLAIMED_AT, when(CLAIMED_AT.lt(inline(0L)), CLAIMED_AT).otherwise(VISIBLE_AT.neg()))
                .set(VISIBLE_AT, DSL.greatest(VISIBLE_AT, now.plus(param("lease", Long.class)))).where(byId), dsl);
        leaseUpdate = sql(dsl.update(message).set(LEASE_TOKEN, token).set(ATTEMPTS, ATTEMPTS.plus(inline(1)))
                .set(CLAIMED_AT, now).set(VISIBLE_AT, now.plus(param("lease", Long.class))).where(byId), dsl);
        deleteLeased = sql(dsl.deleteFrom(message).where(leased), dsl);
        idLists = dialect == SkipLockedDialect.MARIADB;
        messageTable = quote(dialect, prefix + "message");
        deleteById = sql(dsl.deleteFrom(message).where(byId), dsl);
        Field<Long[]> idArray = DSL.val(new Long[0], SQLDataType.BIGINT.getArrayDataType());
        boolean arrays = dialect != SkipLockedDialect.MARIADB;
        planIdArraysEachTime = dialect == SkipLockedDialect.POSTGRES;
        idArrayPlan = dialect == SkipLockedDialect.POSTGRES ? "set local enable_seqscan = off" : null;
        leaseUpdateByIds = dialect == SkipLockedDialect.H2 ? dsl.update(message).set(LEASE_TOKEN, token)
                .set(ATTEMPTS, ATTEMPTS.plus(inline(1))).set(CLAIMED_AT, now).set(VISIBLE_AT, now.plus(param("lease", Long.class)))
                .where(DSL.condition("{0} = any({1})", ID, idArray)).getSQL(ParamType.INDEXED) : null;
        deleteByIds = arrays ? dsl.deleteFrom(message).where(DSL.condition("{0} = any({1})", ID, idArray))
                .getSQL(ParamType.INDEXED) : null;
        // the queue is compared in a form no index serves: with "queue = ?" PostgreSQL without statistics
        // (a new table, autovacuum off) chose the claim index (queue, ...) and read the queue's whole range
        // for every ack; this way only the primary key serves the ids (EXPLAIN in docs/benchmarks.md)
        deleteLeasedByIds = arrays ? dsl.deleteFrom(message).where(DSL.condition("({0} = {1}) is not false", QUEUE, queue))
                .and(LEASE_TOKEN.eq(token)).and(DSL.condition("{0} = any({1})", ID, idArray)).getSQL(ParamType.INDEXED) : null;
        ackByClaim = dialect == SkipLockedDialect.POSTGRES ? ACK_PLAN + deleteLeasedByIds + " returning id" : null;
        if (dialect == SkipLockedDialect.POSTGRES) {
            String t = dsl.render(message);
            String nowMs = "(" + dialect.nowMillis(prefix) + ")";
            insertMany = "with n as (select pg_notify(?, ?)) insert into " + t
                    + " (queue, priority, visible_at, enqueued_at, attempts, headers, payload, group_key)"
                    + " select ?, u.p, " + nowMs + " + u.d, " + nowMs + ", 0, u.h, u.b, u.g from n, unnest(cast(? as int[]),"
                    + " cast(? as bigint[]), cast(? as text[]), cast(? as bytea[]), cast(? as varchar[]))"
                    + " with ordinality as u(p, d, h, b, g, o) order by u.o returning id";
            // the CTE returns each locked row's ctid and the update finds the row by it (a Tid Scan per row, in a
            // nested loop: CLAIM_PLAN turns hash and merge joins off, so the generic plan it forces cannot join the
            // claimed rows to a full scan of the primary key either). Joined on id, PostgreSQL planned the update's
            // side as a full scan of the primary key once the table's statistics said it was empty (autovacuum had
            // run while the queue was drained: reltuples near 0), so every claim read the whole table while a
            // backlog built up (claims of 5-25 s in the sustained-load benchmark of issue 16, docs/benchmarks.md);
            // it still did with hash and merge joins off (ClaimPlanOnServerTest). The rows are locked by this
            // statement, so their ctid cannot change before the update; "m.id = c.id" stays as a check.
            String pick = dsl.select(ID, VISIBLE_AT.as("was"), DSL.field("ctid").as("loc"), LEASE_TOKEN.as("was_token"),
                            CLAIMED_AT.as("was_claimed")).from(message)
                    .where(QUEUE.eq(queue)).and(VISIBLE_AT.le(now)).and(headOfGroup).and(notPaused)
                    .orderBy(PRIORITY.desc(), VISIBLE_AT.asc(), claimOrderId.asc())
                    .limit(param("limit", Integer.class))
                    .forUpdate().skipLocked()
                    .getSQL(ParamType.INDEXED);
            String nowSql = "(" + dialect.nowMillis(prefix) + ")";
            String leaseUpdateOfPick = "update " + t + " m set lease_token = ?, attempts = m.attempts + 1,"
                    + " claimed_at = " + nowSql + ", visible_at = " + nowSql + " + ? from c where m.ctid = c.loc and m.id = c.id"
                    + " returning m.id, m.priority, m.enqueued_at, m.attempts, m.headers, m.payload, " + nowSql
                    + " as claimed_now, m.group_key, c.was, c.was_token, c.was_claimed";
            leaseClaim = CLAIM_PLAN + "with c as (" + pick + ") " + leaseUpdateOfPick;
            ackAndLeaseClaim = CLAIM_PLAN + deleteLeasedByIds + " returning id; with c as (" + pick + ") " + leaseUpdateOfPick;
            unclaim = "update " + t + " set lease_token = ?, attempts = attempts - 1, claimed_at = ?, visible_at = ?"
                    + " where id = ? and lease_token = ?";
        } else {
            leaseClaim = null;
            ackAndLeaseClaim = null;
            unclaim = null;
            insertMany = null;
        }
        Field<String> outcome = param("outcome", String.class);
        Field<String> detail = param("detail", String.class);
        // the first HistoryEntry.PREVIEW_BYTES bytes of the payload (issue 34): standard SQL SUBSTRING of a binary string
        Field<byte[]> historyPreview = DSL.field("substring({0} from 1 for " + dev.sqlqueue.HistoryEntry.PREVIEW_BYTES + ")",
                byte[].class, PAYLOAD);
        historyLeased = sql(dsl.insertInto(history, ID, QUEUE, ENQUEUED_AT, STARTED_AT, FINISHED_AT, ATTEMPTS, OUTCOME, DETAIL,
                        PAYLOAD_PREVIEW)
                .select(dsl.select(ID, QUEUE, ENQUEUED_AT, DSL.coalesce(CLAIMED_AT, now), now, ATTEMPTS, outcome, detail, historyPreview)
                        .from(message).where(leased)), dsl);
        historyById = sql(dsl.insertInto(history, ID, QUEUE, ENQUEUED_AT, STARTED_AT, FINISHED_AT, ATTEMPTS, OUTCOME, DETAIL,
                        PAYLOAD_PREVIEW)
                .select(dsl.select(ID, QUEUE, ENQUEUED_AT, param("started", Long.class), now, ATTEMPTS.plus(inline(1)), outcome, detail,
                                historyPreview)
                        .from(message).where(byId)), dsl);
        Field<Long> delay = param("delay", Long.class);
        Field<String> error = param("error", String.class);
        nackLeased = sql(dsl.update(message).set(VISIBLE_AT, now.plus(delay)).set(LEASE_TOKEN, NULL_TOKEN).set(LAST_ERROR, error).where(leased), dsl);
        // the lease token of an earlier lease claim goes too: its receipt must not ack the retry put back here
        nackById = sql(dsl.update(message).set(VISIBLE_AT, now.plus(delay)).set(ATTEMPTS, ATTEMPTS.plus(inline(1)))
                .set(LEASE_TOKEN, NULL_TOKEN).set(LAST_ERROR, error).where(byId), dsl);
        extend = sql(dsl.update(message).set(VISIBLE_AT, now.plus(param("lease", Long.class))).where(leased), dsl);
        releaseLeased = sql(dsl.update(message).set(VISIBLE_AT, now).set(LEASE_TOKEN, NULL_TOKEN)
                .set(ATTEMPTS, ATTEMPTS.minus(inline(1))).where(leased), dsl);
        Field<String> reason = param("reason", String.class);
        deadLetterLeased = sql(dsl.insertInto(deadLetter, ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, REASON, DEAD_AT,
                        GROUP_KEY)
                .select(dsl.select(ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, reason, now, GROUP_KEY)
                        .from(message).where(leased)), dsl);
        deadLetterById = sql(dsl.insertInto(deadLetter, ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, REASON, DEAD_AT,
                        GROUP_KEY)
                .select(dsl.select(ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS.plus(inline(1)), HEADERS, PAYLOAD, reason, now, GROUP_KEY)
                        .from(message).where(byId)), dsl);
        setAttempts = sql(dsl.update(message).set(ATTEMPTS, param("attempts", Integer.class)).where(byId), dsl);
        deadLetterMoved = sql(dsl.insertInto(deadLetter, ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, REASON, DEAD_AT,
                        GROUP_KEY)
                .select(dsl.select(ID, QUEUE, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, reason, now, GROUP_KEY)
                        .from(message).where(byId)), dsl);
        Field<Integer> one = inline(1);
        Field<Integer> zero = inline(0);
        // PostgreSQL: the clock as a scalar subquery, evaluated once (an InitPlan) instead of once per row
        // and CASE; stats of a 1,000,000-message queue went from 3.5 s to 1.0 s (docs/backends/postgresql.md).
        // MariaDB folds the plain expression to a constant already; H2 would run the subquery per row.
        Field<Long> nowOnce = dialect == SkipLockedDialect.POSTGRES ? DSL.field(dsl.select(now)) : now;
        // the first column counts every row; ready = that count - in flight - delayed (SkipLockedAdmin.stats), so
        // a row is never left out: H2 calls its clock function once per CASE, and a row whose lease ends between
        // two calls matched none of three separate ready/in-flight/delayed tests (depth 0 with a leased message)
        stats = sql(dsl.select(
                        DSL.count(),
                        DSL.sum(when(VISIBLE_AT.gt(nowOnce).and(LEASE_TOKEN.isNotNull()), one).otherwise(zero)),
                        DSL.sum(when(VISIBLE_AT.gt(nowOnce).and(LEASE_TOKEN.isNull()), one).otherwise(zero)),
                        DSL.min(when(VISIBLE_AT.le(nowOnce), ENQUEUED_AT)),
                        nowOnce,
                        // dead letters and history in the same statement, so in the same snapshot: a message
                        // dead-lettered or acked while stats run is counted once (read in three statements at
                        // READ COMMITTED it was counted in flight and dead, StatsSnapshotOnServerTest)
                        DSL.field(dsl.selectCount().from(deadLetter).where(QUEUE.eq(queue))),
                        DSL.field(dsl.selectCount().from(history).where(QUEUE.eq(queue))))
                .from(message).where(QUEUE.eq(queue)), dsl);
        listHistory = sql(dsl.select(ID, ENQUEUED_AT, STARTED_AT, FINISHED_AT, DURATION_MS, ATTEMPTS, OUTCOME, DETAIL, PAYLOAD_PREVIEW)
                .from(history).where(QUEUE.eq(queue)).orderBy(HISTORY_ID.desc()).limit(param("limit", Integer.class)), dsl);
        listDead = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, REASON, DEAD_AT, GROUP_KEY)
                .from(deadLetter).where(QUEUE.eq(queue)).orderBy(DEAD_AT.asc(), ID.asc()).limit(param("limit", Integer.class)), dsl);
        Field<byte[]> preview = DSL.field("substring({0} from 1 for " + dev.sqlqueue.DeadLetterSummary.PREVIEW_BYTES + ")",
                byte[].class, PAYLOAD);
        Field<Long> payloadLength = DSL.field("octet_length({0})", Long.class, PAYLOAD);
        listDeadSummaries = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, preview, REASON, DEAD_AT, GROUP_KEY,
                        payloadLength)
                .from(deadLetter).where(QUEUE.eq(queue)).orderBy(DEAD_AT.asc(), ID.asc()).limit(param("limit", Integer.class)), dsl);
        deadSummaryById = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, ATTEMPTS, HEADERS, preview, REASON, DEAD_AT, GROUP_KEY,
                        payloadLength)
                .from(deadLetter).where(QUEUE.eq(queue)).and(ID.eq(id)), dsl);
        Field<Long> after = param("after", Long.class);
        listReady = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, VISIBLE_AT, ATTEMPTS, LEASE_TOKEN, CLAIMED_AT, HEADERS, preview,
                        payloadLength, GROUP_KEY, LAST_ERROR, now).from(message).where(QUEUE.eq(queue)).and(ID.gt(after)).and(VISIBLE_AT.le(now))
                .orderBy(ID.asc()).limit(param("limit", Integer.class)), dsl);
        listDelayed = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, VISIBLE_AT, ATTEMPTS, LEASE_TOKEN, CLAIMED_AT, HEADERS, preview,
                        payloadLength, GROUP_KEY, LAST_ERROR, now).from(message)
                .where(QUEUE.eq(queue)).and(ID.gt(after)).and(VISIBLE_AT.gt(now)).and(LEASE_TOKEN.isNull())
                .orderBy(ID.asc()).limit(param("limit", Integer.class)), dsl);
        listInFlight = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, VISIBLE_AT, ATTEMPTS, LEASE_TOKEN, CLAIMED_AT, HEADERS, preview,
                        payloadLength, GROUP_KEY, LAST_ERROR, now).from(message)
                .where(QUEUE.eq(queue)).and(ID.gt(after)).and(VISIBLE_AT.gt(now)).and(LEASE_TOKEN.isNotNull())
                .orderBy(ID.asc()).limit(param("limit", Integer.class)), dsl);
        messageById = sql(dsl.select(ID, PRIORITY, ENQUEUED_AT, VISIBLE_AT, ATTEMPTS, LEASE_TOKEN, CLAIMED_AT, HEADERS, preview,
                        payloadLength, GROUP_KEY, LAST_ERROR, now).from(message)
                .where(QUEUE.eq(queue)).and(ID.eq(id)), dsl);
        lockDeadIds = dsl.select(ID).from(deadLetter).where(QUEUE.eq(queue)).orderBy(ID).forUpdate().getSQL(ParamType.INDEXED);
        lockDeadId = dsl.select(ID).from(deadLetter).where(QUEUE.eq(queue)).and(ID.eq(id)).forUpdate().getSQL(ParamType.INDEXED);
        requeueDead = sql(dsl.insertInto(message, ID, QUEUE, PRIORITY, VISIBLE_AT, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD, LAST_ERROR,
                        GROUP_KEY)
                .select(dsl.select(ID, QUEUE, PRIORITY, now, ENQUEUED_AT, zero, HEADERS, PAYLOAD, REASON, GROUP_KEY)
                        .from(deadLetter).where(QUEUE.eq(queue)).and(ID.eq(id)).and(GROUP_KEY.isNull())), dsl);
        requeueDeadGrouped = sql(dsl.insertInto(message, QUEUE, PRIORITY, VISIBLE_AT, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD,
                        LAST_ERROR, GROUP_KEY)
                .select(dsl.select(QUEUE, PRIORITY, now, ENQUEUED_AT, zero, HEADERS, PAYLOAD, REASON, GROUP_KEY)
                        .from(deadLetter).where(QUEUE.eq(queue)).and(ID.eq(id)).and(GROUP_KEY.isNotNull())), dsl);
        deleteDead = sql(dsl.deleteFrom(deadLetter).where(QUEUE.eq(queue)).and(ID.eq(id)), dsl);
        purgeDead = sql(dsl.deleteFrom(deadLetter).where(QUEUE.eq(queue)), dsl);
        purgeMessages = sql(dsl.deleteFrom(message).where(QUEUE.eq(queue)), dsl);
        purgeHistory = sql(dsl.deleteFrom(history).where(QUEUE.eq(queue)), dsl);
        pruneHistoryAge = sql(dsl.deleteFrom(history).where(QUEUE.eq(queue))
                .and(FINISHED_AT.le(now.minus(param("age", Long.class)))), dsl);
        historyCutoff = sql(dsl.select(HISTORY_ID).from(history).where(QUEUE.eq(queue)).orderBy(HISTORY_ID.desc())
                .offset(param("keep", Integer.class)).limit(inline(1)), dsl);
        pruneHistoryRows = sql(dsl.deleteFrom(history).where(QUEUE.eq(queue))
                .and(HISTORY_ID.le(param("cutoff", Long.class))), dsl);
        historyForMove = sql(dsl.select(HISTORY_ID, ID, ENQUEUED_AT, STARTED_AT, FINISHED_AT, DURATION_MS, ATTEMPTS, OUTCOME, DETAIL,
                        PAYLOAD_PREVIEW)
                .from(history).where(QUEUE.eq(queue)).orderBy(HISTORY_ID.asc()).limit(param("limit", Integer.class)), dsl);
        Field<Long> started = param("started", Long.class);
        Field<Long> finished = param("finished", Long.class);
        insertMovedHistory = sql(dsl.insertInto(history, ID, QUEUE, ENQUEUED_AT, STARTED_AT, FINISHED_AT, ATTEMPTS, OUTCOME, DETAIL,
                        PAYLOAD_PREVIEW)
                .select(dsl.select(id, queue, param("enqueued", Long.class), started, finished,
                                param("attempts", Integer.class), outcome, detail, param("preview", byte[].class))
                        .whereNotExists(dsl.selectOne().from(history).where(QUEUE.eq(param("queue", String.class)))
                                .and(ID.eq(param("id", Long.class))).and(STARTED_AT.eq(param("started", Long.class)))
                                .and(FINISHED_AT.eq(param("finished", Long.class)))
                                .and(OUTCOME.eq(param("outcome", String.class))))), dsl);
        deleteHistoryRow = sql(dsl.deleteFrom(history).where(QUEUE.eq(queue)).and(HISTORY_ID.eq(param("history", Long.class))), dsl);
        deleteQueue = sql(dsl.deleteFrom(queueTable).where(NAME.eq(queue)), dsl);
        listQueues = sql(dsl.select(NAME).from(queueTable).orderBy(NAME), dsl);
        leaseQueue = sql(dsl.select(QUEUE).from(message).where(ID.eq(id)).and(LEASE_TOKEN.eq(token)), dsl);
        rawInsert = sql(dsl.insertInto(message, QUEUE, PRIORITY, VISIBLE_AT, ENQUEUED_AT, ATTEMPTS, HEADERS, PAYLOAD)
                .values(queue, param("priority", Integer.class), now, now, zero, param("headers", String.class),
                        param("payload", byte[].class)), dsl);
        Field<String> key = param("key", String.class);
        Condition thisKey = QUEUE.eq(queue).and(DEDUPE_KEY.eq(key));
        deleteExpiredKey = sql(dsl.deleteFrom(dedupe).where(thisKey).and(EXPIRES_AT.le(now)), dsl);
        var takeKey = dsl.insertInto(dedupe, QUEUE, DEDUPE_KEY, EXPIRES_AT).values(queue, key, now.plus(param("window", Long.class)));
        insertKey = sql(dialect == SkipLockedDialect.H2 ? takeKey : takeKey.onDuplicateKeyIgnore(), dsl);
        setKeyMessage = sql(dsl.update(dedupe).set(MESSAGE_ID, id).where(thisKey), dsl);
        listKeys = sql(dsl.select(DEDUPE_KEY, MESSAGE_ID, EXPIRES_AT.minus(now)).from(dedupe)
                .where(QUEUE.eq(queue)).and(DEDUPE_KEY.gt(param("after", String.class))).and(EXPIRES_AT.gt(now))
                .and(MESSAGE_ID.isNotNull()).orderBy(DEDUPE_KEY.asc()).limit(param("limit", Integer.class)), dsl);
        keyMessage = dialect == SkipLockedDialect.H2
                ? dsl.select(MESSAGE_ID).from(dedupe).where(thisKey).getSQL(ParamType.INDEXED)
                : dsl.select(MESSAGE_ID).from(dedupe).where(thisKey).forShare().getSQL(ParamType.INDEXED);
        Field<Integer> limit = param("limit", Integer.class);
        deleteExpiredKeys = switch (dialect) {
            // MariaDB refuses LIMIT in an IN subquery, but has DELETE ... ORDER BY ... LIMIT
            case MARIADB -> "delete from " + quote(dialect, prefix + "dedupe_key") + " where expires_at <= (" + dialect.nowMillis(prefix)
                    + ") order by expires_at limit ?";
            // H2 and PostgreSQL: the rows of a bounded read of the expiry index
            default -> sql(dsl.deleteFrom(dedupe).where(DSL.row(QUEUE, DEDUPE_KEY).in(
                    dsl.select(QUEUE, DEDUPE_KEY).from(dedupe).where(EXPIRES_AT.le(now)).orderBy(EXPIRES_AT).limit(limit))), dsl);
        };
        deleteKeys = sql(dsl.deleteFrom(dedupe).where(QUEUE.eq(queue)), dsl);
        historyBuckets = "select b, outcome, count(*), avg(lat) from (select floor(finished_at / ?) as b, outcome,"
                + " finished_at - enqueued_at as lat from " + quote(dialect, prefix + "history") + " where queue = ? and finished_at >= ?)"
                + " t group by b, outcome order by b, outcome";
        Field<String> pausedQueue = field(unquotedName("queue"), SQLDataType.VARCHAR);
        pauseQueue = sql(dsl.insertInto(paused, pausedQueue, field(unquotedName("paused_at"), SQLDataType.BIGINT))
                .select(dsl.select(queue, now).whereNotExists(dsl.selectOne().from(paused)
                        .where(pausedQueue.eq(param("queue2", String.class))))), dsl);
        resumeQueue = sql(dsl.deleteFrom(paused).where(pausedQueue.eq(queue)), dsl);
        queuePaused = sql(dsl.selectOne().from(paused).where(pausedQueue.eq(queue)), dsl);
        dropSchema = List.of(
                sql(dsl.dropTableIfExists(paused), dsl),
                sql(dsl.dropTableIfExists(dedupe), dsl),
                sql(dsl.dropTableIfExists(history), dsl),
                sql(dsl.dropTableIfExists(deadLetter), dsl),
                sql(dsl.dropTableIfExists(message), dsl),
                sql(dsl.dropTableIfExists(queueTable), dsl),
                sql(dsl.dropTableIfExists(table(quotedName(prefix + "schema_history"))), dsl));
        Map<String, String> empty = new LinkedHashMap<>();
        if (dialect == SkipLockedDialect.H2) {
            empty.put(prefix + "paused_queue", sql(dsl.deleteFrom(paused), dsl));
            empty.put(prefix + "dedupe_key", sql(dsl.deleteFrom(dedupe), dsl));
            empty.put(prefix + "history", sql(dsl.deleteFrom(history), dsl));
            empty.put(prefix + "dead_letter", sql(dsl.deleteFrom(deadLetter), dsl));
            empty.put(prefix + "message", sql(dsl.deleteFrom(message), dsl));
            empty.put(prefix + "queue", sql(dsl.deleteFrom(queueTable), dsl));
        }
        emptyBeforeDrop = Collections.unmodifiableMap(empty);
        channel = prefix + "wakeup";
        notify = dialect == SkipLockedDialect.POSTGRES ? "select pg_notify(?, ?)" : null;
        listen = dialect == SkipLockedDialect.POSTGRES ? "listen \"" + channel + "\"" : null;
        dropFunction = dialect == SkipLockedDialect.H2 ? "DROP ALIAS IF EXISTS \"" + prefix + "now_ms\"" : null;
        oldestTransactions = dialect == SkipLockedDialect.POSTGRES ? OLDEST_TRANSACTIONS_POSTGRES
                : dialect == SkipLockedDialect.MARIADB ? OLDEST_TRANSACTIONS_MARIADB : null;
    }

    private static String quote(SkipLockedDialect dialect, String name) {
        return dialect == SkipLockedDialect.MARIADB ? "`" + name + "`" : "\"" + name + "\"";
    }

    private static String sql(Query q, DSLContext dsl) {
        return dsl.render(q);
    }

    /** MariaDB: the most ids one statement of {@link #leaseUpdateIn} or {@link #deleteLeasedIn} lists (a claim's most). */
    public static final int MAX_IDS_PER_STATEMENT = 1000;

    /**
     * MariaDB only (else null): (token, lease ms, then {@code rows} ids): the lease of the rows a claim's locking
     * select returned, in one statement where a JDBC batch of {@link #leaseUpdate} ran one statement per row (the
     * rows are locked by the claim's transaction, so every id matches).
     *
     * @param rows 1..{@link #MAX_IDS_PER_STATEMENT}
     * @return the statement, or null on the other databases
     */
    public String leaseUpdateIn(int rows) {
        if (!idLists) {
            return null;
        }
        String byId = " where id = ?";
        if (!leaseUpdate.endsWith(byId)) {
            throw new IllegalStateException("unexpected lease update: " + leaseUpdate);
        }
        return leaseUpdate.substring(0, leaseUpdate.length() - byId.length()) + " where id in (" + marks(rows) + ")";
    }

    /**
     * MariaDB only (else null): (token, queue, then {@code rows} ids): the acks of receipts of one claim in one
     * statement; the rows it deleted are those still held under the claim's token, so a count short of
     * {@code rows} means a lease was lost (the caller rolls back and acks row by row to learn which). The ids
     * are found by the primary key.
     *
     * @param rows 1..{@link #MAX_IDS_PER_STATEMENT}
     * @return the statement, or null on the other databases
     */
    public String deleteLeasedIn(int rows) {
        if (!idLists) {
            return null;
        }
        return "delete from " + messageTable + " where lease_token = ? and queue = ? and id in (" + marks(rows) + ")";
    }

    private static String marks(int rows) {
        if (rows < 1 || rows > MAX_IDS_PER_STATEMENT) {
            throw new IllegalArgumentException("ids per statement must be 1.." + MAX_IDS_PER_STATEMENT + ", was " + rows);
        }
        StringBuilder b = new StringBuilder(rows * 3);
        for (int i = 0; i < rows; i++) {
            b.append(i == 0 ? "?" : ", ?");
        }
        return b.toString();
    }

    /**
     * The Flyway schema history table of this prefix.
     *
     * @param prefix the table prefix
     * @return the table name
     */
    public static String flywayTable(String prefix) {
        return prefix + "schema_history";
    }

    /**
     * {@link #insertReturning} for {@code rows} messages in one statement: the values tuple repeated, binds
     * (queue, priority, delay ms, headers, payload, group) per row in message order. The rows get their ids in
     * the order of the tuples (one auto-increment or identity value after the other), so the ids read back,
     * sorted, belong to the messages in order whatever order the database returns them in.
     *
     * @param rows 1 or more
     * @return the statement text
     * @throws IllegalStateException on PostgreSQL, which has {@link #insertMany}
     */
    public String insertRows(int rows) {
        if (insertReturning == null) {
            throw new IllegalStateException("no multi-row insert on this dialect");
        }
        int at = insert.indexOf(" values (");
        String tuple = insert.substring(at + " values ".length());
        String many = insert.substring(0, at) + " values " + String.join(", ", java.util.Collections.nCopies(rows, tuple));
        return insertReturning.replace(insert, many);
    }
}
