package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/**
 * {@link QueryTimeouts#run} sets a statement's timeout only when the driver reports another value: on H2 the
 * value is the session's (set by an earlier statement of the connection), so a second statement with the
 * same bound runs no {@code SET QUERY_TIMEOUT} and must still be stopped by it.
 */
class QueryTimeoutReuseTest {
    private static final String LONG = "select sum(a.x + b.x) from system_range(1, 1000000) a, system_range(1, 1000000) b";

    private static long count(Connection c, int seconds) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(LONG)) {
            return QueryTimeouts.run(ps, "long", LONG, seconds, () -> {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            });
        }
    }

    @Test
    void onH2TheSessionsTimeoutStopsEveryStatementThatAsksForIt() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:qtreuse", "sa", "")) {
            assertThrows(QueryTimeouts.StatementTimeout.class, () -> count(c, 1), "first statement: the timeout is set");
            assertThrows(QueryTimeouts.StatementTimeout.class, () -> count(c, 1), "same bound again: still in force");
            try (PreparedStatement ps = c.prepareStatement("select 1")) {
                assertEquals(1, ps.getQueryTimeout(), "the session's value, seen by a new statement");
                QueryTimeouts.run(ps, "one", "select 1", 7, () -> {
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next();
                    }
                });
            }
            try (PreparedStatement ps = c.prepareStatement("select 1")) {
                assertEquals(7, ps.getQueryTimeout(), "another bound is set");
            }
            assertThrows(QueryTimeouts.StatementTimeout.class, () -> count(c, 1), "and back");
        }
    }
}
