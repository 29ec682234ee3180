package dev.sqlqueue.teradata;

import dev.sqlqueue.QueueName;
import java.util.List;

/**
 * The DDL of one queue, for a DBA who creates the tables by hand (Flyway does not support Teradata).
 * The backend runs the same statements when it creates a queue. Stateless and thread-safe.
 */
public final class TeradataDdl {
    private TeradataDdl() {
    }

    /**
     * The statements that create a queue's tables, in order: the queue table, the dead-letter table,
     * the deduplication keys table. Each is one request, to be followed by COMMIT in ANSI mode; none ends with a semicolon.
     *
     * @param tablePrefix the table prefix, as {@link dev.sqlqueue.QueueConfig#tablePrefix()} (1 to 24
     *     characters of {@code [a-z][a-z0-9_]*}; the library's default is {@code sqlq_})
     * @param database the database to hold the tables (1 to 128 characters of letters, digits, {@code _},
     *     {@code $}, {@code #}, not starting with a digit)
     * @param queue the queue name ({@link QueueName} rules)
     * @return three CREATE TABLE statements
     * @throws dev.sqlqueue.InvalidInputException naming the rule a name breaks
     */
    public static List<String> forQueue(String tablePrefix, String database, String queue) {
        return forQueue(tablePrefix, database, queue, true);
    }

    /**
     * As {@link #forQueue(String, String, String)}, choosing FALLBACK or NO FALLBACK
     * ({@code teradata.fallback}).
     *
     * @param tablePrefix the table prefix, as {@link dev.sqlqueue.QueueConfig#tablePrefix()} (1 to 24
     *     characters of {@code [a-z][a-z0-9_]*})
     * @param database the database to hold the tables (1 to 128 characters of letters, digits, {@code _},
     *     {@code $}, {@code #}, not starting with a digit)
     * @param queue the queue name ({@link QueueName} rules)
     * @param fallback true for FALLBACK tables (a second copy on another AMP), false for NO FALLBACK
     * @return three CREATE TABLE statements
     * @throws dev.sqlqueue.InvalidInputException naming the rule a name breaks
     */
    public static List<String> forQueue(String tablePrefix, String database, String queue, boolean fallback) {
        TeradataNames n = TeradataNames.of(tablePrefix, database, QueueName.of(queue));
        return List.of(TeradataStatements.createQueueTable(n, fallback), TeradataStatements.createDeadLetterTable(n, fallback),
                TeradataStatements.createKeysTable(n, fallback));
    }
}
