package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import dev.sqlqueue.spi.Probe;
import java.util.List;

/**
 * The probes of the {@code sqlserver} backend: V1 to V6 of the review of the queue-table backend and V7 to V10 of
 * the re-review (section 4, P7 and P8), the questions that reading the documentation and the driver's source could
 * not settle. Each creates its own tables under the run's prefix with the backend's migration, reports what it
 * measured next to what {@code docs/backends/sqlserver.md} says (one verdict per checked point, and
 * {@code could not read ...} without a verdict for what it could not observe: {@link ProbeObservations}), and
 * drops everything it created. Their SQL is in {@link SqlServerStatements#allProbes()}. Stateless; each probe is
 * not thread-safe.
 */
public final class SqlServerProbes {
    private SqlServerProbes() {
    }

    /**
     * V1..V10 in order.
     *
     * @return the probes, each new
     */
    public static List<Probe> all() {
        return List.of(new ResidualLockProbe(), new SetScopingProbe(), new SpoolProbe(), new HeadContentionProbe(),
                new SnapshotJoinedEnqueueProbe(), new ClaimPlanProbe(), new AttentionProbe(), new KeyedProducersProbe(),
                new ExpiredKeysProbe(), new LoadProbe());
    }
}
