package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.OnlyCases;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import java.net.URI;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite, both claim modes, through a {@link PrivatePgBouncer} in transaction pooling mode (20
 * server connections) in front of this machine's PostgreSQL, with {@code postgresql.transaction-pooler=true}. The
 * suite's own connections (enqueue in the caller's transaction, raw rows, clean-up) go through pgbouncer too, with
 * {@code prepareThreshold=0}. Killing sessions and stopping the server are not offered: behind pgbouncer the
 * server sessions are pgbouncer's, and C17 runs on a private server ({@link PostgresOutageConformanceTest}).
 * Skipped, with the reason, only when the pgbouncer binary is missing.
 */
class PostgresPgBouncerConformanceTest {
    private static PrivatePgBouncer bouncer;
    private static ConformanceTarget target;

    @BeforeAll
    static void startBouncer() throws Exception {
        Optional<String> why = PrivatePgBouncer.unavailable();
        assumeTrue(why.isEmpty(), () -> "pgbouncer conformance skipped: " + why.orElse(""));
        ServerLocator.Server server = ServerLocator.postgres();
        URI uri = URI.create(server.url().substring("jdbc:".length()));
        bouncer = PrivatePgBouncer.start(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), uri.getPath().substring(1),
                server.user(), 20);
        target = new SkipLockedTarget(SkipLockedDialect.POSTGRES, bouncer.url() + "?prepareThreshold=0", server.user(),
                server.password()) {
            @Override
            public String name() {
                return "postgresql through pgbouncer (transaction pooling)";
            }

            @Override
            public QueueConfig config(String uniquePrefix) {
                return super.config(uniquePrefix).toBuilder().option(PostgresOptions.TRANSACTION_POOLER, "true").build();
            }

            @Override
            public Optional<String> killSessionsUnavailable() {
                return Optional.of("behind pgbouncer the server sessions belong to pgbouncer, not to the backend's pool");
            }

            @Override
            public Optional<String> restartUnavailable() {
                return Optional.of("C17 stops the server; it runs on a private PostgreSQL in PostgresOutageConformanceTest");
            }
        };
    }

    @AfterAll
    static void stopBouncer() throws Exception {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    @Nested
    class Lease extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return target;
        }
    }

    /**
     * In transactional mode, the cases where the claim's open transaction meets the pooler (a server connection
     * pinned for the handler, the caller's transaction, the pool's connection state, idle polling without LISTEN);
     * every case runs in transactional mode directly in {@link PostgresConformanceTest} and in lease mode here.
     */
    @Nested
    @OnlyCases(value = {"C01", "C02", "C10", "C11", "C12", "C14", "C18", "C21"},
            why = "through pgbouncer in transactional mode only the cases where the claim's transaction meets the pooler"
                    + " run; every case runs transactional directly (PostgresConformanceTest) and in lease mode here")
    class Transactional extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return target;
        }
    }
}
