package dev.sqlqueue.skiplocked;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.postgresql.PGStatement;

/**
 * PostgreSQL only (the driver is loaded by the first call, so callers check the dialect first): statements
 * whose best plan depends on the size of the table and of their id array are planned at every execution.
 *
 * <p>The PostgreSQL JDBC driver prepares a statement on the server at its 5th use on a connection
 * ({@code prepareThreshold}), and the server may then settle on a generic plan, made once without the
 * parameter values. For the deletes by an id array that plan was made while the message table was a few
 * pages: a sequential scan of the table, or a full scan of the claim index with {@code id = ANY($n)} on its
 * last column, which each ack then repeated on the grown table (2 s per ack in the sustained-load
 * benchmark of issue 16, docs/benchmarks.md; the table is new, or its statistics stale, exactly when a
 * queue starts). With the threshold at 0 the driver sends the statement unnamed, and the server plans it
 * with the actual array and the table's current size every time (the primary key once the table has
 * more than a few pages); planning such a delete costs a fraction of a millisecond, once per claim.
 */
final class PostgresPlans {
    private PostgresPlans() {
    }

    /** Plan {@code ps} at every execution (pgjdbc {@link PGStatement#setPrepareThreshold} 0). */
    static void planEveryExecution(PreparedStatement ps) throws SQLException {
        if (ps.isWrapperFor(PGStatement.class)) {
            ps.unwrap(PGStatement.class).setPrepareThreshold(0);
        }
    }
}
