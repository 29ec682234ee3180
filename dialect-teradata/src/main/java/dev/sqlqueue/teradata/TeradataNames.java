package dev.sqlqueue.teradata;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The database objects of one queue: the queue table {@code <prefix><queue>}, the dead-letter table
 * {@code <prefix><queue>$dl} and the deduplication keys table {@code <prefix><queue>$dk}, all in one database, every part quoted with double quotes.
 *
 * <p>The {@code $} of the dead-letter suffix can never occur in a queue name ({@link QueueName}
 * allows only {@code [A-Za-z0-9_-]}), so no queue table can collide with another queue's dead-letter
 * table. Teradata compares object names without regard to case even when they are quoted (SQL
 * Fundamentals, B035-1141, "Object Names"), so queues whose names differ only in case share one table.
 *
 * <p>Immutable and thread-safe.
 *
 * @param database the database (Teradata's schema) holding the tables, as given (unquoted)
 * @param queue the queue
 * @param queueTableName the unquoted queue table name
 * @param deadLetterTableName the unquoted dead-letter table name
 */
public record TeradataNames(String database, QueueName queue, String queueTableName, String deadLetterTableName) {
    /** Suffix of the dead-letter table name. */
    public static final String DEAD_LETTER_SUFFIX = "$dl";
    /** Suffix of the deduplication keys table name. */
    public static final String KEYS_SUFFIX = "$dk";
    /** Longest object name Teradata accepts, in characters (Database Design, B035-1094, "Database Limits"). */
    public static final int MAX_OBJECT_NAME = 128;
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,23}");
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z_$#][A-Za-z0-9_$#]{0,127}");

    /**
     * The names as given; {@link #of(String, String, QueueName)} builds and checks them.
     *
     * @param database the database holding the tables, unquoted
     * @param queue the queue
     * @param queueTableName the unquoted queue table name
     * @param deadLetterTableName the unquoted dead-letter table name
     * @throws NullPointerException if {@code database} or {@code queue} is null
     */
    public TeradataNames {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(queue, "queue");
    }

    /**
     * The names for a queue.
     *
     * @param prefix the table prefix, 1 to 24 characters of {@code [a-z][a-z0-9_]*}
     * @param database the database name: a letter, {@code _}, {@code $} or {@code #} first, then those
     *     or digits, at most 128 characters
     * @param queue the queue, whose name is appended to the prefix
     * @return the names of the queue's three tables in {@code database}
     * @throws InvalidInputException (rule {@code table-prefix.pattern} or {@code teradata.database})
     *     if either is malformed
     */
    public static TeradataNames of(String prefix, String database, QueueName queue) {
        if (prefix == null || !PREFIX.matcher(prefix).matches()) {
            throw new InvalidInputException("table-prefix.pattern",
                    "table prefix must be 1 to 24 characters of [a-z][a-z0-9_]*, was '" + prefix + "'");
        }
        checkDatabase(database);
        String table = prefix + queue.value();
        return new TeradataNames(database, queue, table, table + DEAD_LETTER_SUFFIX);
    }

    /**
     * Checks a database name.
     *
     * @param database the name: a letter, {@code _}, {@code $} or {@code #} first, then those or digits, at
     *     most 128 characters
     * @return {@code database}, unchanged
     * @throws InvalidInputException (rule {@code teradata.database}) unless the name is a plain Teradata name
     */
    public static String checkDatabase(String database) {
        if (database == null || !DATABASE.matcher(database).matches()) {
            throw new InvalidInputException("teradata.database", "database name must be 1 to 128 characters of"
                    + " letters, digits, '_', '$' or '#', not starting with a digit, was '" + database + "'");
        }
        return database;
    }

    /** @return the queue table, quoted and qualified: {@code "db"."sqlq_jobs"} */
    public String queueTable() {
        return quote(database) + "." + quote(queueTableName);
    }

    /** @return the dead-letter table, quoted and qualified: {@code "db"."sqlq_jobs$dl"} */
    public String deadLetterTable() {
        return quote(database) + "." + quote(deadLetterTableName);
    }

    /** @return the unquoted deduplication keys table name: {@code sqlq_jobs$dk} */
    public String keysTableName() {
        return queueTableName + KEYS_SUFFIX;
    }

    /** @return the deduplication keys table, quoted and qualified: {@code "db"."sqlq_jobs$dk"} */
    public String keysTable() {
        return quote(database) + "." + quote(keysTableName());
    }

    /** Double-quotes an identifier; the inputs are validated, so no quote can occur inside. */
    static String quote(String identifier) {
        if (identifier.indexOf('"') >= 0) {
            throw new IllegalArgumentException("identifier contains a double quote");
        }
        return '"' + identifier + '"';
    }
}
