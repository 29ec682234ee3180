package dev.sqlqueue.teradata;

/**
 * Every SQL statement the Teradata backend sends, in one place. Table names come from
 * {@link TeradataNames} (validated, double-quoted); every value is a {@code ?} parameter, except the
 * {@code TOP n} of {@link #listDeadLetters} which is a validated {@code int}.
 *
 * <p>Sources: SQL Data Definition Language, "CREATE TABLE (Queue Table Form)"; SQL Data Manipulation
 * Language, "SELECT AND CONSUME"; SQL Request and Transaction Processing (B035-1142), "Locking Issues
 * With Consume Mode SELECT Queries on a Queue Table". The text is written from those manuals; no
 * Teradata system has run it in this project (see {@code docs/backends/teradata.md}).
 *
 * <p>Stateless and thread-safe.
 */
public final class TeradataStatements {
    /** Longest header text, in characters (UNICODE, 2 bytes each). */
    public static final int MAX_HEADER_CHARS = 8000;
    /** Longest error or dead-letter reason kept, in characters; longer text is cut. */
    public static final int MAX_REASON_CHARS = 2000;
    /** Largest payload, in bytes: the VARBYTE limit (SQL Data Types and Literals, "VARBYTE"). */
    public static final int MAX_PAYLOAD_BYTES = 64000;

    /**
     * The FORMAT zone-less TIMESTAMP(6) values are moved in as text ({@link JdbcTime}): {@code YYYY-MM-DD
     * HH:MI:SS.ffffff} (SQL Data Types and Literals, "Forcing a FORMAT on CAST for Converting TIMESTAMP to
     * Character", "Character-to-TIMESTAMP Conversion").
     */
    public static final String TIMESTAMP_FORMAT = "'YYYY-MM-DDBHH:MI:SS.S(6)'";
    /** A parameter bound as text ({@link JdbcTime#set}) and converted to TIMESTAMP(6) by the database. */
    public static final String TIMESTAMP_PARAMETER = "CAST(? AS TIMESTAMP(6) FORMAT " + TIMESTAMP_FORMAT + ")";

    /**
     * A TIMESTAMP(6) expression read as text in {@link #TIMESTAMP_FORMAT}: the nested CAST forces the FORMAT
     * whatever format the value carries ("Forcing a FORMAT on CAST for Converting TIMESTAMP to Character").
     *
     * @param expression a TIMESTAMP(6) SQL expression, such as a column name
     * @return a CHAR(26) expression giving its value as {@code YYYY-MM-DD HH:MI:SS.ffffff}
     */
    public static String timestampText(String expression) {
        return "CAST(CAST(" + expression + " AS FORMAT " + TIMESTAMP_FORMAT + ") AS CHAR(26))";
    }

    /**
     * Columns a consume returns, in this order (1-based indexes used by the reader); the two timestamps as
     * text. A select list of SELECT AND CONSUME may hold any expression but aggregates and ordered
     * analytical functions (SQL DML, "SELECT AND CONSUME", select_list).
     */
    static final String CONSUMED_COLUMNS = timestampText("qits") + ", seq, msg_id, attempts, " + timestampText("enqueued_at")
            + ", last_error, headers, payload";

    private TeradataStatements() {
    }

    // ---- DDL ------------------------------------------------------------------------------

    /**
     * {@link #createQueueTable(TeradataNames, boolean)} with FALLBACK, the default.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the CREATE TABLE statement of the queue table, FALLBACK
     */
    public static String createQueueTable(TeradataNames n) {
        return createQueueTable(n, true);
    }

    /**
     * The queue table: MULTISET, QUEUE, QITS first (TIMESTAMP(6), default CURRENT_TIMESTAMP(6)), an
     * identity sequence as unique primary index, a secondary index on QITS (QITS is not the primary
     * index, as the rules require). {@code msg_id} is null for a first enqueue (the id is then
     * {@code seq}) and carries the original id on re-inserts (nack, release, requeue), because an
     * identity column cannot be given a value.
     *
     * @param n the queue's table names (validated and quoted)
     * @param fallback FALLBACK (a copy on another AMP) or NO FALLBACK ({@link TeradataOptions#fallback()})
     * @return the CREATE TABLE statement
     */
    public static String createQueueTable(TeradataNames n, boolean fallback) {
        return "CREATE MULTISET TABLE " + n.queueTable() + ", QUEUE, " + fallback(fallback) + " (\n"
                + "  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  seq BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 NO CYCLE),\n"
                + "  msg_id BIGINT,\n"
                + "  attempts INTEGER NOT NULL DEFAULT 0,\n"
                + "  enqueued_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  last_error VARCHAR(" + MAX_REASON_CHARS + ") CHARACTER SET UNICODE,\n"
                + "  headers VARCHAR(" + MAX_HEADER_CHARS + ") CHARACTER SET UNICODE NOT NULL,\n"
                + "  payload VARBYTE(" + MAX_PAYLOAD_BYTES + ") NOT NULL\n"
                + ") UNIQUE PRIMARY INDEX (seq) INDEX (qits)";
    }

