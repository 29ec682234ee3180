package dev.sqlqueue.conformance;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ClaimMode;
import java.util.Map;
import java.util.Optional;

/**
 * Cases a target cannot pass for a reason that lies in the server it runs on, not in the backend: each is
 * reported skipped with its reason ({@link ConformanceTarget#knownGap}), never run and never counted as passed.
 * The list is short and each entry names the server's documented gap.
 */
public final class KnownGaps {
    /**
     * Babelfish for PostgreSQL (4.x) ignores table hints, READPAST included ({@code shared/babelfish/BUILD.md},
     * "Table hints are ignored"; babelfishpg_tsql.escape_hatch_table_hints): a claim waits for the rows another
     * open claim holds instead of skipping them, and the query timeout does not end that wait there. In the
     * transactional claim mode a claim holds its rows until ack, so these cases, which claim while another
     * transactional claim is open, wait until the connection's network timeout ends the second claim. Lease-mode
     * claims commit at once and are not affected.
     */
    public static final Map<String, String> BABELFISH_TRANSACTIONAL = Map.of(
            "C02", "Babelfish ignores READPAST: a second consumer waits for the open transactional claim's row instead of"
                    + " skipping it",
            "C04", "Babelfish ignores READPAST: the check that the extended message stays hidden waits for the open"
                    + " transactional claim instead of skipping its row",
            "C08", "Babelfish ignores READPAST: the second claim waits for the row of the higher-priority message the first"
                    + " open transactional claim holds instead of skipping it",
            "C11", "Babelfish ignores READPAST: the second claim waits for the first open transactional claim's rows instead"
                    + " of skipping them",
            "C12", "Babelfish ignores READPAST: the claim made while another transactional claim holds the message waits"
                    + " for it instead of skipping it");

    private KnownGaps() {
    }

    /**
     * The reason case {@code caseId} cannot pass on Babelfish in {@code mode} for a backend with {@code capabilities},
     * or empty: C08 only where the backend has {@link Capability#PRIORITY} (elsewhere it is skipped for that).
     *
     * @param caseId the case's id, {@code C01} to {@code C28}
     * @param mode the claim mode the case would run in
     * @param capabilities what the opened backend declares
     * @return the reason, or empty to run the case
     */
    public static Optional<String> babelfish(String caseId, ClaimMode mode, Capabilities capabilities) {
        if (mode != ClaimMode.TRANSACTIONAL || (caseId.equals("C08") && !capabilities.has(Capability.PRIORITY))) {
            return Optional.empty();
        }
        return Optional.ofNullable(BABELFISH_TRANSACTIONAL.get(caseId));
    }
}
