package dev.sqlqueue.skiplocked;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;

/** The conformance suite on embedded H2 (an in-memory database shared by the cases), both claim modes. */
class H2ConformanceTest {
    static final class H2Target extends SkipLockedTarget {
        H2Target() {
            super(SkipLockedDialect.H2, "jdbc:h2:mem:conformance;DB_CLOSE_DELAY=-1", "sa", "");
        }

        @Override
        public String name() {
            return "h2";
        }

        @Override
        public Optional<String> killSessionsUnavailable() {
            return Optional.empty();
        }

        /** H2's ABORT_SESSION on every other session of the in-memory database (H2 manual, ABORT_SESSION). */
        @Override
        public int killSessions(QueueConfig config) throws SQLException {
            try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT SESSION_ID FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID()")) {
                    while (rs.next()) {
                        ids.add(rs.getInt(1));
                    }
                }
                int killed = 0;
                for (int id : ids) {
                    try (ResultSet rs = st.executeQuery("SELECT ABORT_SESSION(" + id + ")")) {
                        if (rs.next() && rs.getBoolean(1)) {
                            killed++;
                        }
                    }
                }
                return killed;
            }
        }

        @Override
        public Optional<String> restartUnavailable() {
            return Optional.of("embedded H2 runs inside the test JVM: there is no server to stop and start");
        }
    }

    static final ConformanceTarget TARGET = new H2Target();

    @Nested
    class Lease extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return TARGET;
        }
    }

    @Nested
    class Transactional extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return TARGET;
        }
    }
}