    /**
     * {@link #createDeadLetterTable(TeradataNames, boolean)} with FALLBACK, the default.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the CREATE TABLE statement of the dead-letter table, FALLBACK
     */
    public static String createDeadLetterTable(TeradataNames n) {
        return createDeadLetterTable(n, true);
    }

    /**
     * The dead-letter table: a normal MULTISET table (not a queue table) whose non-unique primary index is
     * {@code msg_id}, so a requeue reads and deletes one message by row hash instead of locking the table
     * (SQL Request and Transaction Processing, "DML Requests and Locks"); {@code dl_seq} keeps the order.
     *
     * @param n the queue's table names (validated and quoted)
     * @param fallback FALLBACK (a copy on another AMP) or NO FALLBACK ({@link TeradataOptions#fallback()})
     * @return the CREATE TABLE statement
     */
    public static String createDeadLetterTable(TeradataNames n, boolean fallback) {
        return "CREATE MULTISET TABLE " + n.deadLetterTable() + ", " + fallback(fallback) + " (\n"
                + "  dl_seq BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 NO CYCLE),\n"
                + "  msg_id BIGINT NOT NULL,\n"
                + "  attempts INTEGER NOT NULL,\n"
                + "  reason VARCHAR(" + MAX_REASON_CHARS + ") CHARACTER SET UNICODE NOT NULL,\n"
                + "  enqueued_at TIMESTAMP(6) NOT NULL,\n"
                + "  dead_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  headers VARCHAR(" + MAX_HEADER_CHARS + ") CHARACTER SET UNICODE NOT NULL,\n"
                + "  payload VARBYTE(" + MAX_PAYLOAD_BYTES + ") NOT NULL\n"
                + ") PRIMARY INDEX (msg_id)";
    }

    /**
     * The deduplication keys table of a queue: a normal MULTISET table whose unique primary index is the
     * stored key, so taking a key ({@link #mergeKey}) waits on the row-hash WRITE lock of a concurrent
     * transaction that took it, then finds it (that one committed) or not (it rolled back). The stored key
     * is the key followed by {@code .}: Teradata compares character strings padded with blanks, so {@code k}
     * and {@code k } would otherwise be one key. {@code msg_id} is null between taking the key and inserting
     * the message, in the same transaction. No secondary index on {@code expires_at}: a hash-ordered NUSI
     * cannot serve a range condition ("Typical Uses of Value-Ordered and Hash-Ordered NUSIs"), and a
     * value-ordered one needs a column of at most 4 bytes (CREATE TABLE, ORDER BY); the clean-up reads under
     * an ACCESS lock instead ({@link #expiredKeys}).
     *
     * @param n the queue's table names (validated and quoted)
     * @param fallback FALLBACK (a copy on another AMP) or NO FALLBACK ({@link TeradataOptions#fallback()})
     * @return the CREATE TABLE statement
     */
    public static String createKeysTable(TeradataNames n, boolean fallback) {
        return "CREATE MULTISET TABLE " + n.keysTable() + ", " + fallback(fallback) + " (\n"
                + "  dedupe_key VARCHAR(" + (dev.sqlqueue.Message.MAX_DEDUPLICATION_KEY_LENGTH + 1)
                + ") CHARACTER SET UNICODE CASESPECIFIC NOT NULL,\n"
                + "  msg_id BIGINT,\n"
                + "  expires_at TIMESTAMP(6) NOT NULL\n"
                + ") UNIQUE PRIMARY INDEX (dedupe_key)";
    }

    private static String fallback(boolean on) {
        return on ? "FALLBACK" : "NO FALLBACK";
    }

    /**
     * Drops one table of a queue ({@code quotedTable} from {@link TeradataNames}).
     *
     * @param quotedTable a qualified, quoted table name from {@link TeradataNames}, such as {@link TeradataNames#queueTable()}
     * @return the DROP TABLE statement
     */
    public static String dropTable(String quotedTable) {
        return "DROP TABLE " + quotedTable;
    }

    // ---- dictionary and session -----------------------------------------------------------

