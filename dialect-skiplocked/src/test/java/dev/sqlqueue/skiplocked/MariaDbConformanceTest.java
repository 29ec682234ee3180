package dev.sqlqueue.skiplocked;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite on the MariaDB server of this machine (SQLQUEUE_MARIADB_URL, _USER, _PASSWORD;
 * default 127.0.0.1:3306/test as root), both claim modes. An unreachable server fails the cases.
 */
class MariaDbConformanceTest {
    static final class MariaDbTarget extends SkipLockedTarget {
        MariaDbTarget() {
            this(ServerLocator.mariadb());
        }

        private MariaDbTarget(ServerLocator.Server s) {
            super(SkipLockedDialect.MARIADB, s.url(), s.user(), s.password());
        }

        @Override
        public String name() {
            return "mariadb";
        }

        @Override
        public Optional<String> killSessionsUnavailable() {
            return Optional.empty();
        }

        /**
         * KILL every other session of this user on this database. MariaDB shows no application name
         * without performance_schema, so this hook is for a test server where the suite runs alone.
         */
        @Override
        public int killSessions(QueueConfig config) throws SQLException {
            try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
                List<Long> ids = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST "
                        + "WHERE USER = SUBSTRING_INDEX(CURRENT_USER(), '@', 1) AND DB = DATABASE() AND ID <> CONNECTION_ID()")) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
                int killed = 0;
                for (long id : ids) {
                    try {
                        st.execute("KILL " + id);
                        killed++;
                    } catch (SQLException gone) {
                        // ended on its own meanwhile
                    }
                }
                return killed;
            }
        }

        @Override
        public Optional<String> restartUnavailable() {
            if (!LocalServer.isLocal(url, 3306)) {
                return Optional.of("the MariaDB server is not on this machine (or runs in a container)");
            }
            if (!Files.isExecutable(Path.of("/usr/sbin/mariadbd"))) {
                return Optional.of("/usr/sbin/mariadbd is not installed");
            }
            return Optional.empty();
        }

        @Override
        public void stopServer() throws Exception {
            LocalServer.run(List.of("pkill", "-KILL", "-x", "mariadbd"));
            LocalServer.awaitPort(3306, false);
        }

        @Override
        public void startServer() throws Exception {
            LocalServer.run(List.of("start-stop-daemon", "--start", "--oknodo", "--background", "--exec", "/usr/sbin/mariadbd"));
            LocalServer.awaitPort(3306, true);
        }
    }

    static final ConformanceTarget TARGET = new MariaDbTarget();

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
