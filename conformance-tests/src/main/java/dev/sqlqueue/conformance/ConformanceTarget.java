package dev.sqlqueue.conformance;

import dev.sqlqueue.QueueConfig;
import java.util.Optional;

/**
 * A backend under test: how to reach it and how to hurt it. A backend module (or a vendor) supplies one
 * and extends {@link ConformanceSuite}; the command-line kit builds one from a URL.
 */
public interface ConformanceTarget {
    /**
     * Display name, for example {@code postgresql}.
     *
     * @return the target's display name, for reports
     */
    String name();

    /**
     * Why this target cannot run at all here (for example "no Docker engine"), or empty when it can.
     * A non-empty reason makes every case report itself skipped with that reason.
     *
     * @return the reason, or empty when the target can run (the default)
     */
    default Optional<String> unavailableReason() {
        return Optional.empty();
    }

    /**
     * The config for one test: the suite passes a fresh, unique table prefix (or queue-name prefix for
     * backends whose objects are per queue) so that cases never see each other's data.
     *
     * @param uniquePrefix a fresh prefix, lower-case letters, unique to this case run; to be used as the table prefix
     * @return the config to open the backend with for this case
     */
    QueueConfig config(String uniquePrefix);

    /**
     * Why case {@code caseId} (for example {@code "C02"}) cannot pass on this target in {@code mode} for a reason
     * in the server it runs on (a documented gap, {@link KnownGaps}), or empty (the default). Such a case is
     * reported skipped with "known gap of the target: " and the reason, and is not run.
     *
     * @param caseId the case's id, {@code C01} to {@code C28}
     * @param mode the claim mode the case would run in
     * @return the documented reason the case cannot pass here, or empty to run it
     */
    default Optional<String> knownGap(String caseId, dev.sqlqueue.ClaimMode mode) {
        return Optional.empty();
    }

    /**
     * As {@link #knownGap(String, dev.sqlqueue.ClaimMode)}, once the backend is open, with the capabilities it
     * declares (a gap may concern a feature only some configurations have). Default: the two-argument form.
     *
     * @param caseId the case's id, {@code C01} to {@code C28}
     * @param mode the claim mode the case would run in
     * @param capabilities what the opened backend declares
     * @return the documented reason the case cannot pass here, or empty to run it
     */
    default Optional<String> knownGap(String caseId, dev.sqlqueue.ClaimMode mode, dev.sqlqueue.Capabilities capabilities) {
        return knownGap(caseId, mode);
    }

    /**
     * Fault hooks; the default offers none, so the fault cases are skipped with the reason.
     *
     * @return the target's fault hooks; by default hooks that all report themselves unavailable
     */
    default FaultHooks faults() {
        return new FaultHooks() { };
    }

    /**
     * Remove everything the suite created under {@code uniquePrefix} (tables, history tables, broker
     * objects). Called after every case, also after failures.
     *
     * @param uniquePrefix the prefix {@link #config(String)} was given for the case
     */
    void cleanUp(String uniquePrefix);
}