    /**
     * Parameters: database, table name. A row means the table exists. Both sides are upper-cased: in ANSI
     * mode a parameter is CASESPECIFIC, so a plain {@code =} compares case-specifically while object names
     * are case-blind everywhere else (SQL DML, "Character String Definitions in a USING Request Modifier").
     *
     * @return the query, with two parameters
     */
    public static String tableExists() {
        return "SELECT 1 FROM DBC.TablesV WHERE UPPER(DatabaseName) = UPPER(?) AND UPPER(TableName) = UPPER(?)";
    }

    /**
     * Parameters: database, LIKE pattern (with {@code \} as escape), both compared upper-cased. Returns TableName.
     *
     * @return the query, with two parameters
     */
    public static String listTables() {
        return "SELECT TableName FROM DBC.TablesV WHERE UPPER(DatabaseName) = UPPER(?) AND UPPER(TableName) LIKE UPPER(?)"
                + " ESCAPE '\\' ORDER BY TableName";
    }

    /**
     * The session's default database.
     *
     * @return the query; one row, one column
     */
    public static String currentDatabase() {
        return "SELECT DATABASE";
    }

    /**
     * One row describing the session, including the columns "Transaction Semantics" and "Character Set".
     *
     * @return the statement
     */
    public static String helpSession() {
        return "HELP SESSION";
    }

    /**
     * The server version string.
     *
     * @return the query; one row, one column
     */
    public static String serverVersion() {
        return "SELECT InfoData FROM DBC.DBCInfoV WHERE InfoKey = 'VERSION'";
    }

    // ---- producer -------------------------------------------------------------------------

    /**
     * Parameters: headers, payload. QITS, seq, attempts (0) and enqueued_at come from defaults.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement
     */
    public static String insertMessage(TeradataNames n) {
        return "INSERT INTO " + n.queueTable() + " (headers, payload) VALUES (?, ?)";
    }

    /**
     * Parameters: stored key. Drops the key's row when its window has passed (a primary-index access, no scan).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the DELETE statement
     */
    public static String deleteExpiredKey(TeradataNames n) {
        return "DELETE FROM " + n.keysTable() + " WHERE dedupe_key = ? AND expires_at <= CURRENT_TIMESTAMP(6)";
    }

    /**
     * Takes a key without an error: inserts it unless it is there. Parameters: stored key, window days,
     * minutes (under 1,440), seconds (under 60): the window in three single-field intervals, each within its
     * default precision of 4 digits (SQL Data Types and Literals, "INTERVAL DAY", numeric-to-interval
     * conversion). Activity count 1: the key was free and is now taken; 0: it is taken (committed by another
     * transaction, or earlier in this one). A MERGE whose ON clause is the target's primary index and that
     * has only WHEN NOT MATCHED is allowed (SQL DML, "MERGE": {@code ON match_condition { when_matched
     * [when_not_matched] | when_not_matched }}). Unlike an INSERT that fails with 2801, it raises no error, so
     * it cannot abort a caller's transaction in Teradata (BTET) mode, where any error aborts the whole
     * transaction (Database Administration, "Transaction Processing in Teradata Session Mode"; review N3).
     * VERIFY on a system: the casts of integer parameters.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the MERGE statement, with four parameters
     */
    public static String mergeKey(TeradataNames n) {
        return "MERGE INTO " + n.keysTable() + " AS t USING VALUES (?, CURRENT_TIMESTAMP(6) + CAST(? AS INTERVAL DAY(4))"
                + " + CAST(? AS INTERVAL MINUTE(4)) + CAST(? AS INTERVAL SECOND(4))) AS s (dedupe_key, expires_at)"
                + " ON t.dedupe_key = s.dedupe_key WHEN NOT MATCHED THEN INSERT (dedupe_key, expires_at)"
                + " VALUES (s.dedupe_key, s.expires_at)";
    }

    /**
     * Parameters: stored key. The message a taken key stands for (null: none recorded).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; at most one row
     */
    public static String keyMessage(TeradataNames n) {
        return "SELECT msg_id FROM " + n.keysTable() + " WHERE dedupe_key = ?";
    }

    /**
     * Parameters: message id, stored key.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the UPDATE statement
     */
    public static String setKeyMessage(TeradataNames n) {
        return "UPDATE " + n.keysTable() + " SET msg_id = ? WHERE dedupe_key = ?";
    }

