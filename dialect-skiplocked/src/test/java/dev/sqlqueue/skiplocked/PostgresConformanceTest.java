package dev.sqlqueue.skiplocked;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite on the PostgreSQL server of this machine (SQLQUEUE_PG_URL, _USER, _PASSWORD;
 * default 127.0.0.1:5432/test as postgres), both claim modes. An unreachable server fails the cases:
 * it is not skipped.
 */
class PostgresConformanceTest {
    static final class PostgresTarget extends SkipLockedTarget {
        PostgresTarget() {
            this(ServerLocator.postgres());
        }

        private PostgresTarget(ServerLocator.Server s) {
            super(SkipLockedDialect.POSTGRES, s.url(), s.user(), s.password());
        }

        @Override
        public String name() {
            return "postgresql";
        }

        @Override
        public Optional<String> killSessionsUnavailable() {
            return Optional.empty();
        }

        /**
         * pg_terminate_backend on the sessions of the backend's pool, found by their application_name
         * {@code sqlqueue-<prefix>}: the prefix is random per case, so no other client's session matches.
         */
        @Override
        public int killSessions(QueueConfig config) throws SQLException {
            try (Connection c = DriverManager.getConnection(url, user, password);
                 PreparedStatement ps = c.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
                         + "FROM pg_stat_activity WHERE application_name = ? AND pid <> pg_backend_pid()")) {
                ps.setString(1, "sqlqueue-" + config.tablePrefix());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        }

        /** C17 stops a server: it runs on a private one in {@link PostgresOutageConformanceTest}, never on this one. */
        @Override
        public Optional<String> restartUnavailable() {
            return Optional.of("C17 stops the server, so it runs on a private PostgreSQL the tests start themselves"
                    + " (PostgresOutageConformanceTest), never on a shared one");
        }
    }

    static final ConformanceTarget TARGET = new PostgresTarget();

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
