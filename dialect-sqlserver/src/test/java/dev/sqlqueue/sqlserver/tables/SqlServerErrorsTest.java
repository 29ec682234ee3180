package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class SqlServerErrorsTest {
    @Test
    void deadlockAndLockTimeoutAreRetryableAlsoWhenChained() {
        assertTrue(SqlServerErrors.isRetryable(new SQLException("x", "40001", 1205)));
        assertTrue(SqlServerErrors.isRetryable(new SQLException("x", "HY000", 1222)));
        SQLException chained = new SQLException("statement terminated", "HY000", 3621);
        chained.setNextException(new SQLException("deadlock", "40001", 1205));
        assertTrue(SqlServerErrors.isRetryable(chained));
        assertFalse(SqlServerErrors.isRetryable(new SQLException("pk violation", "23000", 2627)));
    }

    @Test
    void connectionFailuresAreTransient() {
        assertInstanceOf(TransientBackendException.class, SqlServerErrors.map("op", new SQLException("reset", "08S01", 0)));
        assertInstanceOf(TransientBackendException.class, SqlServerErrors.map("op", new SQLException("killed", null, 596)));
        SqlQueueException other = SqlServerErrors.map("op", new SQLException("pk violation", "23000", 2627));
        assertFalse(other instanceof TransientBackendException);
        assertTrue(other.getMessage().contains("2627"));
    }

    @Test
    void error650NamesTheSetting() {
        SqlQueueException e = SqlServerErrors.map("claim", new SQLException("READPAST", "S0001", 650));
        assertFalse(e instanceof TransientBackendException);
        assertTrue(e.getMessage().contains("READ COMMITTED") && e.getMessage().contains("SNAPSHOT")
                && e.getMessage().contains("SERIALIZABLE") && e.getMessage().contains("650"));
    }

    @Test
    void backoffCapGrowsThenStops() {
        assertEquals(20, Backoff.capMillis(1));
        assertEquals(40, Backoff.capMillis(2));
        assertEquals(1000, Backoff.capMillis(7));
        assertEquals(1000, Backoff.capMillis(30));
    }

    /**
     * Review finding 8: Azure SQL Database failover, reconfiguration and throttling errors are transient
     * (Microsoft Learn, "SQL error codes for SQL Database client applications": transient fault error
     * codes and resource governance errors; 40544, database size quota, is not transient).
     */
    @Test
    void azureSqlFailoverAndThrottlingErrorsAreTransient() {
        for (int code : new int[] {40613, 40197, 40501, 49918, 49919, 49920, 4221, 10928, 10929}) {
            SqlQueueException e = SqlServerErrors.map("op", new SQLException("azure " + code, "S0001", code));
            assertInstanceOf(TransientBackendException.class, e, "error " + code);
            assertTrue(e.getMessage().contains(String.valueOf(code)), e.getMessage());
        }
        assertFalse(SqlServerErrors.map("op", new SQLException("x", "S0001", 40544)) instanceof TransientBackendException,
                "a full database (40544) is not transient");
    }
}