    /**
     * Up to {@code limit} expired keys, read under an ACCESS lock, which never waits and blocks no one
     * (SQL Request and Transaction Processing, "About Lock Contentions"); each is then deleted by
     * {@link #deleteExpiredKey} (a row-hash lock). A DELETE of every expired key would take a table WRITE
     * lock ("DML Requests and Locks": a DELETE without a primary or unique secondary index condition) and
     * wait for every open keyed transaction (review N5).
     *
     * @param n the queue's table names (validated and quoted)
     * @param limit the most keys returned, 1..100,000
     * @return the query; one column, the stored key
     * @throws IllegalArgumentException if {@code limit} is outside 1..100,000
     */
    public static String expiredKeys(TeradataNames n, int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be 1..100000, was " + limit);
        }
        return "LOCKING TABLE " + n.keysTable() + " FOR ACCESS SELECT TOP " + limit + " dedupe_key FROM " + n.keysTable()
                + " WHERE expires_at <= CURRENT_TIMESTAMP(6)";
    }

    // ---- consumer -------------------------------------------------------------------------

    /**
     * A browse that never waits: an ACCESS lock does not queue behind the row-hash WRITE locks of open
     * consumes, and a plain SELECT never enters the delay state.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; one row when the queue table holds any message
     */
    public static String peek(TeradataNames n) {
        return "LOCKING TABLE " + n.queueTable() + " FOR ACCESS SELECT TOP 1 qits FROM " + n.queueTable();
    }

    /**
     * Consumes the row with the oldest QITS; returns {@link #CONSUMED_COLUMNS}.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the SELECT AND CONSUME statement
     */
    public static String consume(TeradataNames n) {
        return "SELECT AND CONSUME TOP 1 " + CONSUMED_COLUMNS + " FROM " + n.queueTable();
    }

    /**
     * A nacked message goes back with a new QITS (to the tail). Parameters: msg_id, attempts,
     * enqueued_at, last_error, headers, payload.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement, with six parameters
     */
    public static String reinsert(TeradataNames n) {
        return "INSERT INTO " + n.queueTable()
                + " (msg_id, attempts, enqueued_at, last_error, headers, payload) VALUES (?, ?, " + TIMESTAMP_PARAMETER + ", ?, ?, ?)";
    }

    /**
     * A released message of a partly committed claim goes back with its original QITS (an older
     * explicit QITS keeps its place). Parameters: qits, msg_id, attempts, enqueued_at, last_error,
     * headers, payload.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement, with seven parameters
     */
    public static String restore(TeradataNames n) {
        return "INSERT INTO " + n.queueTable() + " (qits, msg_id, attempts, enqueued_at, last_error, headers, payload) VALUES ("
                + TIMESTAMP_PARAMETER + ", ?, ?, " + TIMESTAMP_PARAMETER + ", ?, ?, ?)";
    }

    /**
     * Parameters: msg_id, attempts, reason, enqueued_at, headers, payload; dead_at defaults to now.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement, with six parameters
     */
    public static String insertDeadLetter(TeradataNames n) {
        return "INSERT INTO " + n.deadLetterTable()
                + " (msg_id, attempts, reason, enqueued_at, headers, payload) VALUES (?, ?, ?, " + TIMESTAMP_PARAMETER + ", ?, ?)";
    }

    // ---- admin ----------------------------------------------------------------------------

    /**
     * Row count, oldest enqueue time and the database clock, read under an ACCESS lock. The clock is cast
     * to a zone-less TIMESTAMP(6), the type of {@code enqueued_at}, so both are read in the same zone; both
     * as text ({@link JdbcTime}).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; one row of three columns
     */
    public static String queueStats(TeradataNames n) {
        return "LOCKING TABLE " + n.queueTable() + " FOR ACCESS SELECT COUNT(*), " + timestampText("MIN(enqueued_at)")
                + ", " + timestampText("CAST(CURRENT_TIMESTAMP(6) AS TIMESTAMP(6))") + " FROM " + n.queueTable();
    }

    /**
     * Dead-letter count, read under an ACCESS lock.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; one row, one column
     */
    public static String deadLetterCount(TeradataNames n) {
        return "LOCKING TABLE " + n.deadLetterTable() + " FOR ACCESS SELECT COUNT(*) FROM " + n.deadLetterTable();
    }

    /**
     * Deletes every message (a full-table operation: it takes a table WRITE lock).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the DELETE statement
     */
    public static String purge(TeradataNames n) {
        return "DELETE FROM " + n.queueTable();
    }

    /**
     * Oldest first, read under an ACCESS lock: a plain SELECT without a primary-index condition would take a
     * table READ lock ("DML Requests and Locks"), wait for every claim writing a dead letter and block the
     * next ones while it runs (review N7). {@code limit} is a validated int 1..100000.
     *
     * @param n the queue's table names (validated and quoted)
     * @param limit the most dead letters returned, 1..100,000
     * @return the query; columns msg_id, attempts, reason, enqueued_at and dead_at (as text), headers, payload
     * @throws IllegalArgumentException if {@code limit} is outside 1..100,000
     */
    public static String listDeadLetters(TeradataNames n, int limit) {
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be 1..100000, was " + limit);
        }
        return "LOCKING TABLE " + n.deadLetterTable() + " FOR ACCESS SELECT TOP " + limit + " msg_id, attempts, reason, " + timestampText("enqueued_at") + ", "
                + timestampText("dead_at") + ", headers, payload FROM " + n.deadLetterTable() + " ORDER BY dead_at, dl_seq";
    }

    /**
     * Every dead-letter id of the queue, oldest first, read under an ACCESS lock (never waits).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; one column, msg_id
     */
    public static String listDeadLetterIds(TeradataNames n) {
        return "LOCKING TABLE " + n.deadLetterTable() + " FOR ACCESS SELECT msg_id FROM " + n.deadLetterTable()
                + " ORDER BY dl_seq";
    }

    /**
     * Parameter: msg_id. One dead letter, read by primary index (a row-hash READ lock). Returns msg_id,
     * enqueued_at, headers, payload.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; at most one row
     */
    public static String selectDeadLetter(TeradataNames n) {
        return "SELECT msg_id, " + timestampText("enqueued_at") + ", headers, payload FROM " + n.deadLetterTable()
                + " WHERE msg_id = ?";
    }

    /**
     * A dead letter back on the queue with attempts 0 and its original enqueue time; a single-row INSERT
     * (row-hash WRITE lock), like a nack. Parameters: msg_id, enqueued_at, headers, payload.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement, with four parameters
     */
    public static String requeueDeadLetter(TeradataNames n) {
        return "INSERT INTO " + n.queueTable() + " (msg_id, attempts, enqueued_at, headers, payload) VALUES (?, 0, "
                + TIMESTAMP_PARAMETER + ", ?, ?)";
    }

    /**
     * Parameter: msg_id; by primary index on a dead-letter table created by this version (row-hash WRITE lock).
     *
     * @param n the queue's table names (validated and quoted)
     * @return the DELETE statement
     */
    public static String deleteDeadLetter(TeradataNames n) {
        return "DELETE FROM " + n.deadLetterTable() + " WHERE msg_id = ?";
    }

    /**
     * Deletes every dead letter of the queue.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the DELETE statement
     */
    public static String purgeDeadLetters(TeradataNames n) {
        return "DELETE FROM " + n.deadLetterTable();
    }

    // ---- probes (sqlqueue probe --backend teradata) -------------------------------------------

    /**
     * Review V3: whether this session takes part in Redrive. One row; column {@code LogonRedrive} is blank
     * or null when the session does not participate (Data Dictionary, "SessionInfoV", usage notes).
     *
     * @return the query
     */
    public static String sessionRedrive() {
        return "SELECT LogonRedrive FROM DBC.SessionInfoV WHERE SessionNo = SESSION";
    }

    /**
     * V4: a table WRITE lock on the queue table, held until the transaction ends, so a consume waits on a lock.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the locking query; one row, the message count
     */
    public static String lockQueueTable(TeradataNames n) {
        return "LOCKING TABLE " + n.queueTable() + " FOR WRITE SELECT COUNT(*) FROM " + n.queueTable();
    }

    /**
     * V9: a plain INSERT of a key (error 2801 when it is there). Parameter: stored key.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the INSERT statement
     */
    public static String insertKeyPlainly(TeradataNames n) {
        return "INSERT INTO " + n.keysTable() + " (dedupe_key, expires_at) VALUES (?, CURRENT_TIMESTAMP(6))";
    }

    /**
     * V1: the payload of the row with a generated id, by primary index. Parameter: seq.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; at most one row, columns seq and payload
     */
    public static String payloadOfSeq(TeradataNames n) {
        return "SELECT seq, payload FROM " + n.queueTable() + " WHERE seq = ?";
    }

    /**
     * V11: QITS as the backend reads it (text) and as a TIMESTAMP.
     *
     * @param n the queue's table names (validated and quoted)
     * @return the query; one row per message, columns QITS as text and as TIMESTAMP(6)
     */
    public static String qitsBothWays(TeradataNames n) {
        return "SELECT " + timestampText("qits") + ", qits FROM " + n.queueTable();
    }
}
