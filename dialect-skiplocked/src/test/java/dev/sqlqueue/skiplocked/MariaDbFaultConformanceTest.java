package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.OnlyCases;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The MariaDB fault cases, in both claim modes, against a {@link PrivateMariaDb} this class starts from
 * the installed binaries: C12 and C13 (a killed session: every session on the private server is this
 * test's own, so the hook cannot hit anyone else's) and C17 (database outage: SIGKILL of the private
 * server by its own process id). On the shared server {@link MariaDbConformanceTest} has no such hooks,
 * because without performance_schema MariaDB cannot tell the suite's sessions from other clients'.
 */
@OnlyCases({"C12", "C13", "C17"})
class MariaDbFaultConformanceTest {
    private static PrivateMariaDb server;
    private static ConformanceTarget target;

    @BeforeAll
    static void startPrivateServer() throws Exception {
        Optional<String> why = PrivateMariaDb.unavailable();
        assumeTrue(why.isEmpty(), () -> "no private MariaDB can be started: " + why.orElse(""));
        server = PrivateMariaDb.start();
        PrivateMariaDb s = server;
        target = new SkipLockedTarget(SkipLockedDialect.MARIADB, s.url(), "root", "") {
            @Override
            public String name() {
                return "mariadb (private server)";
            }

            @Override
            public Optional<String> killSessionsUnavailable() {
                return Optional.empty();
            }

            /** KILL CONNECTION of every other session on the private server: all of them are this test's. */
            @Override
            public int killSessions(QueueConfig config) throws SQLException {
                try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement()) {
                    List<Long> ids = new ArrayList<>();
                    try (ResultSet rs = st.executeQuery("SELECT ID FROM information_schema.PROCESSLIST"
                            + " WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Daemon', 'Killed') AND USER <> 'system user'")) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                    int killed = 0;
                    for (long id : ids) {
                        try {
                            st.execute("KILL CONNECTION " + id);
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
                return Optional.empty();
            }

            @Override
            public void stopServer() throws Exception {
                s.crash();
            }

            @Override
            public void startServer() throws Exception {
                s.startServer();
            }

            @Override
            public String serverState() {
                return s.state();
            }
        };
    }

    @AfterAll
    static void stopPrivateServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Nested
    class Lease extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return target;
        }
    }

    @Nested
    class Transactional extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return target;
        }
    }
}
