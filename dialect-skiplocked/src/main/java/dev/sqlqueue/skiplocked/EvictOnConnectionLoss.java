package dev.sqlqueue.skiplocked;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;

/**
 * Tells HikariCP to drop a connection whenever a failure means the connection is gone (for example
 * H2's error 90121 after ABORT_SESSION, whose SQLState HikariCP does not know), so that a killed
 * session is never handed out again.
 */
public final class EvictOnConnectionLoss implements SQLExceptionOverride {
    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
        return JdbcErrors.isConnectionLoss(e) ? SQLExceptionOverride.Override.MUST_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
    }
}
