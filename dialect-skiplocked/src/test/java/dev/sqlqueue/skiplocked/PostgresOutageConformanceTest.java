package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.OnlyCases;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * C17 (database outage) on PostgreSQL, in both claim modes, against a {@link PrivatePostgres} this class
 * starts from the installed binaries and crashes by its own process id. The shared server of the
 * machine is never stopped: {@link PostgresConformanceTest} reports C17 skipped with a pointer here.
 */
@OnlyCases("C17")
class PostgresOutageConformanceTest {
    private static PrivatePostgres server;
    private static ConformanceTarget target;

    @BeforeAll
    static void startPrivateServer() throws Exception {
        Optional<String> why = PrivatePostgres.unavailable();
        assumeTrue(why.isEmpty(), () -> "no private PostgreSQL can be started: " + why.orElse(""));
        server = PrivatePostgres.start();
        PrivatePostgres s = server;
        target = new SkipLockedTarget(SkipLockedDialect.POSTGRES, s.url(), "postgres", "") {
            @Override
            public String name() {
                return "postgresql (private server)";
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
