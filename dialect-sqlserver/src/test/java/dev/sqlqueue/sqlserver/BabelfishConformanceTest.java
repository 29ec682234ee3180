package dev.sqlqueue.sqlserver;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.conformance.ConformanceSuite;
import dev.sqlqueue.conformance.ConformanceTarget;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite of the {@code sqlserver} backend on Babelfish for PostgreSQL ({@link BabelfishServer}),
 * in both claim modes, on the default options (fifo, clustered) and on the other orderings and layouts
 * (priority-first on a clustered table, lifo on a heap). Babelfish is a real T-SQL parser and executor behind
 * mssql-jdbc, but not SQL Server: what it cannot show (READPAST, key-range locks, RCSI) is settled only by the
 * model tests and the probes. Without the Babelfish fixture every case reports itself skipped with the reason.
 */
class BabelfishConformanceTest {
    private static final ConformanceTarget FIFO = new BabelfishTarget("fifo", "clustered");
    private static final ConformanceTarget PRIORITY = new BabelfishTarget("priority-first", "clustered");
    private static final ConformanceTarget LIFO_HEAP = new BabelfishTarget("lifo", "heap");

    @Nested
    class Lease extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return FIFO;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class Transactional extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return FIFO;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }

    @Nested
    class LeasePriorityFirst extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return PRIORITY;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class TransactionalPriorityFirst extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return PRIORITY;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }

    @Nested
    class LeaseLifoOnAHeap extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LIFO_HEAP;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.LEASE;
        }
    }

    @Nested
    class TransactionalLifoOnAHeap extends ConformanceSuite {
        @Override
        protected ConformanceTarget target() {
            return LIFO_HEAP;
        }

        @Override
        protected ClaimMode mode() {
            return ClaimMode.TRANSACTIONAL;
        }
    }
}
