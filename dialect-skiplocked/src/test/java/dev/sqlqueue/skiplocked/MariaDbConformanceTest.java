package dev.sqlqueue.skiplocked;

import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
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

        /**
         * Without performance_schema MariaDB cannot tell the suite's sessions from other clients' of the
         * same user, so the kill cases run on a private server ({@link MariaDbFaultConformanceTest}).
         */
        @Override
        public Optional<String> killSessionsUnavailable() {
            return Optional.of("killing sessions on a shared MariaDB could hit other clients' sessions; C12's kill and C13"
                    + " run on a private MariaDB the tests start themselves (MariaDbFaultConformanceTest)");
        }

        /** C17 stops a server: it runs on a private one in {@link MariaDbFaultConformanceTest}, never on this one. */
        @Override
        public Optional<String> restartUnavailable() {
            return Optional.of("C17 stops the server, so it runs on a private MariaDB the tests start themselves"
                    + " (MariaDbFaultConformanceTest), never on a shared one");
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
