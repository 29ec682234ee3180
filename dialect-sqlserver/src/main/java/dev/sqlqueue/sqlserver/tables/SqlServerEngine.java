package dev.sqlqueue.sqlserver.tables;

/**
 * The T-SQL engine behind a {@code jdbc:sqlserver:} URL, read once when the backend opens
 * ({@code SERVERPROPERTY('Babelfish')}: 1 on Babelfish for PostgreSQL, NULL on SQL Server, where an unknown
 * property name returns NULL: Microsoft Learn, "SERVERPROPERTY (Transact-SQL)", return types).
 *
 * <ul>
 *   <li>{@link #SQL_SERVER}: SQL Server 2017 or later, Azure SQL Database and Managed Instance. The claim updates
 *       through a CTE that orders and locks its candidates ({@code docs/backends/sqlserver.md}).</li>
 *   <li>{@link #BABELFISH}: Babelfish for PostgreSQL 4.x (babelfish_extensions), a T-SQL engine over
 *       PostgreSQL. It cannot UPDATE through a CTE (babelfish_extensions issue 2920), so the claim updates the
 *       table itself for the ids a {@code TOP ... ORDER BY} subquery picks, repeating the queue and visibility
 *       test so that a row another claim changed meanwhile is not taken twice. It ignores table hints, READPAST
 *       included: transactional claims wait for each other's rows, and key-range locks do not exist.</li>
 * </ul>
 */
public enum SqlServerEngine {
    /** SQL Server 2017 or later, Azure SQL Database and Managed Instance. */
    SQL_SERVER,
    /** Babelfish for PostgreSQL 4.x. */
    BABELFISH
}
