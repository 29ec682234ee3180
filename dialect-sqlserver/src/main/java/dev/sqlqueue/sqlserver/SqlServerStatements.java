package dev.sqlqueue.sqlserver;

import static dev.sqlqueue.sqlserver.SqlServerNames.qualified;
import static dev.sqlqueue.sqlserver.SqlServerNames.quote;

import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every SQL statement of the {@code sqlserver} backend, built once from the validated table prefix,
 * schema and claim order. Every identifier is delimited with {@link SqlServerNames#quote} and
 * schema-qualified; queue names, ids, tokens, payloads and times are always bind values ({@code ?}).
 *
 * <p>Each statement starts with {@code SET NOCOUNT ON; SET XACT_ABORT ON;}: no row-count messages, and
 * any run-time error rolls back the whole transaction. A SET inside a batch run through
 * {@code sp_executesql}/{@code sp_prepexec} (how mssql-jdbc runs prepared statements) is restored when
 * the batch returns (manual: "SET Statements (Transact-SQL)", considerations), so the settings do not
 * leak into pooled connections. Statements whose effect must be counted end with
 * {@code SELECT @@ROWCOUNT}, which NOCOUNT does not suppress.
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
    static final String ROWCOUNT = "; SELECT @@ROWCOUNT AS [n]";
    /** Largest number of rows one purge, requeue or archive statement touches (lock escalation: ~5,000). */
    public static final int MAINTENANCE_BATCH = 500;

    private final String prefix;
    private final String schema;
    private final ClaimOrder order;
    final String messages;
    final String deadLetters;
    final String history;
    final String queues;
    final String settings;
    private final Map<String, String> all = new LinkedHashMap<>();

    /**
     * @param tablePrefix {@link dev.sqlqueue.QueueConfig#tablePrefix()} (already validated by QueueConfig)
     * @param schema the schema, validated by {@link SqlServerNames#schema}
     * @param order the claim order
     */
    public SqlServerStatements(String tablePrefix, String schema, ClaimOrder order) {
        this.prefix = tablePrefix;
        this.schema = SqlServerNames.schema(schema);
        this.order = order;
        this.messages = qualified(schema, tablePrefix + "messages");
        this.deadLetters = qualified(schema, tablePrefix + "dead_letters");
        this.history = qualified(schema, tablePrefix + "history");
        this.queues = qualified(schema, tablePrefix + "queues");
        this.settings = qualified(schema, tablePrefix + "settings");
        build();
    }

    /** The ORDER BY key of the claim, which is also the key of the claim index after {@code queue_name}. */
    public String claimKey() {
        return switch (order) {
            case FIFO -> "[visible_at], [id]";
            case LIFO -> "[visible_at] DESC, [id] DESC";
            case PRIORITY_FIRST -> "[priority] DESC, [visible_at], [id]";
        };
    }

    /** Every statement by name, in a stable order (for tests and docs). */
    public Map<String, String> all() {
        return Collections.unmodifiableMap(all);
    }

    /** One statement by name. @throws IllegalArgumentException for an unknown name */
    public String get(String name) {
        String s = all.get(name);
        if (s == null) {
            throw new IllegalArgumentException("no statement " + name);
        }
        return s;
    }

    /** The name of a statement text, or null (test doubles use this to record readable call sequences). */
    public String nameOf(String sql) {
        return all.entrySet().stream().filter(e -> e.getValue().equals(sql)).map(Map.Entry::getKey)
                .findFirst().orElse(null);
    }

    private static final String MATCH = " WHERE [id] = ? AND [queue_name] = ? AND [lease_token] = ?";
    private static final String DELAY = "DATEADD(second, ?, DATEADD(millisecond, ?, SYSUTCDATETIME()))";

    private void build() {
        // claim: ordered candidates with locking hints in a CTE, then UPDATE through it with OUTPUT.
        // Binds: 1 batch size, 2 queue, 3 lease ms.
        all.put("claim", PRELUDE + "WITH [claim] AS (SELECT TOP (?) [id], [priority], [enqueued_at], [visible_at],"
                + " [attempts], [claim_count], [lease_token], [started_at], [payload], [headers]"
                + " FROM " + messages + " WITH (ROWLOCK, READPAST, UPDLOCK, READCOMMITTEDLOCK)"
                + " WHERE [queue_name] = ? AND [visible_at] <= SYSUTCDATETIME()"
                + " ORDER BY " + claimKey() + ")"
                + " UPDATE [claim] SET [attempts] = [attempts] + 1, [claim_count] = [claim_count] + 1,"
                + " [lease_token] = [claim_count] + 1, [visible_at] = DATEADD(millisecond, ?, SYSUTCDATETIME()),"
                + " [started_at] = SYSUTCDATETIME()"
                + " OUTPUT inserted.[id], inserted.[lease_token], inserted.[attempts], inserted.[priority],"
                + " inserted.[enqueued_at], deleted.[visible_at] AS [prior_visible_at], inserted.[payload], inserted.[headers];");
        // enqueue: only into an existing queue; REPEATABLEREAD keeps the queue row share-locked until
        // commit so that dropQueue cannot delete it under a running enqueue.
        // Binds: 1 priority, 2 delay s, 3 delay ms, 4 payload, 5 headers, 6 queue.
        all.put("enqueue", PRELUDE + "INSERT INTO " + messages
                + " ([queue_name], [priority], [visible_at], [enqueued_at], [payload], [headers])"
                + " OUTPUT inserted.[id]"
                + " SELECT [q].[name], ?, " + DELAY + ", SYSUTCDATETIME(), ?, ?"
                + " FROM " + queues + " AS [q] WITH (ROWLOCK, REPEATABLEREAD) WHERE [q].[name] = ?;");
        // enqueue in the caller's transaction: no XACT_ABORT, so an error does not doom the caller's
        // transaction behind its back (the caller owns its error handling). Binds as enqueue.
        all.put("enqueueJoined", "SET NOCOUNT ON; " + all.get("enqueue").substring(PRELUDE.length()));
        // Binds of the settle statements end with: id, queue, token.
        all.put("ack", PRELUDE + "DELETE FROM " + messages + " WITH (ROWLOCK)" + MATCH + ROWCOUNT + ";");
        // Binds: 1 detail, then id, queue, token.
        all.put("ackToHistory", PRELUDE + "DELETE FROM " + messages + " WITH (ROWLOCK)"
                + " OUTPUT deleted.[id], deleted.[queue_name], deleted.[enqueued_at], deleted.[started_at],"
                + " SYSUTCDATETIME(), deleted.[attempts], N'acked', ?"
                + " INTO " + history + " ([message_id], [queue_name], [enqueued_at], [started_at], [finished_at],"
                + " [attempts], [outcome], [detail])" + MATCH + ROWCOUNT + ";");
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
                + " ([message_id], [queue_name], [enqueued_at], [started_at], [finished_at], [attempts], [outcome], [detail])"
                + " SELECT [message_id], [queue_name], [enqueued_at], [started_at], [dead_at], [attempts], N'dead-lettered', [reason]"
                + " FROM " + deadLetters + " WITH (ROWLOCK) WHERE [message_id] = ? AND [queue_name] = ?;");
        // Binds: 1 queue name, 2 queue name.
        all.put("createQueue", PRELUDE + "INSERT INTO " + queues + " ([name], [created_at])"
                + " SELECT ?, SYSUTCDATETIME() WHERE NOT EXISTS (SELECT 1 FROM " + queues
                + " WITH (UPDLOCK, HOLDLOCK) WHERE [name] = ?);");
        all.put("deleteQueue", PRELUDE + "DELETE FROM " + queues + " WITH (ROWLOCK) WHERE [name] = ?" + ROWCOUNT + ";");
        all.put("listQueues", PRELUDE + "SELECT [name] FROM " + queues + ";");
        // Binds: 1 batch size, 2 queue.
        all.put("purgeBatch", PRELUDE + "DELETE TOP (?) FROM " + messages + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        all.put("purgeDeadLettersBatch", PRELUDE + "DELETE TOP (?) FROM " + deadLetters
                + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        all.put("purgeHistoryBatch", PRELUDE + "DELETE TOP (?) FROM " + history
                + " WITH (ROWLOCK) WHERE [queue_name] = ?" + ROWCOUNT + ";");
        // History pruning. Binds: 1 batch size, 2 queue, 3 minus the age's seconds, 4 minus its millisecond part.
        all.put("pruneHistoryAgeBatch", PRELUDE + "DELETE TOP (?) FROM " + history
                + " WITH (ROWLOCK) WHERE [queue_name] = ? AND [finished_at] <= " + DELAY + ROWCOUNT + ";");
        // Binds: 1 batch size, 2 queue, 3 rows kept, 4 queue. Newest first as listHistory orders them.
        all.put("pruneHistoryRowsBatch", PRELUDE + "DELETE TOP (?) FROM " + history
                + " WITH (ROWLOCK) WHERE [queue_name] = ? AND [id] NOT IN (SELECT TOP (?) [id] FROM " + history
                + " WHERE [queue_name] = ? ORDER BY [finished_at] DESC, [id] DESC)" + ROWCOUNT + ";");
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
        String requeue = " OUTPUT deleted.[queue_name], deleted.[priority], SYSUTCDATETIME(), deleted.[enqueued_at], 0,"
                + " deleted.[payload], deleted.[headers]"
                + " INTO " + messages + " ([queue_name], [priority], [visible_at], [enqueued_at], [attempts], [payload], [headers])";
        // Binds: 1 message id, 2 queue.
        all.put("requeueDeadLetter", PRELUDE + "DELETE FROM " + deadLetters + " WITH (ROWLOCK)" + requeue
                + " WHERE [message_id] = ? AND [queue_name] = ?" + ROWCOUNT + ";");
        // Binds: 1 batch size, 2 queue.
        all.put("requeueDeadLettersBatch", PRELUDE + "DELETE TOP (?) FROM " + deadLetters + " WITH (ROWLOCK)" + requeue
                + " WHERE [queue_name] = ?" + ROWCOUNT + ";");
        // Binds: 1 limit, 2 queue.
        all.put("listHistory", PRELUDE + "SELECT TOP (?) [message_id], [enqueued_at], [started_at], [finished_at],"
                + " [duration_ms], [attempts], [outcome], [detail] FROM " + history
                + " WHERE [queue_name] = ? ORDER BY [finished_at] DESC, [id] DESC;");
        // dropSchema: every table of the prefix, Flyway's history table included. No foreign keys, so any order works.
        all.put("dropSchema", PRELUDE + "DROP TABLE IF EXISTS " + messages + "; DROP TABLE IF EXISTS " + deadLetters
                + "; DROP TABLE IF EXISTS " + history + "; DROP TABLE IF EXISTS " + queues + "; DROP TABLE IF EXISTS "
                + settings + "; DROP TABLE IF EXISTS " + qualified(schema, flywayTable()) + ";");
        all.put("readSettings", PRELUDE + "SELECT [name], [value] FROM " + settings + ";");
        all.put("serverVersion", "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS [version],"
                + " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS [edition];");
    }

    /**
     * Flyway placeholders of the migration {@code db/sqlqueue/sqlserver-tables/V1__queue_tables.sql}:
     * quoted, schema-qualified table names, prefixed constraint and index names, the claim index key and
     * the layout.
     */
    public Map<String, String> placeholders(SqlServerOptions.Layout layout) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("messages", messages);
        p.put("dead_letters", deadLetters);
        p.put("history", history);
        p.put("queues", queues);
        p.put("settings", settings);
        p.put("messages_pk", quote(prefix + "messages_pk"));
        p.put("claim_index", quote(prefix + "messages_claim"));
        p.put("claim_key", claimKey());
        p.put("pk_kind", layout == SqlServerOptions.Layout.CLUSTERED ? "CLUSTERED" : "NONCLUSTERED");
        p.put("dead_letters_pk", quote(prefix + "dead_letters_pk"));
        p.put("dead_letters_queue_index", quote(prefix + "dead_letters_queue"));
        p.put("history_pk", quote(prefix + "history_pk"));
        p.put("history_queue_index", quote(prefix + "history_queue"));
        p.put("queues_pk", quote(prefix + "queues_pk"));
        p.put("settings_pk", quote(prefix + "settings_pk"));
        p.put("ordering", order.key());
        p.put("layout", layout.key());
        return p;
    }

    /** The Flyway history table name (unquoted; Flyway quotes it): {@code <prefix>schema_history}. */
    public String flywayTable() {
        return prefix + "schema_history";
    }

    public String schema() {
        return schema;
    }
}
