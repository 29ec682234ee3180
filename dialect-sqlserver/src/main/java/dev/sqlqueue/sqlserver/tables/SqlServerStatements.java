package dev.sqlqueue.sqlserver.tables;

import static dev.sqlqueue.sqlserver.tables.SqlServerNames.qualified;
import static dev.sqlqueue.sqlserver.tables.SqlServerNames.quote;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every SQL statement of the {@code sqlserver} backend, built once from the validated table prefix,
 * schema and claim order. Every identifier is delimited with {@link SqlServerNames#quote} and
 * schema-qualified; queue names, ids, tokens, payloads and times are always bind values ({@code ?}).
 *
 * <p>Each statement run on the backend's own connections starts with {@code SET NOCOUNT ON; SET XACT_ABORT ON;}:
 * no row-count messages, and any run-time error rolls back the whole transaction. The manual restores a
 * SET option after a dynamic SQL batch run by {@code sp_executesql} or {@code EXECUTE} ("SET Statements
 * (Transact-SQL)", considerations); a SET in a plain SQL batch stays on the session. mssql-jdbc sends
 * prepared statements as {@code sp_executesql}/{@code sp_prepexec} RPCs, except with
 * {@code prepareMethod=none} (13.4+), which sends plain batches: {@link Sessions} therefore switches such a
 * connection to {@code prepexec} while it holds it (review finding 1). Whether {@code sp_prepexec} and
 * {@code sp_execute} restore SETs like {@code sp_executesql} is not written in the manual; probe V2 measures
 * it. {@code enqueueJoined} runs on the caller's connection and sets nothing. Statements whose effect must
 * be counted end with {@code SELECT @@ROWCOUNT}, which NOCOUNT does not suppress.
 *
 * <p>The claim also sets {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED} in its own batch (review
 * finding 9: the driver's cached isolation level can be wrong after raw SQL changed it) and forces a seek
 * on the claim index ({@code FORCESEEK, INDEX (claim index)}, manual "Table hints (Transact-SQL)"; review
 * finding 3), so a plan compiled on a near-empty table cannot scan and U-lock the whole backlog; if no
 * seek plan exists the claim fails with error 8622 instead of scanning.
 *
 * <p>The reason for every hint is in {@code docs/backends/sqlserver.md}. Sources: manual "Table hints
 * (Transact-SQL)" (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK, NOLOCK, REPEATABLEREAD, HOLDLOCK),
 * "OUTPUT clause (Transact-SQL)" (OUTPUT and OUTPUT INTO, whose target has no triggers, foreign keys or
 * check constraints), "WITH common_table_expression" (UPDATE through a CTE with TOP and ORDER BY),
 * "Transaction locking and row versioning guide" (lock escalation at about 5,000 locks per statement
 * and table, hence batches of at most 500), "SET Statements (Transact-SQL)".
 *
 * <p>Nothing here has been run against SQL Server; the texts are pinned by unit tests.
 * Immutable and thread-safe.
 */
public final class SqlServerStatements {
    static final String PRELUDE = "SET NOCOUNT ON; SET XACT_ABORT ON; ";
    /** The claim's own isolation level, whatever the driver believes the session's is (review finding 9). */
    static final String CLAIM_ISOLATION = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; ";
    static final String ROWCOUNT = "; SELECT @@ROWCOUNT AS [n]";
    /**
     * The keyed statements' own prelude: XACT_ABORT OFF, so that a duplicate-key error stays a statement-level
     * error their CATCH can answer (see {@link #takeKey}).
     */
    static final String KEYED_PRELUDE = "SET NOCOUNT ON; SET XACT_ABORT OFF; ";
    /**
     * Which engine answers ({@link SqlServerEngine}) and which SQL Server it is: {@code SERVERPROPERTY('Babelfish')}
     * is 1 on Babelfish and NULL on SQL Server; {@code ProductMajorVersion} (14 = 2017; SQL Server 2012 and later,
     * NULL before) and {@code EngineEdition} (5 = Azure SQL Database, 8 = Azure SQL Managed Instance, which report
     * the version 12 whatever their engine's age): "SERVERPROPERTY (Transact-SQL)". Read before the migration, so it
     * needs no table.
     */
    public static final String DETECT_ENGINE = "SELECT CAST(SERVERPROPERTY('Babelfish') AS int) AS [babelfish],"
            + " CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS [major], CAST(SERVERPROPERTY('EngineEdition') AS int)"
            + " AS [edition];";
    /** Largest number of rows one purge, requeue or archive statement touches (lock escalation: ~5,000). */
    public static final int MAINTENANCE_BATCH = 500;

    private final String prefix;
    private final String schema;
    private final ClaimOrder order;
    private final SqlServerEngine engine;
    final String messages;
    final String deadLetters;
    final String history;
    final String queues;
    final String settings;
    final String dedupeKeys;
    private final Map<String, String> all = new LinkedHashMap<>();
    private final Map<String, String> probes = new LinkedHashMap<>();

    /**
     * @param tablePrefix {@link dev.sqlqueue.QueueConfig#tablePrefix()} (already validated by QueueConfig)
     * @param schema the schema, validated by {@link SqlServerNames#schema}
     * @param order the claim order
     */
    public SqlServerStatements(String tablePrefix, String schema, ClaimOrder order) {
        this(tablePrefix, schema, order, SqlServerEngine.SQL_SERVER);
    }

    /**
     * @param tablePrefix {@link dev.sqlqueue.QueueConfig#tablePrefix()} (already validated by QueueConfig)
     * @param schema the schema, validated by {@link SqlServerNames#schema}
     * @param order the claim order
     * @param engine the engine the statements are for: only the claim's text differs
     */
    public SqlServerStatements(String tablePrefix, String schema, ClaimOrder order, SqlServerEngine engine) {
        this.engine = engine;
        this.prefix = tablePrefix;
        this.schema = SqlServerNames.schema(schema);
        this.order = order;
        this.messages = qualified(schema, tablePrefix + "messages");
        this.deadLetters = qualified(schema, tablePrefix + "dead_letters");
        this.history = qualified(schema, tablePrefix + "history");
        this.queues = qualified(schema, tablePrefix + "queues");
        this.settings = qualified(schema, tablePrefix + "settings");
        this.dedupeKeys = qualified(schema, tablePrefix + "dedupe_keys");
        build();
        buildProbes();
    }

    /**
     * The ORDER BY key of the claim, which is also the key of the claim index after {@code queue_name}.
     *
     * @return the column list, for example {@code priority DESC, id}
     */
    public String claimKey() {
        return switch (order) {
            case FIFO -> "[visible_at], [id]";
            case LIFO -> "[visible_at] DESC, [id] DESC";
            case PRIORITY_FIRST -> "[priority] DESC, [visible_at], [id]";
        };
    }

    /**
     * The claim index, delimited: {@code [<prefix>messages_claim]} (also the migration's index name).
     *
     * @return the bracket-quoted index name
     */
    public String claimIndex() {
        return quote(prefix + "messages_claim");
    }

    /**
     * The claim's table hints: row locks, skip locked rows, update locks, locking read, and only index seeks
     * through the claim index ({@code FORCESEEK, INDEX (...)}, the combination "Table hints (Transact-SQL)"
     * documents). Not the parameterized {@code FORCESEEK (index (columns))}: the same page forbids that
     * form on a table that is the target of an UPDATE, which the CTE's table is.
     *
     * @return the T-SQL text
     */
    public String claimHints() {
        return "WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK, FORCESEEK, INDEX (" + claimIndex() + "))";
    }

    /**
     * Every statement by name, in a stable order (for tests and docs).
     *
     * @return the statements by name, unmodifiable
     */
    public Map<String, String> all() {
        return Collections.unmodifiableMap(all);
    }

    /**
     * One statement by name. @throws IllegalArgumentException for an unknown name
     *
     * @param name the statement's name, as the keys of the map above
     * @return the statement text
     */
    public String get(String name) {
        String s = all.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no statement " + name);
        }
        return s;
    }

    /**
     * The name of a statement or probe statement text, or null (test doubles use this to record readable call sequences).
     *
     * @param sql the T-SQL text
     * @return the name, or null when the text is not one of these statements
     */
    public String nameOf(String sql) {
        return java.util.stream.Stream.concat(all.entrySet().stream(), probes.entrySet().stream())
                .filter(e -> e.getValue().equals(sql)).map(Map.Entry::getKey).findFirst().orElse(null);
    }

    /**
     * The statements of the server probes ({@link dev.sqlqueue.sqlserver.tables.probe.SqlServerProbes}) by name, in a stable order. They read
     * catalog and dynamic management views (needing VIEW SERVER STATE or, on Azure SQL, VIEW DATABASE
     * STATE) and write only the probe's own prefixed tables.
     *
     * @return the probe statements by name, unmodifiable
     */
    public Map<String, String> allProbes() {
        return Collections.unmodifiableMap(probes);
    }

    /**
     * One probe statement by name. @throws IllegalArgumentException for an unknown name
     *
     * @param name the statement's name, as the keys of the map above
     * @return the probe statement text
     */
    public String probe(String name) {
        String s = probes.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no probe statement " + name);
        }
        return s;
    }

    /**
     * The probes' statements. Sources: manual "sys.dm_tran_locks", "SET STATISTICS XML (Transact-SQL)" (an
     * actual plan after each statement's own results), "sys.dm_db_index_operational_stats"
     * (page_latch_wait_count/_in_ms, row_lock_wait_count/_in_ms, index_lock_promotion_attempt_count,
     * index_lock_promotion_count), "sys.dm_db_index_physical_stats" (ghost_record_count in SAMPLED/DETAILED mode),
     * "sys.dm_os_performance_counters" (per-second counters are cumulative: two samples, the difference),
     * "@@OPTIONS" (512 NOCOUNT, 16384 XACT_ABORT), "sys.dm_exec_sessions" (transaction_isolation_level),
     * "SET TRANSACTION ISOLATION LEVEL" (stays for the connection until changed), "SET LOCK_TIMEOUT",
     * "WAITFOR", "sp_autostats", "sys.databases" (is_read_committed_snapshot_on, snapshot_isolation_state).
     * Statements a probe runs as plain batches on purpose (so that their SET stays on the session) say so.
     */
    private void buildProbes() {
        // 100,000-row fill: even n priority 5 delayed one hour, odd n priority 0 ready. Binds: 1 queue, 2 rows.
        probes.put("probeFill", PRELUDE + "INSERT INTO " + messages
                + " ([queue_name], [priority], [visible_at], [enqueued_at], [payload], [headers])"
                + " SELECT ?, CASE WHEN [n] % 2 = 0 THEN 5 ELSE 0 END,"
                + " DATEADD(second, CASE WHEN [n] % 2 = 0 THEN 3600 ELSE -1 END, SYSUTCDATETIME()), SYSUTCDATETIME(),"
                + " CAST(REPLICATE('x', 200) AS varbinary(max)), N''"
                + " FROM (SELECT TOP (?) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS [n]"
                + " FROM sys.all_columns AS [a] CROSS JOIN sys.all_columns AS [b]) AS [t];");
        // Keep the plan compiled on the empty table: no automatic statistics update on this table. Binds: 1 table.
        probes.put("probeAutostatsOff", "EXEC sp_autostats @tblname = ?, @flagc = 'OFF';");
        // Locks the session holds in this database, per resource type, mode and index.
        probes.put("probeLocks", "SELECT [l].[resource_type], [l].[request_mode], COALESCE([i].[name], N'-') AS [index_name],"
                + " COUNT_BIG(*) AS [n] FROM sys.dm_tran_locks AS [l]"
                + " LEFT JOIN sys.partitions AS [p] ON [l].[resource_type] IN (N'KEY', N'PAGE', N'RID', N'HOBT')"
                + " AND [p].[hobt_id] = [l].[resource_associated_entity_id]"
                + " LEFT JOIN sys.indexes AS [i] ON [i].[object_id] = [p].[object_id] AND [i].[index_id] = [p].[index_id]"
                + " WHERE [l].[request_session_id] = @@SPID AND [l].[resource_database_id] = DB_ID()"
                + " GROUP BY [l].[resource_type], [l].[request_mode], [i].[name]"
                + " ORDER BY [l].[resource_type], [l].[request_mode], [index_name];");
        // Plain batches (review P6): every later statement of the session returns its actual plan after its own
        // results, until switched off.
        probes.put("probeStatisticsXmlOn", "SET STATISTICS XML ON;");
        probes.put("probeStatisticsXmlOff", "SET STATISTICS XML OFF;");
        probes.put("probeOptions", "SELECT @@OPTIONS AS [options], [transaction_isolation_level] AS [isolation]"
                + " FROM sys.dm_exec_sessions WHERE [session_id] = @@SPID;");
        // Plain batches (review P1): a session level other than the claim's READ COMMITTED, which stays on the
        // session; READ UNCOMMITTED where the server refuses SERIALIZABLE.
        probes.put("probeSerializable", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;");
        probes.put("probeReadUncommitted", "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;");
        // Page latch waits per index of a table since its metadata was cached. Binds: 1 table.
        probes.put("probeLatches", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name],"
                + " SUM([s].[page_latch_wait_count]) AS [waits], SUM([s].[page_latch_wait_in_ms]) AS [wait_ms]"
                + " FROM sys.dm_db_index_operational_stats(DB_ID(), OBJECT_ID(?), NULL, NULL) AS [s]"
                + " JOIN sys.indexes AS [i] ON [i].[object_id] = [s].[object_id] AND [i].[index_id] = [s].[index_id]"
                + " GROUP BY [i].[name] ORDER BY [index_name];");
        // Ghost records per index of a table (DETAILED reads every page: the probe's table only). Binds: 1 table.
        probes.put("probeGhosts", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name],"
                + " SUM([s].[ghost_record_count]) AS [ghosts], SUM([s].[version_ghost_record_count]) AS [version_ghosts],"
                + " SUM([s].[page_count]) AS [pages]"
                + " FROM sys.dm_db_index_physical_stats(DB_ID(), OBJECT_ID(?), NULL, NULL, 'DETAILED') AS [s]"
                + " JOIN sys.indexes AS [i] ON [i].[object_id] = [s].[object_id] AND [i].[index_id] = [s].[index_id]"
                + " GROUP BY [i].[name] ORDER BY [index_name];");
        // Lock and latch counters per index of a table (review P8). Binds: 1 table.
        probes.put("probeIndexStats", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name],"
                + " SUM([s].[row_lock_wait_count]) AS [row_lock_waits], SUM([s].[row_lock_wait_in_ms]) AS [row_lock_wait_ms],"
                + " SUM([s].[page_lock_wait_count]) AS [page_lock_waits],"
                + " SUM([s].[page_latch_wait_count]) AS [page_latch_waits], SUM([s].[page_latch_wait_in_ms]) AS [page_latch_wait_ms],"
                + " SUM([s].[index_lock_promotion_attempt_count]) AS [promotion_attempts],"
                + " SUM([s].[index_lock_promotion_count]) AS [promotions]"
                + " FROM sys.dm_db_index_operational_stats(DB_ID(), OBJECT_ID(?), NULL, NULL) AS [s]"
                + " JOIN sys.indexes AS [i] ON [i].[object_id] = [s].[object_id] AND [i].[index_id] = [s].[index_id]"
                + " GROUP BY [i].[name] ORDER BY [index_name];");
        // Server-wide lock counters (every session's, not only the probe's).
        probes.put("probeLockCounters", "SELECT RTRIM([counter_name]) AS [counter_name], [cntr_value] AS [value]"
                + " FROM sys.dm_os_performance_counters WHERE RTRIM([object_name]) LIKE N'%:Locks'"
                + " AND [instance_name] = N'_Total' AND [counter_name] IN (N'Number of Deadlocks/sec', N'Lock Timeouts/sec',"
                + " N'Lock Timeouts (timeout > 0)/sec', N'Lock Waits/sec') ORDER BY [counter_name];");
        probes.put("probeDatabaseVersioning", "SELECT [is_read_committed_snapshot_on], [snapshot_isolation_state]"
                + " FROM sys.databases WHERE [database_id] = DB_ID();");
        // Starts a SNAPSHOT transaction's snapshot (it begins at the first data read).
        probes.put("probeTouchQueues", "SELECT COUNT_BIG(*) AS [n] FROM " + queues + ";");
        // Review P7, attention: an open transaction holding the queue row's X lock. Binds: 1 queue.
        probes.put("probeHoldQueueRow", "UPDATE " + queues + " WITH (ROWLOCK) SET [created_at] = [created_at] WHERE [name] = ?;");
        probes.put("probeTrancount", "SELECT @@TRANCOUNT AS [trancount];");
        // A statement the probe's 1 s query timeout interrupts (an attention), under each XACT_ABORT setting.
        probes.put("probeWaitXactAbortOff", "SET NOCOUNT ON; SET XACT_ABORT OFF; WAITFOR DELAY '00:00:05';");
        probes.put("probeWaitXactAbortOn", PRELUDE + "WAITFOR DELAY '00:00:05';");
        // Plain batch: every lock wait of the session ends with error 1222 after 5 s (review P7, P8).
        probes.put("probeLockTimeout", "SET LOCK_TIMEOUT 5000;");
        // Expired keys to clean up (review P7). Binds: 1 queue, 2 rows.
        probes.put("probeExpiredKeys", PRELUDE + "INSERT INTO " + dedupeKeys
                + " ([queue_name], [dedupe_key], [message_id], [expires_at])"
                + " SELECT ?, CONCAT(N'probe-expired-', [n], N'.'), 0, DATEADD(second, -60, SYSUTCDATETIME())"
                + " FROM (SELECT TOP (?) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS [n] FROM sys.all_columns) AS [t];");
        // deleteExpiredKeysBatch without READCOMMITTEDLOCK, for comparison only. Binds: 1 batch size.
        probes.put("probeExpiredKeysWithoutLockHint", PRELUDE + "DELETE TOP (?) FROM " + dedupeKeys + " WITH (ROWLOCK, READPAST)"
                + " WHERE [expires_at] <= SYSUTCDATETIME()" + ROWCOUNT + ";");
    }

    private static final String MATCH = " WHERE [id] = ? AND [queue_name] = ? AND [lease_token] = ?";
    /**
     * The claim's pause check (QueueAdmin.pause, migration V4): the claimed queue's row must not be marked paused. A
     * seek on the queue table's primary key, completed by the queue ({@code [queue_name]}, correlated, on SQL Server,
     * so that the claim keeps its binds; {@code @q} on Babelfish) and a closing parenthesis. No hint: a read of the
     * queue row at the claim's READ COMMITTED, which a pause or resume holds only for its one-row update.
     */
    private String notPaused;
    private static final String DELAY = "DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME()))";

    private void build() {
        notPaused = " AND NOT EXISTS (SELECT 1 FROM " + queues + " AS [p] WHERE [p].[paused] = 1 AND [p].[name] = ";
        all.put("claim", engine == SqlServerEngine.BABELFISH ? babelfishClaim() : cteClaim());
        all.put("moveClaim", engine == SqlServerEngine.BABELFISH ? babelfishMoveClaim() : cteMoveClaim());
        // enqueue: only into an existing queue that is not being dropped; REPEATABLEREAD keeps the queue row
        // share-locked until commit so that dropQueue cannot mark it under a running enqueue.
        // Binds: 1 priority, 2 delay s, 3 delay ms, 4 payload, 5 headers, 6 queue.
        all.put("enqueue", PRELUDE + "INSERT INTO " + messages
                + " ([queue_name], [priority], [visible_at], [enqueued_at], [payload], [headers])"
                + " OUTPUT inserted.[id]"
                + " SELECT [q].[name], ?, " + DELAY + ", SYSUTCDATETIME(), ?, ?"
                + " FROM " + queues + " AS [q] WITH (ROWLOCK, REPEATABLEREAD) WHERE [q].[name] = ? AND [q].[dropping] = 0;");
        // enqueue in the caller's transaction: no SET at all. A SET in a plain batch (mssql-jdbc
        // prepareMethod=none) would stay on the caller's session: XACT_ABORT would doom the caller's
        // transaction on any later error, NOCOUNT would hide its update counts. NOCOUNT is not needed here:
        // executeQuery skips the INSERT's update count before the OUTPUT rows (mssql-jdbc
        // SQLServerStatement.onDone). Binds as enqueue.
        all.put("enqueueJoined", all.get("enqueue").substring(PRELUDE.length()));
        // enqueue with a deduplication key (Message.deduplicationKey), one batch (review N1: no key-range locks).
        // If the queue is missing or being dropped: an empty result, as "enqueue" (no key is taken). Else
        // take the key (TAKE_KEY below); a key held by a message is a duplicate: that message's id; else insert
        // the message and write its id into the key row. XACT_ABORT is OFF in this batch, so that a duplicate-key
        // error (2627) raised by a concurrent producer of the same key stays a statement-level error that the
        // CATCH turns into the answer "duplicate" ("SET XACT_ABORT", "TRY...CATCH": with XACT_ABORT OFF a
        // constraint violation leaves the transaction committable, XACT_STATE() = 1); every other error is
        // rethrown, and Sessions rolls the transaction back. Binds: 1 queue, 2 stored key (the key + ".": "="
        // ignores trailing spaces even under BIN2), 3 window s, 4 window ms, 5 priority, 6 delay s, 7 delay ms,
        // 8 payload, 9 headers.
        all.put("enqueueKeyed", KEYED_PRELUDE + "DECLARE @q nvarchar(48) = ?; DECLARE @k nvarchar(129) = ?;"
                + " DECLARE @ws int = ?; DECLARE @wms int = ?; DECLARE @id bigint;"
                + " DECLARE @new TABLE ([id] bigint NOT NULL);"
                + " IF NOT EXISTS (SELECT 1 FROM " + queues + " AS [q] WITH (ROWLOCK, REPEATABLEREAD)"
                + " WHERE [q].[name] = @q AND [q].[dropping] = 0)"
                + " SELECT CAST(NULL AS bigint) AS [id], 0 AS [duplicate] WHERE 1 = 0; ELSE BEGIN " + takeKey()
                + " IF @id IS NOT NULL SELECT @id AS [id], 1 AS [duplicate]; ELSE BEGIN"
                + " INSERT INTO " + messages + " ([queue_name], [priority], [visible_at], [enqueued_at], [payload], [headers])"
                + " OUTPUT inserted.[id] INTO @new ([id]) VALUES (@q, ?, " + DELAY + ", SYSUTCDATETIME(), ?, ?);"
                + " UPDATE " + dedupeKeys + " WITH (ROWLOCK) SET [message_id] = (SELECT [id] FROM @new)"
                + " WHERE [queue_name] = @q AND [dedupe_key] = @k;"
                + " SELECT [id], 0 AS [duplicate] FROM @new; END; END;");
        // the same in the caller's transaction: no SET (see enqueueJoined). With the caller's XACT_ABORT OFF
        // (the default) a concurrent producer's duplicate-key error is answered as above; with it ON that error
        // dooms the caller's transaction (XACT_STATE() = -1) and is rethrown (SqlServerQueueBackend explains it).
        all.put("enqueueKeyedJoined", all.get("enqueueKeyed").substring(KEYED_PRELUDE.length()));
        // a batch's keys, each taken on its own before any message of the batch, in one order (the stored key,
        // ascending) so that two batches never wait for each other's keys crosswise (review N1). Returns the
        // message id holding the key: NULL when this call took it, 0 when this transaction took it earlier.
        // Binds: 1 queue, 2 stored key, 3 window s, 4 window ms.
        all.put("takeKey", KEYED_PRELUDE + "DECLARE @q nvarchar(48) = ?; DECLARE @k nvarchar(129) = ?;"
                + " DECLARE @ws int = ?; DECLARE @wms int = ?; DECLARE @id bigint; " + takeKey()
                + " SELECT @id AS [message_id];");
        // a key taken by takeKey gets its message. Binds: 1 message id, 2 queue, 3 stored key.
        all.put("bindKey", PRELUDE + "UPDATE " + dedupeKeys + " WITH (ROWLOCK) SET [message_id] = ?"
                + " WHERE [queue_name] = ? AND [dedupe_key] = ? AND [message_id] = 0" + ROWCOUNT + ";");
        // at most n expired keys of any queue, through the expiry index; READPAST skips keys held by running
        // enqueues. Binds: 1 batch size.
        all.put("deleteExpiredKeysBatch", PRELUDE + "DELETE TOP (?) FROM " + dedupeKeys + " WITH (ROWLOCK, READPAST, READCOMMITTEDLOCK)"
                + " WHERE [expires_at] <= SYSUTCDATETIME()" + ROWCOUNT + ";");
        // dropQueue: the queue's keys. Binds: 1 batch size, 2 queue.
        all.put("purgeKeysBatch", PRELUDE + "DELETE TOP (?) FROM " + dedupeKeys + " WITH (ROWLOCK) WHERE [queue_name] = ?"
                + ROWCOUNT + ";");
        // Binds of the settle statements end with: id, queue, token.
        all.put("ack", PRELUDE + "DELETE FROM " + messages + " WITH (ROWLOCK)" + MATCH + ROWCOUNT + ";");
        // Binds: 1 detail, then id, queue, token. The history row keeps the payload's first 64 bytes (V5).
        all.put("ackToHistory", PRELUDE + "DELETE FROM " + messages + " WITH (ROWLOCK)"
                + " OUTPUT deleted.[id], deleted.[queue_name], deleted.[enqueued_at], deleted.[started_at],"
                + " SYSUTCDATETIME(), deleted.[attempts], N'acked', ?, SUBSTRING(deleted.[payload], 1, " + HistoryEntry.PREVIEW_BYTES + ")"
                + " INTO " + history + " ([message_id], [queue_name], [enqueued_at], [started_at], [finished_at],"
                + " [attempts], [outcome], [detail], [payload_preview])" + MATCH + ROWCOUNT + ";");
        // Binds: 1 delay s, 2 delay ms, 3 error, then id, queue, token.
        all.put("nack", PRELUDE + "UPDATE " + messages + " WITH (ROWLOCK) SET [visible_at] = " + DELAY
                + ", [lease_token] = NULL, [last_error] = ?" + MATCH + ROWCOUNT + ";");
        // Binds: 1 lease ms, then id, queue, token.
        all.put("extend", PRELUDE + "UPDATE " + messages + " WITH (ROWLOCK) SET [visible_at] ="
                + " DATEADD(millisecond, ?, SYSUTCDATETIME())" + MATCH + ROWCOUNT + ";");
        all.put("release", PRELUDE + "UPDATE " + messages + " WITH (ROWLOCK) SET [visible_at] = SYSUTCDATETIME(),"
                + " [lease_token] = NULL, [attempts] = [attempts] - 1" + MATCH + ROWCOUNT + ";");
        // Transactional mode, partial release: put back the visibility the claim found. Binds: 1 prior visible_at, then id, queue, token.
        all.put("releaseRestore", PRELUDE + "UPDATE " + messages + " WITH (ROWLOCK) SET [visible_at] = ?,"
                + " [lease_token] = NULL, [attempts] = [attempts] - 1" + MATCH + ROWCOUNT + ";");
        // Binds: 1 reason, then id, queue, token.
        all.put("deadLetter", PRELUDE + "DELETE FROM " + messages + " WITH (ROWLOCK)"
                + " OUTPUT deleted.[id], deleted.[queue_name], deleted.[priority], deleted.[payload], deleted.[headers],"
                + " deleted.[attempts], ?, deleted.[enqueued_at], deleted.[started_at], SYSUTCDATETIME()"
                + " INTO " + deadLetters + " ([message_id], [queue_name], [priority], [payload], [headers], [attempts],"
                + " [reason], [enqueued_at], [started_at], [dead_at])" + MATCH + ROWCOUNT + ";");
        // Binds: 1 message id, 2 queue.
        all.put("historyFromDeadLetter", PRELUDE + "INSERT INTO " + history
                + " ([message_id], [queue_name], [enqueued_at], [started_at], [finished_at], [attempts], [outcome], [detail],"
                + " [payload_preview])"
                + " SELECT [message_id], [queue_name], [enqueued_at], [started_at], [dead_at], [attempts], N'dead-lettered', [reason],"
                + " SUBSTRING([payload], 1, " + HistoryEntry.PREVIEW_BYTES + ")"
                + " FROM " + deadLetters + " WITH (ROWLOCK) WHERE [message_id] = ? AND [queue_name] = ?;");
        // After a lease-mode settle matched no row, in its transaction: the queue the row is held in under
        // this token (issue 14: a receipt naming another queue is bad input, not a lost lease). Binds: 1 id, 2 token.
        all.put("leaseQueue", PRELUDE + "SELECT [queue_name] FROM " + messages + " WITH (ROWLOCK)"
                + " WHERE [id] = ? AND [lease_token] = ?;");
        // Creates the queue row if missing and returns its dropping flag: 1 is a queue whose drop has not
        // finished (review N10; the caller refuses it). Binds: 1 queue name, 2 queue name, 3 queue name.
        all.put("createQueue", PRELUDE + "INSERT INTO " + queues + " ([name], [created_at])"
                + " SELECT ?, SYSUTCDATETIME() WHERE NOT EXISTS (SELECT 1 FROM " + queues
                + " WITH (UPDLOCK, HOLDLOCK) WHERE [name] = ?);"
                + " SELECT [dropping] FROM " + queues + " WITH (ROWLOCK) WHERE [name] = ?;");
        // The queue's row as a session outside the caller's transaction sees it: no row (missing), dropping 0 or 1.
        // Binds: 1 queue name.
        all.put("queueState", PRELUDE + "SELECT [dropping] FROM " + queues + " WITH (ROWLOCK) WHERE [name] = ?;");
        // dropQueue, first step: enqueue and auto-create refuse a dropping queue. Binds: 1 queue.
        all.put("markDropping", PRELUDE + "UPDATE " + queues + " WITH (ROWLOCK) SET [dropping] = 1 WHERE [name] = ?"
                + ROWCOUNT + ";");
        // dropQueue, last step, after its rows are gone. Binds: 1 queue.
        all.put("deleteQueue", PRELUDE + "DELETE FROM " + queues + " WITH (ROWLOCK) WHERE [name] = ?" + ROWCOUNT + ";");
        all.put("listQueues", PRELUDE + "SELECT [name] FROM " + queues + " WHERE [dropping] = 0;");
        // QueueAdmin.pause and resume: set or clear the queue row's mark (migration V4); 1 when this call changed it.
        // Binds: 1 queue.
        all.put("pauseQueue", PRELUDE + "UPDATE " + queues + " WITH (ROWLOCK) SET [paused] = 1 WHERE [name] = ? AND [paused] = 0"
                + ROWCOUNT + ";");
        all.put("resumeQueue", PRELUDE + "UPDATE " + queues + " WITH (ROWLOCK) SET [paused] = 0 WHERE [name] = ? AND [paused] = 1"
                + ROWCOUNT + ";");
        // Binds: 1 queue. No row: no such queue.
        all.put("queuePaused", PRELUDE + "SELECT [paused] FROM " + queues + " WHERE [name] = ?;");
        // Binds: 1 batch size, 2 queue.
        all.put("purgeBatch", PRELUDE + "DELETE TOP (?) FROM " + messages + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        all.put("purgeDeadLettersBatch", PRELUDE + "DELETE TOP (?) FROM " + deadLetters
                + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        all.put("purgeHistoryBatch", PRELUDE + "DELETE TOP (?) FROM " + history
                + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        // History pruning. Binds: 1 batch size, 2 queue, 3 minus the age's seconds, 4 minus its millisecond part.
        all.put("pruneHistoryAgeBatch", PRELUDE + "DELETE TOP (?) FROM " + history
                + " WITH (ROWLOCK) WHERE [queue_name] = ? AND [finished_at] <= " + DELAY + ROWCOUNT + ";");
        // Rows-based pruning (review N11): the last row kept is read once, the N-th newest in listHistory's
        // order (finished_at DESC, id DESC) through the (queue_name, finished_at, id) index; then every older row
        // goes in batches, each a seek on that index. Binds: 1 queue, 2 rows kept minus 1.
        all.put("historyCutoff", PRELUDE + "SELECT [finished_at], [id] FROM " + history + " WHERE [queue_name] = ?"
                + " ORDER BY [finished_at] DESC, [id] DESC OFFSET ? ROWS FETCH NEXT 1 ROWS ONLY;");
        // Binds: 1 batch size, 2 queue, 3 cutoff finished_at, 4 cutoff finished_at, 5 cutoff id.
        all.put("pruneHistoryBeforeBatch", PRELUDE + "DELETE TOP (?) FROM " + history + " WITH (ROWLOCK)"
                + " WHERE [queue_name] = ? AND ([finished_at] < ? OR ([finished_at] = ? AND [id] < ?))" + ROWCOUNT + ";");
        // Counts read uncommitted (NOLOCK) so that stats never wait for, nor miss, open transactional claims.
        all.put("stats", PRELUDE + "DECLARE @q nvarchar(48) = ?; DECLARE @now datetime2(7) = SYSUTCDATETIME(); SELECT"
                + " (SELECT COUNT_BIG(*) FROM " + messages + " WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] <= @now) AS [ready],"
                + " (SELECT COUNT_BIG(*) FROM " + messages + " WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] > @now"
                + " AND [lease_token] IS NOT NULL) AS [in_flight],"
                + " (SELECT COUNT_BIG(*) FROM " + messages + " WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] > @now"
                + " AND [lease_token] IS NULL) AS [delayed],"
                + " (SELECT COUNT_BIG(*) FROM " + deadLetters + " WITH (NOLOCK) WHERE [queue_name] = @q) AS [dead],"
                + " (SELECT COALESCE(DATEDIFF_BIG(millisecond, MIN([enqueued_at]), @now), 0) FROM " + messages
                + " WITH (NOLOCK) WHERE [queue_name] = @q AND [visible_at] <= @now) AS [oldest_ms],"
                + " (SELECT COUNT_BIG(*) FROM " + history + " WITH (NOLOCK) WHERE [queue_name] = @q) AS [processed];");
        // Binds: 1 limit, 2 queue.
        all.put("listDeadLetters", PRELUDE + "SELECT TOP (?) [message_id], [payload], [headers], [attempts], [reason],"
                + " [enqueued_at], [dead_at] FROM " + deadLetters + " WHERE [queue_name] = ? ORDER BY [dead_at], [message_id];");
        // Listings (issue 31): the first bytes of each payload and its length, never the payload. Columns:
        // message_id, payload_preview, payload_bytes, headers, attempts, reason, enqueued_at, dead_at.
        String summary = "[message_id], SUBSTRING([payload], 1, " + dev.sqlqueue.DeadLetterSummary.PREVIEW_BYTES
                + ") AS [payload_preview], DATALENGTH([payload]) AS [payload_bytes], [headers], [attempts], [reason],"
                + " [enqueued_at], [dead_at]";
        // Binds: 1 limit, 2 queue.
        all.put("listDeadLetterSummaries", PRELUDE + "SELECT TOP (?) " + summary + " FROM " + deadLetters
                + " WHERE [queue_name] = ? ORDER BY [dead_at], [message_id];");
        // Binds: 1 message id, 2 queue.
        all.put("deadLetterSummaryById", PRELUDE + "SELECT " + summary + " FROM " + deadLetters
                + " WHERE [message_id] = ? AND [queue_name] = ?;");
        String requeue = " OUTPUT deleted.[queue_name], deleted.[priority], SYSUTCDATETIME(), deleted.[enqueued_at], 0,"
                + " deleted.[payload], deleted.[headers]"
                + " INTO " + messages + " ([queue_name], [priority], [visible_at], [enqueued_at], [attempts], [payload], [headers])";
        // Binds: 1 message id, 2 queue.
        all.put("requeueDeadLetter", PRELUDE + "DELETE FROM " + deadLetters + " WITH (ROWLOCK)" + requeue
                + " WHERE [message_id] = ? AND [queue_name] = ?" + ROWCOUNT + ";");
        // QueueAdmin.messages and message: the queue's messages by id, a payload preview only (issue 31), read uncommitted
        // (NOLOCK) as stats are, so that a listing never waits for an open transactional claim. Binds of the lists: 1
        // limit, 2 queue, 3 after id; of messageById: 1 id, 2 queue.
        String browse = PRELUDE + "SELECT TOP (?) [id], [priority], [enqueued_at], [visible_at], [attempts], [lease_token],"
                + " [started_at], [headers], SUBSTRING([payload], 1, " + dev.sqlqueue.DeadLetterSummary.PREVIEW_BYTES
                + ") AS [payload_preview], DATALENGTH([payload]) AS [payload_bytes], [last_error], SYSUTCDATETIME() AS [now]"
                + " FROM " + messages + " WITH (NOLOCK) WHERE [queue_name] = ? AND [id] > ? AND ";
        all.put("listReady", browse + "[visible_at] <= SYSUTCDATETIME() ORDER BY [id];");
        all.put("listDelayed", browse + "[visible_at] > SYSUTCDATETIME() AND [lease_token] IS NULL ORDER BY [id];");
        all.put("listInFlight", browse + "[visible_at] > SYSUTCDATETIME() AND [lease_token] IS NOT NULL ORDER BY [id];");
        all.put("messageById", browse.replace("SELECT TOP (?) ", "SELECT ").replace(" AND [id] > ? AND ", "")
                .replace("WHERE [queue_name] = ?", "WHERE [id] = ? AND [queue_name] = ?") + ";");
        // QueueAdmin.deleteDeadLetters, one id at a time. Binds: 1 message id, 2 queue.
        all.put("deleteDeadLetter", PRELUDE + "DELETE FROM " + deadLetters + " WITH (ROWLOCK) WHERE [message_id] = ? AND [queue_name] = ?"
                + ROWCOUNT + ";");
        // Binds: 1 batch size, 2 queue.
        all.put("requeueDeadLettersBatch", PRELUDE + "DELETE TOP (?) FROM " + deadLetters + " WITH (ROWLOCK)" + requeue
                + " WHERE [queue_name] = ?" + ROWCOUNT + ";");
        // Binds: 1 limit, 2 queue.
        all.put("listHistory", PRELUDE + "SELECT TOP (?) [message_id], [enqueued_at], [started_at], [finished_at],"
                + " [duration_ms], [attempts], [outcome], [detail], [payload_preview] FROM " + history
                + " WHERE [queue_name] = ? ORDER BY [finished_at] DESC, [id] DESC;");
        // dropSchema: every table of the prefix, Flyway's history table included. No foreign keys, so any order works.
        all.put("dropSchema", PRELUDE + "DROP TABLE IF EXISTS " + dedupeKeys + "; DROP TABLE IF EXISTS " + messages
                + "; DROP TABLE IF EXISTS " + deadLetters
                + "; DROP TABLE IF EXISTS " + history + "; DROP TABLE IF EXISTS " + queues + "; DROP TABLE IF EXISTS "
                + settings + "; DROP TABLE IF EXISTS " + qualified(schema, flywayTable()) + ";");
        all.put("readSettings", PRELUDE + "SELECT [name], [value] FROM " + settings + ";");
        all.put("serverVersion", "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS [version],"
                + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS [edition];");
    }

    /**
     * The claim on SQL Server: the ordered candidates with their locking hints in a CTE, then UPDATE through it
     * with OUTPUT (notes "Claim shape"; "WITH common_table_expression": UPDATE through a CTE with TOP and ORDER
     * BY). Binds: 1 batch size, 2 queue, 3 lease ms.
     */
    private String cteClaim() {
        return PRELUDE + CLAIM_ISOLATION + "WITH [claim] AS (SELECT TOP (?) [id], [priority], [enqueued_at],"
                + " [visible_at], [attempts], [claim_count], [lease_token], [started_at], [payload], [headers]"
                + " FROM " + messages + " " + claimHints()
                + " WHERE [queue_name] = ? AND [visible_at] <= SYSUTCDATETIME()" + notPaused + "[queue_name])"
                + " ORDER BY " + claimKey() + ")"
                + " UPDATE [claim] SET [attempts] = [attempts] + 1, [claim_count] = [claim_count] + 1,"
                + " [lease_token] = [claim_count] + 1, [visible_at] = DATEADD(millisecond, ?, SYSUTCDATETIME()),"
                + " [started_at] = SYSUTCDATETIME()"
                + " OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts], inserted.[priority],"
                + " inserted.[enqueued_at], deleted.[visible_at] AS [prior_visible_at], inserted.[payload], inserted.[headers];";
    }

    /**
     * What a move claim ({@code QueueAdmin.claimForMove}, issue 35) may take: a row no consumer holds, that is one
     * without a lease ({@code [lease_token] IS NULL}: ready or delayed), one a move claim held (a negative token: a
     * mover that died; its messages are taken over at once), or one whose lease has ended.
     */
    private static String movable(String t) {
        return "(" + t + "[lease_token] IS NULL OR " + t + "[lease_token] < 0 OR " + t + "[visible_at] <= SYSUTCDATETIME())";
    }

    /**
     * The move claim (issue 35): up to {@code n} movable rows ({@link #movable}) of the queue, in the claim index's
     * order (ready before delayed; a paused queue too), held for the lease or until their delay ends, whichever is
     * later, so that no consumer takes a delayed message early while it moves. The token is the negated claim count,
     * which marks the row as a move claim's; the attempt is not counted. The first move claim of a row keeps its
     * visibility in {@code [started_at]} (a move claim starts no delivery; a consumer's claim overwrites it), and a
     * move claim that takes over a dead mover's row keeps it there: the delay left is that visibility
     * ({@code [prior_visible_at]}) minus {@code [claimed_at]}, both by the database clock, taken by the caller
     * (Babelfish 4.3 gave the new value for a {@code deleted.*} column inside an OUTPUT expression). A message the
     * move refuses is dead-lettered with that visibility as its start. Binds (into variables, as the Babelfish form): 1
     * batch size, 2 queue, 3 lease ms. The hints force the claim index's seek, so the variables' unknown values cannot
     * change the plan.
     */
    private String cteMoveClaim() {
        String lease = "DATEADD(millisecond, @lease, SYSUTCDATETIME())";
        return PRELUDE + CLAIM_ISOLATION + "DECLARE @n int = ?; DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?;"
                + " WITH [move] AS (SELECT TOP (@n) [id], [priority], [enqueued_at], [visible_at],"
                + " [attempts], [claim_count], [lease_token], [started_at], [payload], [headers] FROM " + messages + " " + claimHints()
                + " WHERE [queue_name] = @q AND " + movable("") + " ORDER BY " + claimKey() + ")"
                + " UPDATE [move] SET [claim_count] = [claim_count] + 1, [lease_token] = -([claim_count] + 1),"
                + " [started_at] = CASE WHEN [lease_token] < 0 THEN [started_at] ELSE [visible_at] END,"
                + " [visible_at] = CASE WHEN [visible_at] > " + lease + " THEN [visible_at] ELSE " + lease + " END"
                + MOVE_OUTPUT + ";";
    }

    private static final String MOVE_OUTPUT = " OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts],"
            + " inserted.[priority], inserted.[enqueued_at], inserted.[started_at] AS [prior_visible_at], SYSUTCDATETIME() AS"
            + " [claimed_at], inserted.[payload], inserted.[headers]";

    /**
     * {@link #cteMoveClaim} on Babelfish, in the form of {@link #babelfishClaim} (the outer WHERE repeats the test, so
     * that a row a consumer took meanwhile is left out). Binds as {@link #cteMoveClaim}.
     */
    private String babelfishMoveClaim() {
        String t = messages;
        String lease = "DATEADD(millisecond, @lease, SYSUTCDATETIME())";
        return PRELUDE + CLAIM_ISOLATION + "DECLARE @n int = ?; DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?;"
                + " UPDATE " + t + " SET " + t + ".[claim_count] = " + t + ".[claim_count] + 1, " + t + ".[lease_token] = -("
                + t + ".[claim_count] + 1), " + t + ".[started_at] = CASE WHEN " + t + ".[lease_token] < 0 THEN " + t
                + ".[started_at] ELSE " + t + ".[visible_at] END, " + t + ".[visible_at] = CASE WHEN " + t + ".[visible_at] > " + lease + " THEN "
                + t + ".[visible_at] ELSE " + lease + " END" + MOVE_OUTPUT
                + " WHERE " + t + ".[queue_name] = @q AND " + movable(t + ".") + " AND " + t + ".[id] IN"
                + " (SELECT TOP (@n) [c].[id] FROM " + t + " AS [c] " + claimHints()
                + " WHERE [c].[queue_name] = @q AND " + movable("[c].") + " ORDER BY " + claimKey() + ");";
    }

    /**
     * The claim on Babelfish ({@link SqlServerEngine#BABELFISH}), which cannot UPDATE through a CTE: the table
     * itself is updated for the ids that a {@code TOP (@n) ... ORDER BY} subquery picks, and the outer WHERE
     * repeats the queue and visibility test. Babelfish runs on PostgreSQL, whose UPDATE re-reads a row that a
     * concurrent transaction changed and committed, and re-tests the outer WHERE on that version: a row another
     * claim took meanwhile (visible_at now in the future) is left out rather than claimed twice. The SET columns
     * are qualified with the table (Babelfish calls unqualified ones ambiguous once OUTPUT names deleted.*); the
     * alias form {@code UPDATE [m] ... FROM t AS [m]} is not used (Babelfish 4.3 returns wrong deleted.* values
     * with it). The hints are kept for the record; Babelfish ignores them. Binds as {@link #cteClaim}: 1 batch
     * size, 2 queue, 3 lease ms (into variables, so that the queue is bound once).
     */
    private String babelfishClaim() {
        String t = messages;
        return PRELUDE + CLAIM_ISOLATION + "DECLARE @n int = ?; DECLARE @q nvarchar(48) = ?; DECLARE @lease int = ?;"
                + " UPDATE " + t + " SET " + t + ".[attempts] = " + t + ".[attempts] + 1, " + t + ".[claim_count] = "
                + t + ".[claim_count] + 1, " + t + ".[lease_token] = " + t + ".[claim_count] + 1, " + t + ".[visible_at] ="
                + " DATEADD(millisecond, @lease, SYSUTCDATETIME()), " + t + ".[started_at] = SYSUTCDATETIME()"
                + " OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts], inserted.[priority],"
                + " inserted.[enqueued_at], deleted.[visible_at] AS [prior_visible_at], inserted.[payload], inserted.[headers]"
                + " WHERE " + t + ".[queue_name] = @q AND " + t + ".[visible_at] <= SYSUTCDATETIME() AND " + t + ".[id] IN"
                + " (SELECT TOP (@n) [c].[id] FROM " + t + " AS [c] " + claimHints()
                + " WHERE [c].[queue_name] = @q AND [c].[visible_at] <= SYSUTCDATETIME()" + notPaused + "@q)"
                + " ORDER BY " + claimKey() + ");";
    }

    /**
     * Takes the key {@code @k} of queue {@code @q} for {@code @ws} s + {@code @wms} ms, or finds who holds it,
     * into {@code @id} (review N1: insert first, on the exact key, with no key-range lock).
     * <ol>
     *   <li>A row of the key whose window has passed is deleted (by primary key).</li>
     *   <li>The key's row is read at READ COMMITTED without HOLDLOCK: a row lock on the exact key, no range. Under
     *       locking READ COMMITTED it waits for a producer that has just written the key and then sees its
     *       committed row (or none after its rollback); under READ_COMMITTED_SNAPSHOT it sees the last committed
     *       row.</li>
     *   <li>No row: the key row is inserted with message id 0 (the placeholder this transaction replaces before
     *       it commits; identity ids start at 1). A concurrent insert of the same key waits for the first
     *       transaction's key lock and then fails with 2627 ("Key-range locking": an insert locks its own key
     *       only), which the CATCH answers by reading the holder's row again: a duplicate. Any other error, or a
     *       doomed transaction (XACT_STATE() -1, with XACT_ABORT ON on a caller's session), is rethrown.</li>
     * </ol>
     * So producers of different keys never wait for each other, whatever the key values (the former
     * {@code UPDLOCK, HOLDLOCK} read of a missing key took a RangeS-U lock on the gap above it, which serialised
     * every producer of increasing keys and deadlocked batches: re-review N1).
     */
    private String takeKey() {
        return "DELETE FROM " + dedupeKeys + " WITH (ROWLOCK)"
                + " WHERE [queue_name] = @q AND [dedupe_key] = @k AND [expires_at] <= SYSUTCDATETIME();"
                + " SELECT @id = [message_id] FROM " + dedupeKeys + " WITH (ROWLOCK) WHERE [queue_name] = @q AND [dedupe_key] = @k;"
                + " IF @id IS NULL BEGIN BEGIN TRY"
                + " INSERT INTO " + dedupeKeys + " ([queue_name], [dedupe_key], [message_id], [expires_at])"
                + " VALUES (@q, @k, 0, DATEADD(second, @ws, DATEADD(millisecond, @wms, SYSUTCDATETIME())));"
                + " END TRY BEGIN CATCH"
                + " IF ERROR_NUMBER() NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW;"
                + " SELECT @id = [message_id] FROM " + dedupeKeys + " WITH (ROWLOCK) WHERE [queue_name] = @q AND [dedupe_key] = @k;"
                + " IF @id IS NULL THROW;"
                + " END CATCH; END;";
    }

    /**
     * The message table, quoted and schema-qualified.
     *
     * @return the quoted, schema-qualified table name
     */
    public String messagesTable() {
        return messages;
    }

    /**
     * The queue table, quoted and schema-qualified.
     *
     * @return the quoted, schema-qualified table name
     */
    public String queuesTable() {
        return queues;
    }

    /**
     * The deduplication keys table, quoted and schema-qualified.
     *
     * @return the quoted, schema-qualified table name
     */
    public String dedupeKeysTable() {
        return dedupeKeys;
    }

    /**
     * The engine these statements are for.
     *
     * @return the engine
     */
    public SqlServerEngine engine() {
        return engine;
    }

    /**
     * Flyway placeholders of the migration {@code db/sqlqueue/sqlserver-tables/V1__queue_tables.sql}:
     * quoted, schema-qualified table names, prefixed constraint and index names, the claim index key and
     * the layout.
     *
     * @param layout the schema layout to migrate to
     * @return the placeholders by name, in a stable order
     */
    public Map<String, String> placeholders(SqlServerOptions.Layout layout) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("messages", messages);
        p.put("dead_letters", deadLetters);
        p.put("history", history);
        p.put("queues", queues);
        p.put("settings", settings);
        p.put("messages_pk", quote(prefix + "messages_pk"));
        p.put("claim_index", claimIndex());
        p.put("queues_dropping_default", quote(prefix + "queues_dropping_default"));
        p.put("queues_paused_default", quote(prefix + "queues_paused_default"));
        p.put("claim_key", claimKey());
        p.put("pk_kind", layout == SqlServerOptions.Layout.CLUSTERED ? "CLUSTERED" : "NONCLUSTERED");
        p.put("dead_letters_pk", quote(prefix + "dead_letters_pk"));
        p.put("dead_letters_queue_index", quote(prefix + "dead_letters_queue"));
        p.put("history_pk", quote(prefix + "history_pk"));
        p.put("history_queue_index", quote(prefix + "history_queue"));
        p.put("queues_pk", quote(prefix + "queues_pk"));
        p.put("settings_pk", quote(prefix + "settings_pk"));
        p.put("dedupe_keys", dedupeKeys);
        p.put("dedupe_keys_pk", quote(prefix + "dedupe_keys_pk"));
        p.put("dedupe_keys_expiry_index", quote(prefix + "dedupe_keys_expiry"));
        p.put("ordering", order.key());
        p.put("layout", layout.key());
        return p;
    }

    /**
     * The Flyway history table name (unquoted; Flyway quotes it): {@code <prefix>schema_history}.
     *
     * @return the unquoted table name
     */
    public String flywayTable() {
        return prefix + "schema_history";
    }

    /**
     * The schema the tables are in.
     *
     * @return the schema name, unquoted
     */
    public String schema() {
        return schema;
    }
}
