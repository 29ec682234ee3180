package dev.sqlqueue.sqlserver;

import dev.sqlqueue.conformance.ConformanceTarget;
import dev.sqlqueue.conformance.LeaseModeSuite;
import dev.sqlqueue.conformance.OnlyCases;
import dev.sqlqueue.conformance.TransactionalModeSuite;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The conformance suite of the {@code sqlserver} backend on Babelfish for PostgreSQL ({@link BabelfishServer}), in
 * both claim modes:
 * <ul>
 *   <li>every case on the default options (fifo, clustered);</li>
 *   <li>the cases whose outcome depends on the claim statement, its order and the table layout on the other
 *       orderings and layouts (priority-first on a clustered table, lifo on a heap);</li>
 *   <li>C17 (database outage) on a Babelfish server of its own, which it stops and starts again.</li>
 * </ul>
 * The suites run side by side (their cases mostly wait on the server and on their own pauses), each suite's cases
 * one after another. In the transactional mode the five cases that need READPAST, which Babelfish ignores, are
 * reported skipped with that reason ({@link dev.sqlqueue.conformance.KnownGaps#BABELFISH_TRANSACTIONAL}). Babelfish
 * is a real T-SQL parser and executor behind mssql-jdbc, but not SQL Server: what it cannot show (READPAST,
 * key-range locks, RCSI) is settled only by the model tests and the probes. Without the Babelfish fixture every case
 * reports itself skipped with the reason.
 */
@Execution(ExecutionMode.CONCURRENT)
class BabelfishConformanceTest {
    private static final ConformanceTarget FIFO = new BabelfishTarget("fifo", "clustered");
    private static final ConformanceTarget PRIORITY = new BabelfishTarget("priority-first", "clustered");
    private static final ConformanceTarget LIFO_HEAP = new BabelfishTarget("lifo", "heap");
    private static final ConformanceTarget OUTAGE_LEASE = new BabelfishTarget("fifo", "clustered", "outage-lease", true);
    private static final ConformanceTarget OUTAGE_TRANSACTIONAL = new BabelfishTarget("fifo", "clustered", "outage-tx", true);

    /** The cases that depend on the claim statement, the claim order or the table layout. */
    private static final String ORDER_AND_LAYOUT = "it depends neither on the ordering nor on the layout; it runs on the"
            + " default options in BabelfishConformanceTest Lease and Transactional";

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    class Lease extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return FIFO;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    class Transactional extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return FIFO;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = {"C01", "C02", "C03", "C08", "C09", "C11", "C12", "C19", "C20"}, why = ORDER_AND_LAYOUT)
    class LeasePriorityFirst extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return PRIORITY;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = {"C01", "C02", "C03", "C08", "C09", "C11", "C12", "C19", "C20"}, why = ORDER_AND_LAYOUT)
    class TransactionalPriorityFirst extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return PRIORITY;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = {"C01", "C02", "C03", "C08", "C09", "C11", "C12", "C19", "C20"}, why = ORDER_AND_LAYOUT)
    class LeaseLifoOnAHeap extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return LIFO_HEAP;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = {"C01", "C02", "C03", "C08", "C09", "C11", "C12", "C19", "C20"}, why = ORDER_AND_LAYOUT)
    class TransactionalLifoOnAHeap extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return LIFO_HEAP;
        }
    }

    /** C17 stops and starts its server: a server of its own per mode, so no other suite sees it go. */
    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = "C17", why = "it runs on the shared server in BabelfishConformanceTest Lease")
    class OutageLease extends LeaseModeSuite {
        @Override
        protected ConformanceTarget target() {
            return OUTAGE_LEASE;
        }
    }

    @Nested
    @Execution(ExecutionMode.SAME_THREAD)
    @OnlyCases(value = "C17", why = "it runs on the shared server in BabelfishConformanceTest Transactional")
    class OutageTransactional extends TransactionalModeSuite {
        @Override
        protected ConformanceTarget target() {
            return OUTAGE_TRANSACTIONAL;
        }
    }
}
