package dev.sqlqueue.sqlserver.tables;

import dev.sqlqueue.InvalidInputException;
import java.util.regex.Pattern;

/**
 * Quoting and validation of SQL Server identifiers. Every identifier the dialect emits goes through
 * {@link #quote}: it is wrapped in square brackets and every {@code ]} inside is doubled, which is how
 * T-SQL writes a delimited identifier (manual: "Database identifiers", delimited identifiers; also the
 * {@code QUOTENAME} function). Delimiting also makes reserved words such as {@code ORDER} or
 * {@code SELECT} usable as names.
 *
 * <p>Stateless and thread-safe.
 */
public final class SqlServerNames {
    /** Longest identifier SQL Server accepts, in characters (sysname is nvarchar(128)). */
    public static final int MAX_IDENTIFIER_LENGTH = 128;

    private static final Pattern SCHEMA = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    private SqlServerNames() {
    }

    /**
     * The delimited form of {@code name}: {@code [name]} with each {@code ]} written {@code ]]}.
     *
     * @param name an identifier: 1 to 128 characters, no control character
     * @return the delimited form of {@code name}
     * @throws InvalidInputException (rule {@code identifier.invalid}) if the name is null, empty,
     *     longer than 128 characters, or contains a control character (NUL included)
     */
    public static String quote(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_IDENTIFIER_LENGTH) {
            throw new InvalidInputException("identifier.invalid",
                    "a SQL Server identifier must be 1 to " + MAX_IDENTIFIER_LENGTH + " characters");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidInputException("identifier.invalid",
                    "a SQL Server identifier must not contain control characters");
        }
        return "[" + name.replace("]", "]]") + "]";
    }

    /**
     * {@code [schema].[name]}, both parts quoted with {@link #quote}.
     *
     * @param schema the schema, unquoted (an identifier as {@link #quote} takes)
     * @param name the object's name, unquoted (an identifier as {@link #quote} takes)
     * @return the schema-qualified name
     */
    public static String qualified(String schema, String name) {
        return quote(schema) + "." + quote(name);
    }

    /**
     * Validate the {@code schema} option: an ASCII letter or {@code _}, then letters, digits or
     * {@code _}, at most 128 characters.
     *
     * @param schema the schema holding the objects, as given (unquoted)
     * @return {@code schema}, unchanged
     * @throws InvalidInputException (rule {@code option.schema}) otherwise
     */
    public static String schema(String schema) {
        if (schema == null || !SCHEMA.matcher(schema).matches()) {
            throw new InvalidInputException("option.schema", "schema must match [A-Za-z_][A-Za-z0-9_]{0,127}, was '"
                    + schema + "'");
        }
        return schema;
    }
}
