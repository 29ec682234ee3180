package dev.sqlqueue.sqlserver.model;

/**
 * A lock the model granted ({@link SqlServerModel#locksTaken()}, {@link SqlServerModel#locksHeld(int)}).
 *
 * @param connection the session (connection number, from 1)
 * @param table the table as the statements write it, lower case without brackets ({@code dbo.sqlq_bk_keys})
 * @param key the clustered key of the row ({@code [jobs, a.]}), or {@code (end of index)}
 * @param mode S, U, X, RangeS-S, RangeS-U, RangeI-N or RangeX-X
 * @param heldToEnd true if it is kept until the transaction ends (or its autocommitted statement does)
 */
public record Lock(int connection, String table, String key, String mode, boolean heldToEnd) {
}
